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

As vLLM's caller does, the harness draws each request's bonus token from its
bonus row (bonus policy "harness") and turns logits into the target's
probabilities by the request's temperature, top-k and top-p before the call
(``target_probs``), by the contract's rules (ranked by logit, the lower
index first on ties; top-p keeps the shortest prefix reaching it). Seeded
requests get a generator of their own, seeded by (seed, index); unseeded
ones none, as in vLLM. The arguments are ``batch.vllm_view()``'s.

    import specverify.adapters.vllm as vllm_adapter
    my_sampler = vllm_adapter.sampler(rejection_sample)   # at module level

then ``specverify.verify(my_sampler)``.
"""

import specverify

from ._rules import target_probs_from_logits


def sampler(rejection_sample, name=None, inputs=("probs", "logits-f32", "logits-bf16"),
            max_batch=None, max_bytes=None, device="cpu"):
    """The specverify sampler that calls ``rejection_sample`` the vLLM way.
    Bind it to a module-level name: that name is how the sampler's own
    process finds it."""

    def call(batch):
        return rejection_sample(*batch.vllm_view(target_probs_from_logits))

    # found, by the sampler's own process, under the name it is bound to in the
    # module that made it (specverify's _run.sampler_spec)
    call.__name__ = call.__qualname__ = name or rejection_sample.__name__
    call.__module__ = rejection_sample.__module__
    call.__doc__ = "vLLM-style rejection_sample: %s" % (
        (rejection_sample.__doc__ or rejection_sample.__name__).strip().split("\n")[0])
    return specverify.sampler(call, name=name, tensors="torch", layouts=("packed",),
                              inputs=inputs, bonus="harness", max_batch=max_batch,
                              max_bytes=max_bytes, device=device)
