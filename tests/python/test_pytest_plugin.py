"""The pytest plugin (issue 37), through inner pytest runs (pytester): a
suite's cases as one test each (-k selects them, JUnit lists each), the tier
sizing the cases, the budget reaching each run's command line, and a failing
case's explanation printed once, by the plugin and by a plain
verify(...).assert_passed()."""

import os
import sys
import xml.etree.ElementTree as ET

import pytest
from conftest import _plugin_installed

pytest_plugins = ["pytester"]

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.abspath(os.environ.get("SV_BUILD_PYTHON")
                        or os.path.join(HERE, "..", "..", "build", "python"))
SMOKE = ["seedlab:V=100,K=3", "identical:V=100,K=2", "zipf:V=200,K=4", "onehot:V=100,K=3",
         "greedy:V=100,K=3", "markov:V=16,K=3,support=8"]
# the first words of resample_from_p's finding at position 1 of zipf:V=200,K=4
RESAMPLE_FAIL = "FAIL    zipf:V=200,K=4: position 1: token 196 emitted 1.56x less often"

REF_CASES = """
import pytest, specverify

@pytest.mark.parametrize("case", specverify.cases("smoke"))
def test_ref(specverify_verify, case):
    report = specverify_verify("ref", case)
    print("RAN", case.spec, case.draws, " ".join(report.command[1:]))
"""


@pytest.fixture
def inner(pytester, monkeypatch):
    """pytester, with the build's package and these samplers importable in
    its runs, and `run(*args)` an inner pytest with the plugin loaded."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([BUILD, HERE]))
    monkeypatch.delenv("SPECVERIFY", raising=False)

    # installed (pip install .), pytest finds the plugin by its entry point, and
    # naming it again would register it twice
    load = [] if _plugin_installed() else ["-p", "specverify.pytest_plugin"]

    def run(*args):
        return pytester.runpytest_subprocess(*load, "-p", "no:cacheprovider", *args)

    pytester.run_inner = run
    return pytester


def above_summary(result):
    """An inner run's output above pytest's short summary: with CI set in the
    environment (as on a CI machine) pytest repeats each failure's whole
    message there, which is pytest's doing, not the plugin's."""
    return result.stdout.str().split("short test summary info")[0]


def printed(result, tag):
    """The words after `tag` on each line of an inner run's output that has
    it (with -s, a test's print shares the line of its file's progress)."""
    return [l[l.index(tag) + len(tag):].split() for l in result.outlines if tag in l]


def test_one_test_per_case_k_selects_and_junit_lists_each(inner):
    inner.makepyfile(test_ref=REF_CASES)
    xml = inner.path / "junit.xml"
    result = inner.run_inner("-s", "--junitxml", str(xml))
    result.assert_outcomes(passed=6)
    names = [t.get("name") for t in ET.parse(str(xml)).getroot().iter("testcase")]
    assert names == ["test_ref[%s]" % c for c in SMOKE]
    # each ran its own case alone, at the pr tier's 20,000 draws
    ran = printed(result, "RAN ")
    assert [r[0] for r in ran] == SMOKE and all(r[1] == "20000" for r in ran)
    for r in ran:
        command = r[2:]
        assert command[command.index("--case") + 1] == r[0]
        assert command[command.index("--draws") + 1] == "20000"
        assert float(command[command.index("--alpha") + 1]) == pytest.approx(1e-6 / 6)

    one = inner.run_inner("-s", "-k", "zipf")
    one.assert_outcomes(passed=1, deselected=5)
    assert [r[0] for r in printed(one, "RAN ")] == ["zipf:V=200,K=4"]


def test_k_selects_a_case_of_ci_by_its_name(inner):
    inner.makepyfile(test_ci="""
import pytest, specverify

@pytest.mark.parametrize("case", specverify.cases("ci"))
def test_ci(case):
    pass
""")
    result = inner.run_inner("--collect-only", "-q", "-k", "tinytail")
    assert "test_ci.py::test_ci[tinytail:V=32003,K=1]" in result.outlines
    assert "1/17 tests collected (16 deselected)" in result.stdout.str()


def test_the_tier_sizes_the_cases(inner):
    inner.makepyfile(test_tier="""
import pytest, specverify

@pytest.mark.parametrize("case", specverify.cases())
def test_default_suite(case):
    print("DEFAULT", case.suite, case.spec, case.draws)

@pytest.mark.parametrize("case", specverify.cases("smoke"))
def test_smoke(specverify_verify, case):
    report = specverify_verify("ref", case)
    print("ZIPF", case.draws, report.case(case.spec).draws)
""")
    select = "tinytail or (test_smoke and zipf)"
    pr = inner.run_inner("-s", "-k", select)
    pr.assert_outcomes(passed=2)
    assert "specverify: tier pr (suite ci unless named, at most 20000 draws a case)" in pr.outlines
    assert printed(pr, "DEFAULT ") == [["ci", "tinytail:V=32003,K=1", "20000"]]
    assert printed(pr, "ZIPF ") == [["20000", "20000"]]
    nightly = inner.run_inner("-s", "-k", select, "--specverify-tier", "nightly")
    nightly.assert_outcomes(passed=2)
    # full holds tinytail at its own 5,200,000 draws; zipf runs its smoke 200,000
    assert printed(nightly, "DEFAULT ") == [["full", "tinytail:V=32003,K=1", "5200000"]]
    assert printed(nightly, "ZIPF ") == [["200000", "200000"]]
    bad = inner.run_inner("--specverify-tier", "weekly")
    assert bad.ret == 4 and "invalid choice: 'weekly'" in bad.stderr.str()


FAKE_CLI = """#!%s
# verify: sleeps its --budget and PAST more (a run's probes and start-up,
# which its --budget leaves out), writes a passing report and prints its
# command line; the rest is the real CLI's (list gives the suites)
import json, os, sys, time
args = sys.argv[1:]
if args[0] != "verify":
    os.execv(os.environ["SV_REAL_CLI"], [os.environ["SV_REAL_CLI"]] + args)
if "--budget" in args:
    time.sleep(float(args[args.index("--budget") + 1]) + float(os.environ["PAST"]))
with open(args[args.index("--json") + 1], "w") as f:
    json.dump({"sampler": "ref", "cases": [], "summary": {}}, f)
print("FAKE", " ".join(args))
"""


def fake_cli(inner, monkeypatch, past):
    """SPECVERIFY: a stand-in CLI whose runs take their --budget and `past`
    seconds more, so what follows holds whatever the harness does."""
    import specverify

    fake = inner.path / "fake_specverify"
    fake.write_text(FAKE_CLI % sys.executable)
    fake.chmod(0o755)
    monkeypatch.setenv("SV_REAL_CLI", specverify.executable())
    monkeypatch.setenv("SPECVERIFY", str(fake))
    monkeypatch.setenv("PAST", str(past))


def test_the_budget_is_shared_by_the_tests_that_run(inner, monkeypatch):
    """The session's budget, shared among the three tests -k leaves, reaches
    each run as --budget (the draws then the budget's to size): the first
    its equal share less a second for its one case's probes; each later one
    what is left over the tests left, less what the runs before took past
    their --budget. Runs taking 1.5 s past it, the session takes about its
    9 s (2 + 1.5, then 1.5 + 1.5 twice: the floor, half the equal share),
    where equal shares took 13.5."""
    fake_cli(inner, monkeypatch, 1.5)
    inner.makepyfile(test_ref=REF_CASES)
    result = inner.run_inner("-s", "-k", "zipf or onehot or greedy",
                             "--specverify-budget", "9")
    result.assert_outcomes(passed=3, deselected=3)
    assert any(l.endswith(", budget 9 s for all specverify tests") for l in result.outlines)
    ran = [r[2:] for r in printed(result, "RAN ")]
    assert len(ran) == 3 and all("--draws" not in command for command in ran)
    budgets = [float(command[command.index("--budget") + 1]) for command in ran]
    assert budgets[0] == 2.0 and budgets[1:] == [1.5, 1.5], budgets
    took = [l for l in result.outlines if l.startswith("3 runs, ")]
    assert len(took) == 1 and took[0].endswith("; --specverify-budget 9 s"), took
    assert float(took[0].split()[2]) < 11.0, took  # 9.5 and the fake's start-ups
    # never under the least verify takes (a second a case) where the equal share is not
    monkeypatch.setenv("PAST", "0")
    least = inner.run_inner("-s", "-k", "zipf or onehot", "--specverify-budget", "2")
    least.assert_outcomes(passed=2, deselected=4)
    assert [float(r[r.index("--budget") + 1]) for r in printed(least, "RAN ")] == [1.0, 1.0]
    zero = inner.run_inner("--specverify-budget", "0")
    assert zero.ret == 4 and "--specverify-budget 0: want a number of seconds above 0" \
        in zero.stderr.str()


def test_a_budget_too_small_fails_each_test_in_words(inner):
    """Under a second a case of every test, verify refuses its share (exit
    2): each test fails with the CLI's words and what the session's budget
    gave it, not the package's traceback."""
    inner.makepyfile(test_ref=REF_CASES)
    result = inner.run_inner("-k", "zipf or onehot", "--specverify-budget", "1")
    result.assert_outcomes(failed=2, deselected=4)
    out = above_summary(result)
    assert out.count("specverify: verify --budget 0.5: less than its probes take") == 2, out
    assert out.count("(--specverify-budget 1 s among 2 tests gave this one --budget 0.5 s; "
                     "verify takes at least a second a case)") == 2, out
    assert "Traceback" not in out and "During handling" not in out and "_run.py" not in out


def test_the_summary_says_what_each_run_detected(inner):
    """After the tests, a line a run: its verdict, draws, the min-det at
    position 1 (the report's own), its time, and the test; a Markov pair
    has no TV test there."""
    inner.makepyfile(test_ref=REF_CASES)
    result = inner.run_inner("-k", "zipf or markov")
    result.assert_outcomes(passed=2, deselected=4)
    lines = [l for l in result.outlines[result.outlines.index(
        next(l for l in result.outlines if "= specverify =" in l)) + 1:] if l]
    assert lines[0].startswith("2 runs, ") and lines[0].endswith(
        "s in all (probes and the sampler's start-up included)"), lines[0]
    zipf = next(l for l in lines if l.endswith("test_ref.py::test_ref[zipf:V=200,K=4]"))
    import specverify
    want = specverify.verify("ref", cases=["zipf:V=200,K=4"], draws=20000, alpha=1e-6 / 6,
                             echo=False).cases[0].positions[0].min_detectable
    assert zipf.startswith("PASS    1 case, 20000 draws, min-det TV %.3g at position 1, " % want)
    markov = next(l for l in lines if "markov:V=16,K=3,support=8" in l)
    assert "no TV test at position 1 (a Markov pair's transitions are tested)" in markov


def test_a_failing_case_says_why_once_through_the_marker(inner):
    inner.makepyfile(test_bad="""
import pytest, specverify

@pytest.mark.specverify(sampler="resample_from_p")
@pytest.mark.parametrize("case", specverify.cases("smoke"))
def test_marked(case):
    pass
""")
    xml = inner.path / "junit.xml"
    result = inner.run_inner("-k", "zipf", "--junitxml", str(xml))
    result.assert_outcomes(failed=1, deselected=5)
    out = above_summary(result)
    assert out.count(RESAMPLE_FAIL) == 1, out
    assert "specverify: sampler resample_from_p did not pass its cases (seed 1):" in out
    failure = ET.parse(str(xml)).getroot().find(".//testcase/failure")
    assert RESAMPLE_FAIL in failure.get("message")


def test_a_failing_case_says_why_once_through_assert_passed(inner):
    """Before issue 37 the echoed table repeated the assertion's FAIL lines."""
    inner.makepyfile(test_plain="""
import specverify

def test_plain():
    specverify.verify("resample_from_p", cases=["zipf:V=200,K=4"], draws=20000).assert_passed()
""")
    result = inner.run_inner()
    result.assert_outcomes(failed=1)
    out = above_summary(result)
    assert out.count(RESAMPLE_FAIL) == 1, out
    assert "raise AssertionError" not in out  # assert_passed's own frame is hidden


def test_a_python_sampler_s_error_once_through_the_fixture(inner):
    inner.makepyfile(test_raises="""
import pytest, specverify
import bad_samplers

@pytest.mark.parametrize("case", specverify.cases("smoke"))
def test_raises(specverify_verify, case):
    specverify_verify(bad_samplers.raises, case)
""")
    result = inner.run_inner("-k", "onehot")
    result.assert_outcomes(failed=1, deselected=5)
    out = above_summary(result)
    assert out.count("sampler raises: verify of sequences 0..4095 returned status 4 "
                     "(EINTERNAL): ValueError: the rows do not sum to one") == 1, out
    assert "sampler raises did not pass its cases" in out


def test_a_broken_contract_s_batch_is_kept_for_replay(inner):
    """--specverify-dump DIR: the failing test's batch under DIR/TEST, its
    replay command in the failure message, the replay breaking the
    contract again."""
    inner.makepyfile(test_dump="""
import pytest, specverify

@pytest.mark.parametrize("case", specverify.cases("smoke"))
def test_counts(specverify_verify, case):
    specverify_verify("counts_off_by_one", case)
""")
    dump = inner.path / "dumps"
    result = inner.run_inner("-k", "zipf", "--specverify-dump", str(dump))
    result.assert_outcomes(failed=1, deselected=5)
    files = sorted(dump.rglob("*.contract.h5"))
    assert len(files) == 1 and files[0].parent.name.startswith("test_dump.py_test_counts")
    assert "its contract failure's batch again: specverify replay '%s'" % files[0] \
        in above_summary(result)
    import specverify
    assert specverify.replay(files[0]).reproduced
