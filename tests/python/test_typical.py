"""A lossy rule from Python: Medusa's typical acceptance in numpy, declared
rule="typical", measured with verify(..., measure=True). It draws what the
C ref_typical draws (the same rule, the harness's uniforms), so the two
measured distances are the same numbers; judged as lossless it fails."""

import specverify
from typical import typical


def test_typical_is_measured_not_judged():
    r = specverify.verify(typical, suite="smoke", measure=True, echo=False)
    assert r.measured and r.passed and r.rule == "typical"
    ref = specverify.verify("ref_typical", suite="smoke", measure=True, echo=False)
    for mine, theirs in zip(r.cases, ref.cases):
        for a, b in zip(mine.positions, theirs.positions):
            assert a.N == b.N and a.distance == b.distance
    seedlab = r.cases[0].positions[0].distance
    assert seedlab["tv_lo"] > 0.0  # lossy, and the interval says so


def test_typical_judged_as_lossless_fails():
    r = specverify.verify(typical, suite="smoke", echo=False)
    assert not r.passed and "TV distance" in r.explanation()
