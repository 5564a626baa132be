"""An exact-match sampler in Python: declared with rule="exact_match", given
no draft rows, judged by the exact-match law (acceptance p_k(x_k), tokens
distributed as the target). Family-wise false-alarm rate 1e-6, seed 1. The
broken one (one uniform for all positions) fails smoke: its position-2 law
is a slice of p_2 (TV 0.29 on identical:V=100,K=2, far above the 0.1 that
smoke's N detects with probability 1 - 1e-8)."""

import specverify
from exact_match import exact_match, exact_match_one_sample


def test_exact_match_passes_smoke_and_ci():
    r = specverify.verify(exact_match, suite="smoke", echo=False)
    r.assert_passed()
    assert r.rule == "exact_match"
    assert all(not c.raw["draft_probs_given"] for c in r.cases)
    # a hundredth of ci's draws, as test_numpy.py says why
    specverify.verify(exact_match, suite="ci", draws_scale=0.01, echo=False).assert_passed()


def test_one_sample_for_all_positions_is_caught():
    r = specverify.verify(exact_match_one_sample, suite="smoke", echo=False)
    assert not r.passed
    assert "position 2" in r.explanation() or "position 3" in r.explanation()
