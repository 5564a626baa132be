"""Adapter: a function with the signature of vLLM's ``rejection_sample`` as a
specverify sampler. Written from vLLM's public signature (v1 engine,
vllm/v1/sample/rejection_sampler.py), no code copied; edit it to match the
version you test.

    rejection_sample(draft_token_ids,      # [T] int64, the batch's drafts packed
                     num_draft_tokens,     # list of B ints
                     max_spec_len,         # int
                     cu_num_draft_tokens,  # [B] int32, running sums (no leading 0)
                     draft_probs,          # [T][V] float32, or None (one-hot drafter)
                     target_probs,         # [T][V] float32, the draft positions' rows
                     bonus_token_ids,      # [B][1] int64, sampled by the caller
                     sampling_metadata)    # .temperature [B] (0: greedy) or None,
                                           # .all_greedy, .all_random, .top_k, .top_p,
                                           # .generators {request: torch.Generator}
    -> output_token_ids [B][max_spec_len + 1], -1 after each request's last

As vLLM's caller does, the adapter draws each request's bonus token from
its bonus row before the call: with the engine's own bonus sampler when it
is given (``bonus_sampler``, bonus policy "sampler": vLLM's float32
exponential race, PR 43150, lived there), else the harness draws it (bonus
policy "harness", and the report's "bonus:" line says that the engine's
bonus sampler was not tested). It turns logits into the target's
probabilities by the request's temperature, top-k and top-p before the call
(``target_probs``), by the contract's rules (ranked by logit, the lower
index first on ties; top-p keeps the shortest prefix reaching it). Seeded
requests get a generator of their own, seeded by (seed, index); unseeded
ones none, as in vLLM. The arguments are ``batch.vllm_view()``'s.

    import specverify.adapters.vllm as vllm_adapter
    my_sampler = vllm_adapter.sampler(rejection_sample)   # at module level

    def engine_bonus(probs, sampling_metadata):           # vLLM's caller's draw
        return random_sample(probs, sampling_metadata.generators)
    tested_too = vllm_adapter.sampler(rejection_sample, name="with_bonus",
                                      bonus_sampler=engine_bonus)

then ``specverify.verify(my_sampler)``.
"""

import specverify

from ._rules import target_probs_from_logits


def sampler(rejection_sample, name=None, inputs=("probs", "logits-f32", "logits-bf16"),
            max_batch=None, max_bytes=None, device="cpu", bonus_sampler=None, lacks=()):
    """The specverify sampler that calls ``rejection_sample`` the vLLM way.
    Bind it to a module-level name: that name is how the sampler's own
    process finds it. ``bonus_sampler(bonus_probs [B][V], sampling_metadata)
    -> [B]`` is the engine's own bonus draw (its generators in
    ``sampling_metadata.generators``): given, it is tested too (bonus
    "sampler"); None, the harness draws the bonus (bonus "harness").
    ``lacks``: what the engine does not implement ("top_k_p", "seeds")."""

    def call(batch):
        return rejection_sample(*batch.vllm_view(target_probs_from_logits, bonus_sampler))

    # found, by the sampler's own process, under the name it is bound to in the
    # module that made it (specverify's _run.sampler_spec)
    call.__name__ = call.__qualname__ = name or rejection_sample.__name__
    call.__module__ = rejection_sample.__module__
    call.__doc__ = "vLLM-style rejection_sample: %s" % (
        (rejection_sample.__doc__ or rejection_sample.__name__).strip().split("\n")[0])
    return specverify.sampler(call, name=name, tensors="torch", layouts=("packed",),
                              inputs=inputs,
                              bonus="harness" if bonus_sampler is None else "sampler",
                              max_batch=max_batch, max_bytes=max_bytes, device=device,
                              lacks=lacks)
