"""The package's other doors: power (closed form, no sampling), the
mutants' detection table, a built-in sampler by name, the Report's numbers,
measure=True on a lossless rule (its verdicts kept), and bad arguments as
SpecverifyError with the CLI's words (exit 2)."""

import json
import os

import pytest

import specverify
from specverify._cases import suite_entries


def test_power_against_a_broken_variant():
    text = specverify.power("resample_from_p", suite="smoke")
    assert "power against resample_from_p" in text and "seedlab:V=100,K=3" in text
    # the same numbers as data: the run's power as the text prints it, and
    # each case's as the product of its positions' misses
    assert isinstance(text, specverify.PowerReport)
    said = float(text.split("P(the run catches resample_from_p) = ")[1].split()[0])
    assert text.power == pytest.approx(said, abs=5e-7)
    seedlab = [c for c in text.cases if c["name"] == "seedlab:V=100,K=3"][0]
    assert seedlab["known"] and len(seedlab["positions"]) == 4
    miss = 1.0
    for pos in seedlab["positions"]:
        miss *= 1.0 - pos["power"]
    assert seedlab["power"] == pytest.approx(1.0 - miss, rel=1e-9)
    run_miss = 1.0
    for c in text.cases:
        run_miss *= 1.0 - (c["power"] or 0.0)
    assert text.power == pytest.approx(1.0 - run_miss, rel=1e-9)


def test_mutants_table():
    t = specverify.mutants(suite="smoke", variants=["resample_from_p", "ratio_inverted"],
                           threads=2, echo=False)
    assert t.all_caught and t.result("resample_from_p") == "CAUGHT"
    assert t.result("ratio_inverted") == "CAUGHT"
    # the rows are the table's JSON, numbers not Markdown cells
    row = [r for r in t.rows if r["variant"] == "resample_from_p"][0]
    assert row["caught"] and row["draws"] > 0 and 0 < row["power"] <= 1
    fit = row["checks"]["fit"]
    assert fit["min_p"] is not None and fit["min_p"] < 1e-6 / 10


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


def test_measure_keeps_a_lossless_rule_s_verdicts(tmp_path):
    # issue 36: measure=True let every rule off; a broken chain sampler (its
    # residual from max(q - p, 0)) then passed assert_passed()
    r = specverify.verify("residual_swapped", cases=["zipf:V=200,K=4"], draws=100_000,
                          measure=True, threads=2, echo=False)
    assert r.exit_code == 1 and r.measured and r.judged and not r.passed
    assert r.case("zipf:V=200,K=4").positions[0].distance["tv"] > 0.2  # the distances too
    with pytest.raises(AssertionError, match="TV distance"):
        r.assert_passed()
    # the report alone (an exit status of 0 given, as from_file defaults) says so too
    path = tmp_path / "swapped.json"
    path.write_text(json.dumps(r.json))
    assert not specverify.Report.from_file(str(path)).passed
    # a lossy rule measured is not judged: it passes while its contract holds
    typical = specverify.verify("ref_typical", cases=["onehot:V=100,K=3"], draws=50_000,
                                measure=True, threads=2, echo=False)
    assert typical.exit_code == 0 and not typical.judged and typical.passed
    assert typical.case("onehot:V=100,K=3").verdict == "FAIL"  # as if lossless; not counted


def test_draws_scale_keeps_the_suite_s_weighting():
    """draws_scale=X: each case at X times its suite's draws, where draws=N
    alone would give every case N (with draws_scale, N is the cap). A mixed
    batch deals a vocabulary's cases their draws together: the group's total
    is exact, each case's share close."""
    want = {spec: round(d * 0.002) for spec, d in suite_entries("smoke")
            if not spec.startswith("markov")}
    r = specverify.verify("ref", suite="smoke", draws_scale=0.002, rerun=False, echo=False)
    got = {c.name: c.draws for c in r.cases if c.name in want}
    assert sum(got.values()) == sum(want.values()) > 0
    assert want["seedlab:V=100,K=3"] == 2 * want["identical:V=100,K=2"]
    assert 1.6 < got["seedlab:V=100,K=3"] / got["identical:V=100,K=2"] < 2.5
    # with draws=N too, N is the most a case gets
    capped = specverify.verify("ref", suite="smoke", draws_scale=0.002, draws=300, rerun=False,
                               echo=False)
    got = {c.name: c.draws for c in capped.cases if c.name in want}
    assert sum(got.values()) == sum(min(300, n) for n in want.values()) < sum(want.values())


def test_bad_arguments_are_the_cli_s_words():
    with pytest.raises(specverify.SpecverifyError) as e:
        specverify.verify("ref", suite="no_such_suite", echo=False)
    assert e.value.exit_code == 2 and "no_such_suite" in str(e.value)


def test_the_report_names_the_sandbox_and_strict_is_the_environments():
    """verify(sandbox=...) reaches --sandbox: the report's JSON names the
    layers; "off" says so; strict with a layer turned off is exit 3."""
    r = specverify.verify("ref", cases=["zipf:V=50,K=2"], draws=2000, echo=False)
    assert r.json["sandbox"].startswith("sandbox: nodump"), r.json["sandbox"]
    off = specverify.verify("ref", cases=["zipf:V=50,K=2"], draws=2000, echo=False,
                            sandbox="off")
    assert off.json["sandbox"].startswith("sandbox: off"), off.json["sandbox"]
    os.environ["SPECVERIFY_SANDBOX_DENY"] = "landlock"
    try:
        with pytest.raises(specverify.SpecverifyError) as e:
            specverify.verify("ref", cases=["zipf:V=50,K=2"], draws=2000, echo=False,
                              sandbox="strict")
    finally:
        del os.environ["SPECVERIFY_SANDBOX_DENY"]
    assert e.value.exit_code == 3 and "landlock" in str(e.value)
