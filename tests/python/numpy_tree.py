"""A numpy tree sampler (rule "tree": recursive rejection, SpecInfer's
multi-step speculative sampling; with distinct siblings Jeon et al.'s),
vectorised over the batch, and a twin that reports no path.

One pass over the nodes in order walks every sequence's tree: a node comes
after its parent and siblings in drafting order, so when node k+1 is
reached its parent is already settled. Node k+1 is tested only by the
sequences standing at its parent and still searching there: accepted with
probability min(1, r(x) / s(x)) (r the residual at the parent, s its draft
row, for distinct siblings without the siblings already rejected); on a
rejection r = norm(max(r - s, 0)). After the pass each sequence emits a
draw from r at the node it stands on (a leaf's r is its bonus row).
Randomness: node c's test at (c, PURPOSE_ACCEPT), the last draw at
(0, PURPOSE_FINAL)."""

import numpy as np

import specverify
from specverify.random import PURPOSE_ACCEPT, PURPOSE_FINAL


def _norm(rows):
    total = rows.sum(axis=1, keepdims=True)
    return np.where(total > 0, rows / np.where(total > 0, total, 1), rows)


def _walk(batch):
    B, K, V = batch.B, batch.K, batch.V
    p = batch.padded_target().astype(np.float64)
    q = batch.padded_draft().astype(np.float64)
    parents, drafts = batch.parent_matrix(), batch.draft_token_matrix()
    rows = np.arange(B)
    cur = np.zeros(B, dtype=np.int64)
    r = p[:, 0].copy()
    removed = np.zeros((B, V), dtype=bool)  # siblings rejected at cur (distinct law)
    path = np.full((B, K + 1), -1, dtype=np.int64)
    tokens = np.full((B, K + 1), -1, dtype=np.int64)
    n = np.zeros(B, dtype=np.int64)
    for k in range(K):
        at = np.flatnonzero(parents[:, k] == cur)  # -1 past a tree never matches
        if at.size == 0:
            continue
        x = drafts[at, k]
        s = q[at, k]
        if batch.siblings == "distinct":
            s = _norm(np.where(removed[at], 0.0, s))
        ratio = r[at, x] / np.where(s[np.arange(at.size), x] > 0, s[np.arange(at.size), x], 1)
        take = batch.uniforms(k + 1, PURPOSE_ACCEPT)[at] < np.minimum(ratio, 1.0)
        yes, no = at[take], at[~take]
        tokens[yes, n[yes]] = x[take]
        path[yes, n[yes]] = k + 1
        n[yes] += 1
        cur[yes] = k + 1
        r[yes] = p[yes, k + 1]
        removed[yes] = False
        r[no] = _norm(np.maximum(r[no] - s[~take], 0.0))
        removed[no, x[~take]] = True
    run = np.cumsum(r, axis=1)
    u = batch.uniforms(0, PURPOSE_FINAL) * run[:, -1]
    top = V - 1 - np.argmax(r[:, ::-1] > 0, axis=1)  # rounding: the last token of mass
    last = np.minimum((run <= u[:, None]).sum(axis=1), top)
    tokens[rows, n] = last
    return tokens, n, path


@specverify.sampler(rule="tree", layouts=("padded", "packed"))
def numpy_tree(batch):
    """numpy recursive rejection over a tree of drafts"""
    return _walk(batch)


@specverify.sampler(rule="tree")
def numpy_tree_no_path(batch):
    """the same, its path left empty (BUG)"""
    tokens, n, path = _walk(batch)
    return tokens, n, np.full_like(path, -1)
