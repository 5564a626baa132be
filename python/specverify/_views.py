"""The batch as the engines' samplers take it (issue 38): the index
arithmetic every adapter otherwise rebuilds by hand.

specverify's packed layout has ``cu_num_drafts`` [B+1] from 0 and
interleaves each sequence's bonus row with its draft positions' target rows
(sequence b's d_b + 1 rows at cu[b] + b). vLLM v1 (and vllm-ascend, ATOM)
take the running ends [B] (no leading 0), the draft positions' target rows
only, and the bonus token apart. FlashInfer's chain kernel takes padded
[B][K][V] rows with one K and one random stream per call. SGLang's tree
kernel takes each tree as linked lists (first child, next sibling) and
caller-drawn float32 coins. Written from the
engines' public signatures (docs/engines.md names each function); no code
copied.
"""

from collections import namedtuple
from types import SimpleNamespace

from .random import PURPOSE_ACCEPT, PURPOSE_FINAL

TORCH_F32 = "torch.float32"

VllmArgs = namedtuple("VllmArgs", (
    "draft_token_ids",      # [T] int64, the batch's drafts packed
    "num_draft_tokens",     # list of B ints
    "max_spec_len",         # int: the batch's K
    "cu_num_draft_tokens",  # [B] int32, running ends, no leading 0
    "draft_probs",          # [T][V] float32, or None (a one-hot drafter)
    "target_probs",         # [T][V] float32, the draft positions' rows only
    "bonus_token_ids",      # [B][1] int64, the caller's bonus draws (bonus "harness")
    "sampling_metadata",    # .temperature, .all_greedy, .all_random, .top_k, .top_p,
                            # .generators {b: torch.Generator} of the seeded requests
))

FlashInferCall = namedtuple("FlashInferCall", (
    "seqs",             # [n] int64: the batch's sequences this call is for
    "draft_probs",      # [n][k][V] float32
    "draft_token_ids",  # [n][k] int32
    "target_probs",     # [n][k+1][V] float32
    "generator",        # a seeded sequence's own torch.Generator, or None
))


def _require(batch, what, layout):
    if batch.tensors != "torch":
        raise ValueError("%s needs torch tensors: declare the sampler with "
                         "tensors=\"torch\"" % what)
    if batch.layout != layout:
        raise ValueError("%s needs the %s layout: declare the sampler with "
                         "layouts=(\"%s\",)" % (what, layout, layout))


def vllm(batch, probs_from_logits=None, bonus_sampler=None):
    """vLLM v1's ``rejection_sample`` arguments for a packed torch batch. In a
    logits mode the target's (and draft's) probabilities come from
    ``probs_from_logits(logits, temperatures, top_ks, top_ps)``, per row, as
    vLLM's caller makes them before the call. The bonus tokens are the
    harness's (bonus "harness"), or, given ``bonus_sampler(bonus_probs [B][V],
    sampling_metadata) -> [B]`` (the engine's own, bonus "sampler"), its
    draws from each request's bonus row, made first with the requests'
    generators as vLLM's caller does."""
    import torch

    _require(batch, "vllm_view()", "packed")
    if batch.bonus_tokens is None and bonus_sampler is None:
        raise ValueError("vllm_view() needs the caller's bonus tokens: declare the sampler "
                         "with bonus=\"harness\", or give the engine's bonus_sampler")
    B = batch.B
    dev = batch.num_drafts.device
    d = batch.num_drafts.to(torch.int64)
    cu = batch.cu_num_drafts.to(torch.int64)
    # the target's rows at draft positions: request b's rows cu[b]+b .. cu[b]+b+d_b-1
    own = torch.repeat_interleave(torch.arange(B, device=dev), d)
    rows = torch.arange(int(cu[-1]), device=dev) + own
    logits_mode = batch.target is None
    if logits_mode and probs_from_logits is None:
        raise ValueError("vllm_view() of a logits batch needs probs_from_logits")
    if not logits_mode:
        target = batch.target[rows]
    else:
        target = probs_from_logits(batch.target_logits[rows], batch.temperatures[own],
                                   batch.top_ks[own], batch.top_ps[own])
    draft = batch.draft
    if draft is None and batch.draft_logits is not None:
        draft = probs_from_logits(batch.draft_logits, batch.temperatures[own],
                                  batch.top_ks[own], batch.top_ps[own])
    temperature = (batch.temperatures.to(torch.float32)
                   if batch.temperatures is not None else None)
    greedy = (temperature == 0 if temperature is not None
              else torch.zeros(B, dtype=torch.bool, device=dev))
    metadata = SimpleNamespace(
        temperature=temperature, all_greedy=bool(greedy.all()),
        all_random=not bool(greedy.any()), top_k=batch.top_ks,
        top_p=batch.top_ps.to(torch.float32) if batch.top_ps is not None else None,
        generators=batch.generators())
    if bonus_sampler is None:
        bonus = batch.bonus_tokens.to(torch.int64)[:, None]
    else:  # request b's bonus row is its last, at cu[b+1] + b
        last = cu[1:] + torch.arange(B, device=dev)
        probs = (batch.target[last] if not logits_mode else
                 probs_from_logits(batch.target_logits[last], batch.temperatures,
                                   batch.top_ks, batch.top_ps))
        bonus = torch.as_tensor(bonus_sampler(probs, metadata)).to(torch.int64).reshape(B, 1)
    return VllmArgs(batch.draft_tokens.to(torch.int64), d.tolist(), batch.K,
                    cu[1:].to(torch.int32), draft, target, bonus, metadata)


def flashinfer(batch):
    """FlashInfer's ``chain_speculative_sampling`` calls for a padded torch
    batch of probabilities: one call per number of drafts for the unseeded
    sequences, and one per seeded sequence with its own generator (a seeded
    request's tokens must not depend on its neighbours). A one-hot
    drafter's rows are made dense."""
    import torch

    _require(batch, "flashinfer_view()", "padded")
    if batch.target is None:
        raise ValueError("flashinfer_view() needs probabilities: declare the sampler with "
                         "inputs=(\"probs\",)")
    dev = batch.target.device
    d = batch.num_drafts
    drafts = batch.draft_token_matrix()
    draft_rows = batch.padded_draft()
    seeded = batch.seeded
    calls = []
    for k in torch.unique(d).tolist():
        same = d == k
        groups = [torch.nonzero(same & ~seeded).flatten()]
        groups += [torch.tensor([b], device=dev) for b in
                   torch.nonzero(same & seeded).flatten().tolist()]
        for seqs in groups:
            if seqs.numel() == 0:
                continue
            g = batch.generator(int(seqs[0]), dev.type) if bool(seeded[seqs[0]]) else None
            calls.append(FlashInferCall(seqs, draft_rows[seqs, :k].contiguous(),
                                        drafts[seqs, :k].contiguous(),
                                        batch.target[seqs, :k + 1].contiguous(), g))
    return calls


def tree_links(parents, nodes):
    """(retrive_next_token, retrive_next_sibling) [B][nodes] int64 from a
    [B][K] parents matrix (node k+1's parent at k, -1 past a tree's nodes)."""
    import torch

    B, K = parents.shape
    dev = parents.device
    first = torch.full((B, nodes), -1, dtype=torch.int64, device=dev)
    sibling = torch.full((B, nodes), -1, dtype=torch.int64, device=dev)
    last = torch.full((B, nodes), -1, dtype=torch.int64, device=dev)  # each node's last child
    rows = torch.arange(B, device=dev)
    for k in range(K):
        u = parents[:, k].to(torch.int64)
        live = u >= 0
        b, u = rows[live], u[live]
        prev = last[b, u]
        opens = prev < 0
        first[b[opens], u[opens]] = k + 1
        sibling[b[~opens], prev[~opens]] = k + 1
        last[b, u] = k + 1
    return first, sibling


def sglang(batch):
    """The kernel's inputs for this batch: a dict by SGLang's argument names
    (the outputs allocated, draft_probs zeros)."""
    import torch

    B, K, V = batch.B, batch.K, batch.V
    N = K + 1
    dev = batch.target.device
    drafts = batch.draft_token_matrix().to(torch.int64)
    candidates = torch.zeros((B, N), dtype=torch.int64, device=dev)
    candidates[:, 1:] = drafts.clamp(min=0)
    next_token, next_sibling = tree_links(batch.parent_matrix(), N)
    # torch.rand's float32 grid, 0 included: SGLang's coins (exactly float32)
    coins = torch.stack([torch.from_numpy(batch.uniforms(i, PURPOSE_ACCEPT, like=TORCH_F32))
                         for i in range(N)], dim=1).to(torch.float32).to(dev)
    final = torch.from_numpy(batch.uniforms(0, PURPOSE_FINAL, like=TORCH_F32)) \
        .to(torch.float32).to(dev)
    target = batch.padded_target().contiguous()  # rows past a tree's nodes (NaN) are not read
    return dict(
        predicts=torch.full((B * N,), -1, dtype=torch.int32, device=dev),
        accept_index=torch.full((B, N), -1, dtype=torch.int32, device=dev),
        accept_token_num=torch.zeros((B,), dtype=torch.int32, device=dev),
        candidates=candidates,
        retrive_index=torch.arange(B * N, dtype=torch.int64, device=dev).view(B, N),
        retrive_next_token=next_token, retrive_next_sibling=next_sibling,
        uniform_samples=coins, uniform_samples_for_final_sampling=final,
        target_probs=target,
        draft_probs=torch.zeros((B, N, V), dtype=torch.float32, device=dev))
