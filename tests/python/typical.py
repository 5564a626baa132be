"""Medusa's typical acceptance in plain numpy (sv_sampler.h,
SV_RULE_TYPICAL): draft k is kept while p_k(x_k) > min(eps, delta
exp(-H(p_k))); the first rejected position emits a draw from p_k with the
harness's uniform of that position, so it draws what ref_typical draws.
Lossy on purpose: tests/python/test_typical.py measures it."""

import numpy as np

import specverify
from specverify.random import PURPOSE_FINAL
from numpy_chain import _draw, _rows, chain_start, drafted_positions


@specverify.sampler(layouts=("padded", "packed"), max_batch=2048, rule="typical")
def typical(batch, eps=0.09, delta=0.3):
    """numpy: Medusa's typical acceptance (lossy on purpose)"""
    K, d, x, out, alive, everyone = chain_start(batch)
    n = np.zeros(batch.B, dtype=np.int64)
    for k, seqs in drafted_positions(K, d, alive, everyone):
        rows = _rows(batch, "target", seqs, k).astype(np.float64)
        rows /= rows.sum(axis=1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            h = -np.where(rows > 0, rows * np.log(rows), 0.0).sum(axis=1)
        threshold = np.minimum(eps, delta * np.exp(-h))
        kept = rows[np.arange(seqs.size), x[seqs, k]] > threshold
        out[seqs[kept], k] = x[seqs[kept], k]
        n[seqs[kept]] += 1
        alive[seqs[~kept]] = False
    for m in np.unique(n):  # the token at position n: a draw from p_n
        seqs = everyone[n == m]
        out[seqs, m] = _draw(_rows(batch, "target", seqs, m),
                             batch.uniforms(int(m), PURPOSE_FINAL)[seqs])
    return out
