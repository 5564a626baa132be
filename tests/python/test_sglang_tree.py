"""A tree sampler from Python (rule "tree_target_only") through the SGLang
adapter: the torch SGLang-style kernel of sglang_tree.py passes the smoke
suite on the default 3x2x1 tree with distinct siblings (SGLang's drafter
takes a node's top-k, distinct tokens), and the same kernel with the
sibling accumulator kept across an acceptance fails it.

Seed 1, family-wise false-alarm rate 1e-6 (so the pass fails by chance at
most once in 10^6 runs). Why the bug is caught: after accepting a depth-1
child with coin c < m (m the mass summed over the siblings up to it), the
first depth-2 child is tested against m + p(x) instead of p(x); on
smoke's identical:V=100,K=2 (p = q) the children are drawn where p is
large, so the first child at depth 2 is accepted with probability well
above p(x): depth 2 is reached 18132 times against 8112 expected, the
depth-2 tokens move from p_2 by a TV of 0.058 (threshold 0.031 at smoke's
10^5 draws), and the depth law given each step's tree fails by a Wald
chi-square of 16727 on 2 df. The whole smoke suite fails all 6 cases
(greedy and markov by the contract: a zero-mass child accepted, since the
kept sum passes the coin whatever the child's own mass)."""

import pytest

torch = pytest.importorskip("torch")

import specverify  # noqa: E402
from specverify.adapters.sglang import contract_outputs, tree_links  # noqa: E402
from sglang_tree import sglang_tree, sglang_tree_acc_not_reset  # noqa: E402


def test_tree_links_follow_the_parents():
    # the worked example of sv_sampler.h: parents {0, 0, 1, 1, 2}; a second
    # sequence of 2 nodes (a chain), -1 past them
    parents = torch.tensor([[0, 0, 1, 1, 2], [0, 1, -1, -1, -1]], dtype=torch.int32)
    first, sibling = tree_links(parents, 6)
    assert first.tolist() == [[1, 3, 5, -1, -1, -1], [1, 2, -1, -1, -1, -1]]
    assert sibling.tolist() == [[-1, 2, -1, 4, -1, -1], [-1, -1, -1, -1, -1, -1]]


def test_outputs_map_back_to_the_contract():
    # sequence 0 accepted node 1 then 4 (rows 1 and 4), emitted 7, 9, then 42;
    # sequence 1 accepted nothing and emitted 5 at its root's row (6)
    N, K = 6, 5
    predicts = torch.full((2 * N,), -1, dtype=torch.int32)
    predicts[0], predicts[1], predicts[4], predicts[6] = 7, 9, 42, 5
    args = dict(predicts=predicts,
                accept_index=torch.tensor([[0, 1, 4, -1, -1, -1], [6, -1, -1, -1, -1, -1]],
                                          dtype=torch.int32),
                accept_token_num=torch.tensor([2, 0], dtype=torch.int32))
    tokens, n, path = contract_outputs(args, K)
    assert tokens.tolist() == [[7, 9, 42, -1, -1, -1], [5, -1, -1, -1, -1, -1]]
    assert n.tolist() == [2, 0]
    assert path.tolist() == [[1, 4, -1, -1, -1, -1], [-1, -1, -1, -1, -1, -1]]


def test_sglang_style_tree_sampler_passes_smoke():
    r = specverify.verify(sglang_tree, suite="smoke", siblings="distinct", echo=False)
    r.assert_passed()
    assert r.rule == "tree_target_only"
    assert r.json.get("tree") == "3x2x1 distinct"


def test_accumulator_not_reset_over_siblings_is_caught():
    # smoke's first case at smoke's draws (10^5): seed 1 gives a depth-2 TV
    # of 0.058 against a threshold of 0.031, and a depth law 1.5 x 10^4 in
    # Wald chi-square on 2 df (its 1e-6 level is about 28)
    r = specverify.verify(sglang_tree_acc_not_reset, cases=["identical:V=100,K=2"],
                          draws=100_000, siblings="distinct", echo=False, rerun=False)
    assert not r.passed
    words = r.explanation()
    assert "position 2" in words, words
    assert "accepted depth given each step's tree" in words, words


def test_tree_rule_refuses_what_cannot_apply(tmp_path):
    bad = tmp_path / "bad_tree.py"
    bad.write_text(
        "import specverify\n"
        "@specverify.sampler(rule='tree', inputs=('probs', 'logits-f32'))\n"
        "def logits_tree(batch):\n    pass\n"
        "@specverify.sampler(rule='tree_target_only', bonus='harness')\n"
        "def harness_bonus_tree(batch):\n    pass\n")
    with pytest.raises(specverify.SpecverifyError) as e:
        specverify.verify("%s:logits_tree" % bad, suite="smoke", echo=False)
    assert e.value.exit_code == 2
    assert "rule 'tree' takes probabilities only" in str(e.value)
    with pytest.raises(specverify.SpecverifyError) as e:
        specverify.verify("%s:harness_bonus_tree" % bad, suite="smoke", echo=False)
    assert e.value.exit_code == 2
    assert "rule 'tree_target_only' needs bonus='sampler'" in str(e.value)
