"""rule="tree" from Python: the numpy recursive-rejection sampler of
numpy_tree.py (given draft rows, parents and the sibling law) passes the
smoke suite on the default 3x2x1 tree with iid siblings, and a case with
distinct siblings; its twin that returns an empty path is a contract FAIL
naming the path slot. Seed 1, family-wise false-alarm rate 1e-6."""

import specverify
from numpy_tree import numpy_tree, numpy_tree_no_path


def test_numpy_tree_passes_smoke_and_distinct_siblings():
    r = specverify.verify(numpy_tree, suite="smoke", echo=False)
    r.assert_passed()
    assert r.rule == "tree"
    assert r.json.get("tree") == "3x2x1 iid"
    specverify.verify(numpy_tree, cases=["zipf:V=200,K=4"], draws=50_000,
                      siblings="distinct", echo=False).assert_passed()


def test_an_empty_path_is_a_contract_failure():
    r = specverify.verify(numpy_tree_no_path, cases=["zipf:V=200,K=4"], draws=10_000,
                          echo=False, rerun=False)
    assert not r.passed
    assert "out_path slot 0 holds node -1, which is not a child of node 0" in r.text
