"""The report as data (issue 37): each position's counts in the bins its
tests used, beside their expected counts, summing to the draws and giving
back the reported chi-square; findings naming the request as the
sampler saw it (its index in the batch and its seed), never the harness's
probe indices (2^62 and up)."""

import os
import re

import numpy as np

import specverify

BAD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bad_samplers.py")


def test_counts_sum_to_the_draws_and_give_the_chi_square():
    # zipf at V=1000 on 20,000 draws: rare tokens pooled into a tail bin
    r = specverify.verify("ref", cases=["zipf:V=1000,K=3"], draws=20_000, threads=2,
                          echo=False)
    assert r.passed
    positions = r.case("zipf:V=1000,K=3").positions
    assert len(positions) == 4
    for p in positions:
        assert p.counts.dtype == np.int64 and p.expected.dtype == np.float64
        assert len(p.tokens) == len(p.counts) == len(p.expected) == p.raw["bins"]
        assert p.counts.sum() + p.outside_support == p.N
        assert np.isclose(p.expected.sum(), p.N)  # every bin of positive p
        stat = ((p.counts - p.expected) ** 2 / p.expected).sum()
        assert np.isclose(stat, p.chi2, rtol=1e-9), (stat, p.chi2)
        assert p.raw["chi2"]["df"] == len(p.counts) - 1
    first = positions[0]
    assert first.tokens[-1] == -1 and np.all(first.tokens[:-1] >= 0)  # the pooled tail last
    assert first.raw["pooled_tail_categories"] > 0
    assert r.json["report_format"] == 2


def test_a_report_without_counts_still_reads(tmp_path):
    r = specverify.verify("ref", cases=["zipf:V=200,K=2"], draws=20_000, echo=False)
    old = dict(r.json, report_format=1)
    for c in old["cases"]:
        for run in c["runs"]:
            for p in run["positions"]:
                p.pop("counts")
    path = tmp_path / "old.json"
    import json
    path.write_text(json.dumps(old))
    p = specverify.Report.from_file(str(path)).case("zipf:V=200,K=2").positions[0]
    assert p.counts is None and p.tokens is None and p.N == 20_000


def test_findings_name_the_request_and_its_seed():
    r = specverify.verify("%s:wide_accepted" % BAD, cases=["zipf:V=50,K=2"], draws=2000,
                          batch=1000, threads=1, echo=False)
    assert not r.passed
    words = "\n".join(r.case("zipf:V=50,K=2").findings)
    # bad_samplers.wide_accepted breaks request 3 of every batch it is given
    assert re.search(r"request 3 of the batch \(seed \d+\): accepted count -1099511627776", words)
    assert "4611686018427387904" not in words and "draw 3" not in words
    assert "a probe's batch of" in words  # the probes' calls, named by their size


def test_plot_draws_where_the_mass_went(tmp_path):
    """Report.plot() draws a figure per failing position from the report's
    counts (specverify plot REPORT.json): residual_swapped fails every
    position of zipf:V=200,K=2; a passing report draws none."""
    r = specverify.verify("residual_swapped", cases=["zipf:V=200,K=2"], draws=50_000,
                          rerun=False, echo=False)
    figures = r.plot(tmp_path / "figs")
    assert [os.path.basename(f) for f in figures] == ["mass-1.png", "mass-2.png"]
    assert all(os.path.getsize(f) > 0 and os.path.exists(f[:-3] + "pdf") for f in figures)
    ok = specverify.verify("ref", cases=["zipf:V=200,K=2"], draws=20_000, echo=False)
    assert ok.plot(tmp_path / "none") == []
