"""A rejection sampler in plain numpy, vectorised over the batch: the chain
rule of sv_sampler.h with the harness's own uniforms (batch.uniforms), so
every sequence is seeded by (seed, index) as ref is. Both layouts, probs
input. tests/python/test_numpy.py verifies it."""

import numpy as np

import specverify
from specverify.random import PURPOSE_ACCEPT, PURPOSE_FINAL


def _rows(batch, which, seqs, k):
    """[len(seqs)][V] float32: row k (one for all, or one each) of each
    sequence's target or draft (a copy: gathered)."""
    rows = batch.target if which == "target" else batch.draft
    if batch.layout == "padded":
        return rows[seqs, k]
    cu = batch.cu_num_drafts[seqs]
    first = cu + seqs if which == "target" else cu
    return rows[first + k]


def _at(batch, which, seqs, k, tokens):
    """[len(seqs)] float64: row k's value at each sequence's token."""
    rows = batch.target if which == "target" else batch.draft
    if batch.layout == "padded":
        return rows[seqs, k, tokens].astype(np.float64)
    cu = batch.cu_num_drafts[seqs]
    first = cu + seqs if which == "target" else cu
    return rows[first + k, tokens].astype(np.float64)


def _draw(weights, u):
    """One token per row from non-negative weights by inverse CDF (sums in
    double): the first token whose running sum reaches u times the total,
    never one of weight 0 (u is in (0, 1))."""
    cdf = np.cumsum(weights, axis=1, dtype=np.float64)
    goal = u * cdf[:, -1]
    return np.fromiter((np.searchsorted(cdf[i], goal[i]) for i in range(goal.size)),
                       dtype=np.int64, count=goal.size)


def chain_start(batch, x=None):
    """What each of these test samplers' position loops starts from: K, the
    drafts per sequence d, the draft matrix x [B][K] (the batch's, unless
    given), the outputs (all -1), the sequences still going, and every
    sequence's index."""
    B = batch.B
    x = batch.draft_token_matrix() if x is None else x
    return (batch.K, batch.num_drafts.astype(np.int64), x,
            np.full((B, batch.K + 1), -1, dtype=np.int32), np.ones(B, dtype=bool), np.arange(B))


def drafted_positions(K, d, alive, everyone):
    """Each draft position k with the sequences still going that drafted it
    (alive is read anew each step: the loop's body ends sequences)."""
    for k in range(K):
        seqs = everyone[alive & (k < d)]
        if seqs.size == 0:
            return
        yield k, seqs


@specverify.sampler(layouts=("padded", "packed"), max_batch=2048)
def numpy_chain(batch):
    """numpy: the chain rule, inverse-CDF residual, the harness's uniforms"""
    return chain_over(batch)


def chain_over(batch, drafts=None):
    """The chain rule over the batch's drafts, or over drafts [B][K] given."""
    K, d, x, out, alive, everyone = chain_start(batch, drafts)
    for k, seqs in drafted_positions(K, d, alive, everyone):
        xk = x[seqs, k]
        onehot = batch.draft is None
        px = _at(batch, "target", seqs, k, xk)
        qx = np.ones(seqs.size) if onehot else _at(batch, "draft", seqs, k, xk)
        u = batch.uniforms(k + 1, PURPOSE_ACCEPT)[seqs]
        ok = u * qx < px
        out[seqs[ok], k] = xk[ok]
        no = seqs[~ok]
        if no.size:  # the residual max(p - q, 0) of the rejected, whole rows
            w = _rows(batch, "target", no, k)
            if onehot:
                w[np.arange(no.size), xk[~ok]] = 0.0
            else:  # float32 p - q is 0 only where p = q: the support is exact
                w -= _rows(batch, "draft", no, k)
                np.maximum(w, 0.0, out=w)
            out[no, k] = _draw(w, batch.uniforms(k + 1, PURPOSE_FINAL)[no])
            alive[no] = False
    done = everyone[alive]  # every draft accepted: the bonus from row d_b
    if done.size:
        p = _rows(batch, "target", done, d[done])
        out[done, d[done]] = _draw(p, batch.uniforms(d + 1, PURPOSE_FINAL)[done])
    return out


class _Exported:
    """An array of another framework, seen only through DLPack (as CuPy's
    and JAX's are): the glue must take it as it takes numpy's. numpy's own
    __dlpack__ makes the capsule."""

    def __init__(self, array):
        self._a = array

    def __dlpack__(self, stream=None):
        return self._a.__dlpack__()

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


@specverify.sampler(layouts=("padded", "packed"), max_batch=2048, name="numpy_chain_dlpack")
def numpy_chain_dlpack(batch):
    """numpy_chain, its tokens handed back through DLPack"""
    return _Exported(numpy_chain(batch))
