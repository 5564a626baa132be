"""Chain samplers that draw as engines do, on the grids batch.uniforms(like=)
and batch.exponentials(like=) give (samplers/sv_engine_rng.h): the coin of
draft k is torch.rand's float32 (0 included), the token after the last
accepted draft is an exponential race argmin E_i / w_i over
w = max(p - q, 0) (or p for the bonus). Padded layout, probs input.

torch_coin_chain   accepts iff coin < p/q, races with exact exponentials:
                   correct (a coin of 0 never accepts p = 0).
torch_coin_le      accepts iff coin <= p/q: SGLang's 2026 zero-mass bug
                   (issue 35771): a coin of exactly 0, once in 2^24 tests,
                   accepts a draft with p = 0; accept_zero_target in C.
"""

import numpy as np

import specverify
from specverify.random import PURPOSE_ACCEPT, PURPOSE_FINAL
from numpy_chain import chain_start, drafted_positions


def _race(batch, position, seqs, w):
    """Each row's argmin E_i / w_i over w_i > 0, E_i the exact exponential at
    (position, FINAL, lane i): a draw from norm(w)."""
    e = batch.exponentials(position, PURPOSE_FINAL, lane=np.arange(batch.V)[:, None],
                           like=None).T[seqs]
    with np.errstate(divide="ignore"):
        t = np.where(w > 0, e / w, np.inf)
    return np.argmin(t, axis=1)


def _chain(batch, accept):
    K, d, x, out, alive, everyone = chain_start(batch)
    for k, seqs in drafted_positions(K, d, alive, everyone):
        xk = x[seqs, k]
        p, q = batch.target[seqs, k].astype(np.float64), batch.draft[seqs, k].astype(np.float64)
        coin = batch.uniforms(k, PURPOSE_ACCEPT, like="torch.float32")[seqs].astype(np.float64)
        ok = accept(coin, p[np.arange(seqs.size), xk], q[np.arange(seqs.size), xk])
        out[seqs[ok], k] = xk[ok]
        no = seqs[~ok]
        if no.size:
            out[no, k] = _race(batch, k, no, np.maximum(p[~ok] - q[~ok], 0.0))
            alive[no] = False
    done = everyone[alive]  # every draft accepted: the bonus from row d_b
    if done.size:
        p = batch.target[done, d[done]].astype(np.float64)
        out[done, d[done]] = _race(batch, K, done, p)  # position K: after every ACCEPT
    return out


@specverify.sampler(layouts=("padded",), max_batch=4096)
def torch_coin_chain(batch):
    """engine grids: torch.float32 coin, coin < p/q; exact exponential race"""
    return _chain(batch, lambda coin, px, qx: coin * qx < px)


@specverify.sampler(layouts=("padded",), max_batch=4096)
def torch_coin_le(batch):
    """broken: torch.float32 coin tested with coin <= p/q (a coin of 0 accepts p = 0)"""
    return _chain(batch, lambda coin, px, qx: coin * qx <= px)
