"""A chain speculative sampler in torch with FlashInfer's
chain_speculative_sampling signature (one K, one generator per call),
written here from the algorithm, so that specverify.adapters.flashinfer is
tested without FlashInfer; where FlashInfer is installed, its own function
goes in the same place (tests/python/test_flashinfer_style.py)."""

import torch

import specverify.adapters.flashinfer as fi_adapter


def chain_speculative_sampling(draft_probs, draft_token_ids, target_probs,
                               maybe_output_accepted_token_num=None,
                               maybe_output_emitted_draft_token_num=None, deterministic=True,
                               generator=None, seed=None, offset=None):
    """the chain rule, one generator for the call, inverse-CDF residual"""
    B, K = draft_token_ids.shape
    dev = target_probs.device
    out = torch.full((B, K + 1), -1, dtype=torch.int32, device=dev)
    u = torch.rand((B, K + 1), dtype=torch.float64, generator=generator, device=dev)
    rows = torch.arange(B, device=dev)
    n = torch.zeros(B, dtype=torch.int64, device=dev)
    alive = torch.ones(B, dtype=torch.bool, device=dev)
    for k in range(K):
        x = draft_token_ids[:, k].long()
        ok = alive & (u[:, k] * draft_probs[rows, k, x].double() < target_probs[rows, k, x].double())
        out[ok, k] = x[ok].to(torch.int32)
        n += ok
        alive &= ok
    # the token after the last accepted: residual max(p - q, 0), or p after all K
    p = target_probs[rows, n].double()
    q = torch.where((n < K)[:, None], draft_probs[rows, n.clamp(max=max(K - 1, 0))].double()
                    if K else torch.zeros_like(p), torch.zeros_like(p))
    cdf = torch.cumsum((p - q).clamp_min(0.0), dim=1)
    y = torch.searchsorted(cdf, (u[:, K] * cdf[:, -1])[:, None]).flatten()
    out[rows, n] = y.to(torch.int32)
    if maybe_output_emitted_draft_token_num is not None:
        maybe_output_emitted_draft_token_num += n.to(torch.int32)
    return out


fi_style = fi_adapter.sampler(chain_speculative_sampling, name="flashinfer_style", device="cpu",
                              max_bytes=64 << 20)
