"""The engines' argument layouts (issue 38): ``batch.vllm_view()`` and
``batch.flashinfer_view()`` on a hand-made batch whose every row is known,
so each index the views compute is checked against the contract's layout
(docs/contract.md: sequence b's d_b + 1 target rows at cu[b] + b in the
packed layout). The adapters call these views; test_vllm_style and
test_flashinfer_style verify them end to end."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from specverify import Batch
from specverify._batch import Arrays

D = [2, 0, 3]   # drafts per sequence
V = 5


def make(layout, seeded=(False, True, False)):
    """Three sequences; target row r of the packed layout is filled with r,
    draft row r with 100 + r, draft token r is r % V (all in the rows, so
    the views can be traced)."""
    a = Arrays()
    B, K = len(D), max(D)
    a.B, a.K, a.V, a.layout, a.input = B, K, V, layout, "probs"
    a.num_drafts = np.array(D, dtype=np.int32)
    a.cu_num_drafts = np.concatenate([[0], np.cumsum(D)]).astype(np.int32)
    T = int(a.cu_num_drafts[-1])
    target = np.repeat(np.arange(T + B, dtype=np.float32)[:, None], V, axis=1)
    draft = np.repeat(100 + np.arange(T, dtype=np.float32)[:, None], V, axis=1)
    tokens = (np.arange(T) % V).astype(np.int32)
    if layout == "packed":
        a.target, a.draft, a.draft_tokens = target, draft, tokens
    else:
        a.target = np.full((B, K + 1, V), np.nan, dtype=np.float32)
        a.draft = np.full((B, K, V), np.nan, dtype=np.float32)
        a.draft_tokens = np.full((B, K), -1, dtype=np.int32)
        for b, d in enumerate(D):
            c = int(a.cu_num_drafts[b])
            a.target[b, :d + 1] = target[c + b:c + b + d + 1]
            a.draft[b, :d] = draft[c:c + d]
            a.draft_tokens[b, :d] = tokens[c:c + d]
    a.target_logits = a.draft_logits = None
    a.seeds = np.array([11, 12, 13], dtype=np.uint64)
    a.indices = np.array([0, 1, 2], dtype=np.uint64)
    a.seeded = np.array(seeded, dtype=bool)
    a.temperatures = a.top_ks = a.top_ps = None
    a.parents = a.siblings = None   # a chain batch
    a.draft_uniforms = None          # the harness's drafts
    a.bonus_tokens = np.array([4, 3, 2], dtype=np.int32)
    return Batch(a, tensors="torch")


def test_vllm_view_holds_vllm_s_arguments():
    v = make("packed").vllm_view()
    assert v.num_draft_tokens == D and v.max_spec_len == 3
    assert v.cu_num_draft_tokens.tolist() == [2, 2, 5]            # ends, no leading 0
    assert v.cu_num_draft_tokens.dtype == torch.int32
    # the draft positions' target rows only: packed rows 0 1 | 4 5 6; the bonus rows 2, 3, 7 out
    assert v.target_probs[:, 0].tolist() == [0, 1, 4, 5, 6]
    assert v.draft_probs[:, 0].tolist() == [100, 101, 102, 103, 104]
    assert v.draft_token_ids.tolist() == [0, 1, 2, 3, 4] and v.draft_token_ids.dtype == torch.int64
    assert v.bonus_token_ids.tolist() == [[4], [3], [2]]
    m = v.sampling_metadata
    assert m.temperature is None and m.all_random and not m.all_greedy
    assert list(m.generators) == [1]                               # the seeded request's own


def test_vllm_view_refuses_a_layout_it_cannot_give():
    with pytest.raises(ValueError, match=r"packed layout: declare .*layouts=\(\"packed\",\)"):
        make("padded").vllm_view()


def test_flashinfer_view_one_call_per_k_and_per_seeded_sequence():
    calls = make("padded", seeded=(False, False, True)).flashinfer_view()
    by = {tuple(c.seqs.tolist()): c for c in calls}
    assert sorted(by) == [(0,), (1,), (2,)]
    assert by[(0,)].generator is None and by[(2,)].generator is not None
    c = by[(2,)]                                                   # 3 drafts, seeded
    assert c.draft_probs.shape == (1, 3, V) and c.target_probs.shape == (1, 4, V)
    assert c.target_probs[0, :, 0].tolist() == [4, 5, 6, 7]   # rows cu[2] + 2 = 4 ..
    assert c.draft_probs[0, :, 0].tolist() == [102, 103, 104]
    assert c.draft_token_ids.tolist() == [[2, 3, 4]]
    assert by[(1,)].draft_probs.shape == (1, 0, V)                 # no drafts: the bonus only
    assert by[(1,)].target_probs[0, :, 0].tolist() == [3]   # its bonus row, cu[1] + 1


def test_flashinfer_view_groups_unseeded_sequences_of_one_k():
    global D
    saved, D = D, [2, 2, 2]
    try:
        calls = make("padded", seeded=(False, False, False)).flashinfer_view()
    finally:
        D = saved
    assert len(calls) == 1 and calls[0].seqs.tolist() == [0, 1, 2]
    assert calls[0].generator is None


def test_flashinfer_view_refuses_the_packed_layout():
    with pytest.raises(ValueError, match="padded layout"):
        make("packed").flashinfer_view()
