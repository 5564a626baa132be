"""Exact-match verification in plain numpy, as the engines that verify
without draft probabilities do it (sv_sampler.h, SV_RULE_EXACT_MATCH): at
each position a draw from the target row with the harness's uniform of that
position; the draft is kept while it equals the draw. The harness gives an
exact-match sampler no draft rows (batch.draft is None), so this one says so
if it ever gets them. exact_match_one_sample is the same with one uniform
for every position: the bug class of samplers/broken/
exact_match_shared_sample.c, which the suite must catch.
tests/python/test_exact_match.py verifies both."""

import numpy as np

import specverify
from specverify.random import PURPOSE_FINAL
from numpy_chain import _draw, _rows, chain_start


def _exact(batch, fresh):
    if batch.draft is not None:
        raise ValueError("an exact-match sampler was given draft rows")
    K, d, x, out, alive, everyone = chain_start(batch)
    for k in range(K + 1):
        seqs = everyone[alive & (k <= d)]
        if seqs.size == 0:
            break
        u = batch.uniforms(k + 1 if fresh else 1, PURPOSE_FINAL)[seqs]
        y = _draw(_rows(batch, "target", seqs, k), u)
        out[seqs, k] = y
        kept = np.zeros(seqs.size, dtype=bool)
        drafted = k < d[seqs]
        if k < K:
            kept[drafted] = y[drafted] == x[seqs[drafted], k]
        alive[seqs[~kept]] = False  # a mismatch, or the bonus: the step ends
    return out


@specverify.sampler(layouts=("padded", "packed"), max_batch=2048, rule="exact_match")
def exact_match(batch):
    """numpy: exact match, a fresh target draw per position"""
    return _exact(batch, fresh=True)


@specverify.sampler(layouts=("padded", "packed"), max_batch=2048, rule="exact_match")
def exact_match_one_sample(batch):
    """numpy, broken: exact match with one uniform for every position"""
    return _exact(batch, fresh=False)
