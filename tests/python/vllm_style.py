"""A PyTorch rejection sampler written here in vLLM's style: vLLM's
rejection_sample signature (packed drafts with cu_num_draft_tokens, the
bonus token sampled by the caller, per-request sampling metadata and
generators), written from the algorithm, not from vLLM's code. And a copy
with one planted bug: the token after a rejection drawn from the target p
instead of the residual max(p - q, 0) (resample_from_p, as shipped in more
than one engine). tests/python/test_vllm_style.py verifies both through
specverify.adapters.vllm."""

import torch

import specverify.adapters.vllm as vllm_adapter

PLACEHOLDER = -1


def _sample(draft_token_ids, num_draft_tokens, max_spec_len, cu_num_draft_tokens, draft_probs,
            target_probs, bonus_token_ids, sampling_metadata, residual):
    B, T = len(num_draft_tokens), draft_token_ids.shape[0]
    dev = target_probs.device
    out = torch.full((B, max_spec_len + 1), PLACEHOLDER, dtype=torch.int32, device=dev)
    n = torch.tensor(num_draft_tokens, dtype=torch.int64, device=dev)
    starts = cu_num_draft_tokens.to(torch.int64) - n
    req = torch.repeat_interleave(torch.arange(B, device=dev), n)  # each draft token's request
    pos = torch.arange(T, device=dev) - starts[req]  # and its place in that request
    tok = torch.arange(T, device=dev)
    p_x = target_probs[tok, draft_token_ids].to(torch.float64)
    q_x = (draft_probs[tok, draft_token_ids].to(torch.float64) if draft_probs is not None
           else torch.ones(T, dtype=torch.float64, device=dev))
    # one uniform per draft token: the request's own generator when it is seeded
    u = torch.rand(T, dtype=torch.float64, device=dev)
    for r, g in sampling_metadata.generators.items():
        s, e = int(starts[r]), int(starts[r] + n[r])
        if e > s:
            u[s:e] = torch.rand(e - s, dtype=torch.float64, generator=g, device=dev)
    accept = u * q_x < p_x
    greedy = torch.zeros(B, dtype=torch.bool, device=dev)
    if sampling_metadata.temperature is not None:
        greedy = sampling_metadata.temperature == 0
        accept = torch.where(greedy[req], draft_token_ids == target_probs.argmax(dim=1), accept)
    # the accepted prefix of each request
    acc = torch.zeros((B, max_spec_len), dtype=torch.int32, device=dev)
    acc[req, pos] = accept.to(torch.int32)
    lead = torch.cumprod(acc, dim=1).sum(dim=1)
    drafts = torch.full((B, max_spec_len), PLACEHOLDER, dtype=torch.int32, device=dev)
    drafts[req, pos] = draft_token_ids.to(torch.int32)
    keep = torch.arange(max_spec_len, device=dev)[None, :] < lead[:, None]
    out[:, :max_spec_len][keep] = drafts[keep]
    # at the first rejection: a token from the residual (greedy: the argmax)
    rejected = torch.nonzero(lead < n).flatten()
    if rejected.numel():
        t = starts[rejected] + lead[rejected]
        p = target_probs[t].to(torch.float64)
        w = p.clone()
        if residual:
            if draft_probs is not None:
                w = (p - draft_probs[t].to(torch.float64)).clamp_min(0.0)
            else:
                w[torch.arange(t.numel(), device=dev), draft_token_ids[t]] = 0.0
        # inverse CDF, one uniform a request (its generator's when seeded): the
        # first token whose running sum reaches u times the total, never one
        # of weight 0 (u < 1, the search left-sided)
        v = torch.rand(t.numel(), dtype=torch.float64, device=dev)
        for i, r in enumerate(rejected.tolist()):
            g = sampling_metadata.generators.get(r)
            if g is not None:
                v[i] = torch.rand(1, dtype=torch.float64, generator=g, device=dev)[0]
        cdf = torch.cumsum(w, dim=1)
        token = torch.searchsorted(cdf, (v * cdf[:, -1])[:, None]).flatten()
        token = torch.where(greedy[rejected], p.argmax(dim=1), token)
        out[rejected, lead[rejected]] = token.to(torch.int32)
    done = torch.nonzero(lead == n).flatten()  # every draft accepted: the caller's bonus
    out[done, n[done]] = bonus_token_ids[done, 0].to(torch.int32)
    return out


def rejection_sample(draft_token_ids, num_draft_tokens, max_spec_len, cu_num_draft_tokens,
                     draft_probs, target_probs, bonus_token_ids, sampling_metadata):
    """the chain rule in torch, per-request generators, greedy by argmax"""
    return _sample(draft_token_ids, num_draft_tokens, max_spec_len, cu_num_draft_tokens,
                   draft_probs, target_probs, bonus_token_ids, sampling_metadata, residual=True)


def rejection_sample_planted(draft_token_ids, num_draft_tokens, max_spec_len,
                             cu_num_draft_tokens, draft_probs, target_probs, bonus_token_ids,
                             sampling_metadata):
    """planted bug: after a rejection, a token from p, not from max(p - q, 0)"""
    return _sample(draft_token_ids, num_draft_tokens, max_spec_len, cu_num_draft_tokens,
                   draft_probs, target_probs, bonus_token_ids, sampling_metadata, residual=False)


# what specverify loads: module-level names, with a byte budget per call
vllm_ok = vllm_adapter.sampler(rejection_sample, name="vllm_style", max_bytes=64 << 20)
vllm_planted = vllm_adapter.sampler(rejection_sample_planted, name="vllm_style_planted",
                                    max_bytes=64 << 20)
# the same on the GPU (tests/python/test_cuda.py, where one is lent)
vllm_cuda = vllm_adapter.sampler(rejection_sample, name="vllm_style_cuda", max_bytes=256 << 20,
                                 device="cuda")


def random_sample(probs, generators):
    """the caller's bonus draw in vLLM's style: a race argmax(p / E) with one
    exponential vector a request, its generator's when it is seeded (float64
    here, so no float32 floor)"""
    e = torch.empty(probs.shape, dtype=torch.float64, device=probs.device).exponential_()
    for r, g in generators.items():
        e[r].exponential_(generator=g)
    return (probs.to(torch.float64) / e).argmax(dim=1)


def engine_bonus(bonus_probs, sampling_metadata):
    """the engine's own bonus sampler, as the adapter takes it"""
    return random_sample(bonus_probs, sampling_metadata.generators)


# the bonus drawn by the engine's code, not the harness's (bonus "sampler")
vllm_own_bonus = vllm_adapter.sampler(rejection_sample, name="vllm_style_own_bonus",
                                      max_bytes=64 << 20, bonus_sampler=engine_bonus)
