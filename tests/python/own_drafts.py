"""Python samplers that draw their own drafts (drafts="own", contract v8):
each draws draft k of every sequence from its draft row with the harness's
draft uniform, then runs numpy_chain's chain rule over the drafts it drew.
own_drafts_chain is correct (inverse CDF of q, as ref_own_drafts in C);
the planted bugs are the drafting classes FIELD.md lists: drafts from a
bfloat16 softmax while the ratio keeps float32 q (DeepSpec issue 31),
argmax drafts verified as if sampled, and (logits input) a drafter that
ignores the request's temperature. tests/python/test_own_drafts.py runs
them."""

import numpy as np

import specverify
from numpy_chain import _rows, chain_over


def _uniforms(batch, seqs, k):
    """[len(seqs)] float64: the draft uniform of draft k of each sequence."""
    u = batch.draft_uniforms
    if batch.layout == "padded":
        return u[seqs, k]
    return u[batch.cu_num_drafts[seqs] + k]


def _inverse_cdf(weights, u):
    """One token per row: the first whose running sum (in double) reaches u
    times the row's total; a token of weight 0 is never drawn."""
    cdf = np.cumsum(weights, axis=1, dtype=np.float64)
    goal = u * cdf[:, -1]
    if weights.shape[1] <= 64:  # small rows: one comparison, vectorised
        return (cdf < goal[:, None]).sum(axis=1)
    return np.fromiter((np.searchsorted(cdf[i], goal[i]) for i in range(goal.size)),
                       dtype=np.int64, count=goal.size)


def _bfloat16(rows):
    """float32 rows rounded to bfloat16 (to nearest, ties to even), as
    float32: what a bf16 softmax hands the drafter."""
    bits = np.ascontiguousarray(rows, dtype=np.float32).view(np.uint32)
    rounded = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1)))
    return (rounded & np.uint32(0xFFFF0000)).view(np.float32)


def _argmax(rows, u):
    return rows.argmax(axis=1)


def _drafted(batch, draw):
    """[B][K] int64 drafts, -1 past each sequence's d_b: draft k drawn from
    draft row k by draw(rows, u). A batch without draft uniforms (bench,
    sweep) carries the harness's drafts: those are the drafts."""
    if batch.draft_uniforms is None:
        return batch.draft_token_matrix().astype(np.int64)
    d = batch.num_drafts.astype(np.int64)
    x = np.full((batch.B, batch.K), -1, dtype=np.int64)
    for k in range(batch.K):
        seqs = np.flatnonzero(k < d)
        if seqs.size:
            x[seqs, k] = draw(_rows(batch, "draft", seqs, k), _uniforms(batch, seqs, k))
    return x


def _own(batch, draw):
    """The chain rule over the drafts draw makes: (tokens, accepted, drafts)."""
    x = _drafted(batch, draw)
    return chain_over(batch, x), None, x


@specverify.sampler(name="own_drafts_chain", drafts="own", layouts=("padded", "packed"),
                    max_batch=4096)
def own_drafts_chain(batch):
    """numpy: draws its drafts by inverse CDF of q at the draft uniforms, then the chain rule"""
    return _own(batch, _inverse_cdf)


@specverify.sampler(name="own_drafts_bf16", drafts="own", layouts=("padded", "packed"),
                    max_batch=4096)
def own_drafts_bf16(batch):
    """numpy, planted bug: drafts from q rounded to bfloat16, the ratio with float32 q"""
    return _own(batch, lambda rows, u: _inverse_cdf(_bfloat16(rows), u))


@specverify.sampler(name="own_drafts_argmax", drafts="own")
def own_drafts_argmax(batch):
    """numpy, planted bug: argmax drafts verified as if sampled from q"""
    return _own(batch, _argmax)


class _Rows:
    """The batch, its rows the probabilities made from its logits (the
    contract's rules, adapters/_rules.py): what numpy_chain's rule reads."""

    def __init__(self, batch, target, draft):
        self._batch, self.target, self.draft = batch, target, draft

    def __getattr__(self, name):
        return getattr(self._batch, name)


def _probs(logits, temperatures, top_ks, top_ps, per):
    """[B][per][V] float32 probabilities of padded logits, sequence b's rows
    by its temperature, top-k and top-p."""
    import torch

    from specverify.adapters._rules import target_probs_from_logits
    B, V = logits.shape[0], logits.shape[2]
    rep = (lambda a: torch.from_numpy(np.repeat(a, per)))
    rows = torch.from_numpy(np.ascontiguousarray(logits[:, :per]).reshape(B * per, V))
    return target_probs_from_logits(rows, rep(temperatures), rep(top_ks),
                                    rep(top_ps)).numpy().reshape(B, per, V)


def _from_logits(batch, draft_temperatures):
    """The chain rule over drafts drawn from q made at draft_temperatures
    (the request's, or not), the ratio with the request's q."""
    K = batch.K
    logits = np.nan_to_num(batch.target_logits)  # rows past d_b are NaN: unread
    p = _probs(logits, batch.temperatures, batch.top_ks, batch.top_ps, K + 1)
    q = _probs(np.nan_to_num(batch.draft_logits), batch.temperatures, batch.top_ks,
               batch.top_ps, K)
    drawn_from = (q if draft_temperatures is batch.temperatures else
                  _probs(np.nan_to_num(batch.draft_logits), draft_temperatures, batch.top_ks,
                         batch.top_ps, K))
    rows = _Rows(batch, p, q)
    x = _drafted(_Rows(batch, p, drawn_from), _inverse_cdf)
    return chain_over(rows, x), None, x


@specverify.sampler(name="own_drafts_logits", drafts="own", inputs=("logits-f32",))
def own_drafts_logits(batch):
    """numpy: logits input; drafts from q at the request's temperature, then the chain rule"""
    return _from_logits(batch, batch.temperatures)


@specverify.sampler(name="own_drafts_temperature_ignored", drafts="own", inputs=("logits-f32",))
def own_drafts_temperature_ignored(batch):
    """numpy, planted bug: the drafter samples q at temperature 1, whatever the request's"""
    return _from_logits(batch, np.ones_like(batch.temperatures))


@specverify.sampler(name="own_drafts_wrong_shape", drafts="own")
def own_drafts_wrong_shape(batch):
    """returns its drafts as [B][K+1]: the glue's error, not a crash"""
    x = _drafted(batch, _inverse_cdf)
    wide = np.full((batch.B, batch.K + 1), -1, dtype=np.int64)
    wide[:, :batch.K] = x
    return chain_over(batch, x), None, wide
