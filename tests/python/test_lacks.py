"""@specverify.sampler(lacks=...): a Python sampler that does not implement
per-request seeds or top-k/top-p fails for that alone unless it says so;
saying so, what it cannot take is left out and named in the report, the
rest passes, nothing left is refused (exit 2), and a defect still FAILs. A
bonus drawn by the harness is said in the report's bonus line
(tests/python/lacks_samplers.py)."""

import os
import sys

import pytest

import specverify

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lacks_samplers import (bad_lacks, harness_bonus, own_rng, own_rng_lacks,  # noqa: E402
                            own_rng_q_ignored, temp_only, temp_only_lacks)

# own_rng's uniforms come from one generator of the sampler's process, out
# of the harness's seed's reach: on two threads the order in which batches
# reached it, and so every verdict, changed from run to run, and a sound
# sampler came out SUSPECT in a few runs in a hundred (six cases of some 15
# p-values each, SUSPECT below 1e-3, no re-run). Each run's sampler process
# starts the generator from its seed, and on one thread the batches come in
# a fixed order: each run is the same run.
SMOKE = dict(suite="smoke", draws=100_000, threads=1, rerun=False, echo=False)
TOP_P = "logits:V=1000,K=3,T=1.5,topp=0.9"
LOGITS = dict(cases=["logits:V=1000,K=5,T=0.7", TOP_P], input="logits-f32", draws=100_000,
              threads=2, rerun=False, echo=False)


def test_seeds_undeclared_fail_batch_composition():
    r = specverify.verify(own_rng, **SMOKE)
    assert not r.passed
    assert "batch composition: seeded sequence" in r.text


def test_seeds_declared_leave_out_seeded_requests_and_probes():
    r = specverify.verify(own_rng_lacks, **SMOKE)
    r.assert_passed()
    assert r.json["seeding"] == "none" and r.json["lacks"] == ["seeds"]
    assert "batch composition and seed sensitivity" in r.json["checks_not_taken"]
    assert "checks not taken: seeded requests" in r.text
    assert all("batch_composition" not in c["runs"][0] for c in r.json["cases"])


def test_seeds_declared_refuse_seeding_all():
    with pytest.raises(specverify.SpecverifyError) as e:
        specverify.verify(own_rng_lacks, seeding="all", **SMOKE)
    assert e.value.exit_code == 2 and "lacks per-request seeds" in str(e.value)


def test_declaration_hides_no_defect():
    r = specverify.verify(own_rng_q_ignored, **SMOKE)
    assert not r.passed and r.json["lacks"] == ["seeds"]


def test_top_k_p_undeclared_fail_support():
    r = specverify.verify(temp_only, **LOGITS)
    assert not r.passed
    assert "whose target probability is 0" in r.text and TOP_P + ": request" in r.text


def test_top_k_p_declared_leave_out_the_case():
    r = specverify.verify(temp_only_lacks, **LOGITS)
    r.assert_passed()
    assert [c["name"] for c in r.json["cases"]] == ["logits:V=1000,K=5,T=0.7"]
    assert TOP_P in r.json["checks_not_taken"] and r.json["lacks"] == ["top_k_p"]


def test_top_k_p_declared_nothing_left_is_refused():
    with pytest.raises(specverify.SpecverifyError) as e:
        specverify.verify(temp_only_lacks, cases=[TOP_P], input="logits-f32", echo=False)
    assert e.value.exit_code == 2 and "nothing is left to verify" in str(e.value)


def test_lacks_must_be_known_names():
    with pytest.raises(specverify.SpecverifyError) as e:
        specverify.verify(bad_lacks, suite="smoke", echo=False)
    assert e.value.exit_code == 2 and "lack 'top_k' is not one of top_k_p, seeds" in str(e.value)


def test_bonus_line_names_who_draws_it():
    r = specverify.verify(harness_bonus, cases=["zipf:V=1000,K=4,s=1.1"], draws=50_000,
                          echo=False)
    r.assert_passed()
    assert r.json["bonus"] == "harness" and r.json["lacks"] == ["bonus"]
    assert "bonus: drawn by the harness from each bonus row" in r.text
    assert "vLLM's float32 exponential race" in r.text
    own = specverify.verify(own_rng_lacks, cases=["zipf:V=1000,K=4,s=1.1"], draws=50_000,
                            echo=False)
    assert own.json["bonus"] == "sampler"
    assert "bonus: drawn by the sampler itself" in own.text
