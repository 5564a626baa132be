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
ones none, as in vLLM.

    import specverify.adapters.vllm as vllm_adapter
    my_sampler = vllm_adapter.sampler(rejection_sample)   # at module level

then ``specverify.verify(my_sampler)``.
"""

from types import SimpleNamespace

import specverify

from ._rules import target_probs_from_logits


def sampler(rejection_sample, name=None, inputs=("probs", "logits-f32", "logits-bf16"),
            max_batch=None, max_bytes=None, device="cpu"):
    """The specverify sampler that calls ``rejection_sample`` the vLLM way.
    Bind it to a module-level name: that name is how the sampler's own
    process finds it."""
    import torch

    def call(batch):
        B = batch.B
        dev = batch.num_drafts.device
        d = batch.num_drafts.to(torch.int64)
        cu = batch.cu_num_drafts.to(torch.int64)
        # the target's rows at draft positions: request b's rows cu[b]+b .. cu[b]+b+d_b-1
        own = torch.repeat_interleave(torch.arange(B, device=dev), d)
        rows = torch.arange(int(cu[-1]), device=dev) + own
        if batch.target is not None:
            target = batch.target[rows]
        else:
            target = target_probs_from_logits(batch.target_logits[rows], batch.temperatures[own],
                                              batch.top_ks[own], batch.top_ps[own])
        draft = None
        if batch.draft is not None:
            draft = batch.draft
        elif batch.draft_logits is not None:
            draft = target_probs_from_logits(batch.draft_logits, batch.temperatures[own],
                                             batch.top_ks[own], batch.top_ps[own])
        temperature = batch.temperatures.to(torch.float32) if batch.temperatures is not None \
            else None
        greedy = (temperature == 0 if temperature is not None
                  else torch.zeros(B, dtype=torch.bool, device=dev))
        metadata = SimpleNamespace(
            temperature=temperature, all_greedy=bool(greedy.all()),
            all_random=not bool(greedy.any()),
            top_k=batch.top_ks, top_p=batch.top_ps.to(torch.float32)
            if batch.top_ps is not None else None,
            generators=batch.generators())
        return rejection_sample(batch.draft_tokens.to(torch.int64), d.tolist(), batch.K,
                                cu[1:].to(torch.int32), draft, target,
                                batch.bonus_tokens.to(torch.int64)[:, None], metadata)

    # found, by the sampler's own process, under the name it is bound to in the
    # module that made it (specverify's _run.sampler_spec)
    call.__name__ = call.__qualname__ = name or rejection_sample.__name__
    call.__module__ = rejection_sample.__module__
    call.__doc__ = "vLLM-style rejection_sample: %s" % (
        (rejection_sample.__doc__ or rejection_sample.__name__).strip().split("\n")[0])
    return specverify.sampler(call, name=name, tensors="torch", layouts=("packed",),
                              inputs=inputs, bonus="harness", max_batch=max_batch,
                              max_bytes=max_bytes, device=device)
