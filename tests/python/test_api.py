"""The package's other doors: power (closed form, no sampling), the
mutants' detection table, a built-in sampler by name, the Report's numbers,
and bad arguments as SpecverifyError with the CLI's words (exit 2)."""

import pytest

import specverify


def test_power_against_a_broken_variant():
    text = specverify.power("resample_from_p", suite="smoke")
    assert "power against resample_from_p" in text and "seedlab:V=100,K=3" in text


def test_mutants_table():
    t = specverify.mutants(suite="smoke", variants=["resample_from_p", "ratio_inverted"],
                           threads=2, echo=False)
    assert t.all_caught and t.result("resample_from_p") == "CAUGHT"
    assert t.result("ratio_inverted") == "CAUGHT"


def test_a_built_in_sampler_by_name_and_the_report():
    r = specverify.verify("ref", cases=["zipf:V=200,K=4"], draws=100_000, echo=False)
    assert r.passed and r.sampler == "ref" and r.verdict == "PASS"
    case = r.case("zipf:V=200,K=4")
    assert case.draws == 100_000 and len(case.positions) == 5
    first = case.positions[0]
    assert first.N == 100_000 and 0 < first.chi2_p <= 1 and first.tv < first.tv_threshold
    assert case.accepted_length["verdict"] == "PASS"
    bad = specverify.verify("direct", cases=["identical:V=100,K=2"], draws=20_000, echo=False)
    assert not bad.passed and "accepts no drafts" in bad.explanation()


def test_bad_arguments_are_the_cli_s_words():
    with pytest.raises(specverify.SpecverifyError) as e:
        specverify.verify("ref", suite="no_such_suite", echo=False)
    assert e.value.exit_code == 2 and "no_such_suite" in str(e.value)
