"""specverify's pytest plugin: a suite's cases as tests, a fixture and a
marker that verify a sampler on the test's case, a tier and a time budget.

pytest loads it by itself once specverify is installed (the entry point
`specverify = "specverify.pytest_plugin"` in the group pytest11); from a
build tree, `pytest -p specverify.pytest_plugin`. docs/python.md#the-pytest-plugin:

    @pytest.mark.parametrize("case", specverify.cases("ci"))
    def test_lossless(specverify_verify, case):
        specverify_verify(my_sampler, case)

    @pytest.mark.specverify(sampler=my_sampler)
    @pytest.mark.parametrize("case", specverify.cases("ci"))
    def test_lossless_too(case):
        pass                    # the plugin verifies after the body

--specverify-budget SECONDS shares a time budget among the tests, and a
section after them says what each run detected (its min-det) and took.
--specverify-dump DIR writes each failing test's failing batches under
DIR/TEST, and the failure message names the `specverify replay` command
of each. A failing case fails its test with the harness's explanation, once: the
CLI's table is not echoed (it stays on the Report's text), so the words are
only in the failure message, which a JUnit report carries too.
"""

import inspect
import os
import re
import time
from collections import namedtuple

import pytest

from . import SpecverifyError, _cases, verify
from ._cases import SuiteCase

_budget_share = pytest.StashKey()  # seconds each specverify test may take
_checked = pytest.StashKey()  # the test's body verified already
# a run of the session: its test, its summary line, its seconds, its --budget
# (None without one) and its cases
_Run = namedtuple("_Run", "test line seconds budget cases")
_runs = pytest.StashKey()  # the session's runs
_left = pytest.StashKey()  # the specverify tests not yet run
_n_tests = pytest.StashKey()  # and how many there are in all


def pytest_addoption(parser):
    group = parser.getgroup("specverify", "specverify: verify rejection samplers")
    group.addoption("--specverify-tier", choices=_cases.TIERS, default=None,
                    help="pr (default): suite ci, at most %d draws a case, for a pull "
                         "request; nightly: suite full at its own draws" % _cases.PR_DRAWS)
    group.addoption("--specverify-budget", type=float, default=None, metavar="SECONDS",
                    help="the seconds all specverify tests may take together: each run "
                         "given what is left over the tests left, less its probes "
                         "(verify(budget=...) each; docs/python.md#budgets)")
    group.addoption("--specverify-dump", default=None, metavar="DIR",
                    help="each failing test's failing batches (a broken contract, a failed "
                         "call, a batch-composition failure) under DIR/TEST, for 'specverify "
                         "replay FILE' (verify(dump_failing=...)): a CI job's artifact")


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "specverify(sampler, suite=None, **verify_kwargs): verify the sampler on "
                   "the test's case (a specverify.cases parameter) or the tier's suite after "
                   "the test's body; a failure fails the test with the harness's explanation")
    _cases.set_tier(config.getoption("specverify_tier") or "pr")
    config.stash[_runs] = []
    budget = config.getoption("specverify_budget")
    if budget is not None and not budget > 0:
        raise pytest.UsageError("--specverify-budget %g: want a number of seconds above 0"
                                % budget)
    dump = config.getoption("specverify_dump")
    if dump is not None:
        try:  # each test's folder is made by verify; their parent here
            os.makedirs(dump, exist_ok=True)
        except OSError as e:
            raise pytest.UsageError("--specverify-dump %s: %s" % (dump, e.strerror))


def pytest_report_header(config):
    tier = _cases.tier()
    sizing = ("at most %d draws a case" % _cases.PR_DRAWS if tier == "pr"
              else "each case at its suite's draws")
    budget = config.getoption("specverify_budget")
    return "specverify: tier %s (suite %s unless named, %s)%s" % (
        tier, _cases.TIER_SUITE[tier], sizing,
        "" if budget is None else ", budget %g s for all specverify tests" % budget)


def _uses_specverify(item):
    return ("specverify_verify" in getattr(item, "fixturenames", ())
            or item.get_closest_marker("specverify") is not None)


def pytest_collection_finish(session):
    """The specverify tests left after -k and -m, each with its equal share
    of the budget (_share_now gives it what is left when it runs)."""
    budget = session.config.getoption("specverify_budget")
    users = [item for item in session.items if _uses_specverify(item)]
    session.config.stash[_left] = {item.nodeid for item in users}
    session.config.stash[_n_tests] = len(users)
    for item in users:
        item.stash[_budget_share] = None if budget is None else budget / len(users)


# a run's probes and its sampler's start-up, outside its --budget: about a
# second a case (docs/verify.md#a-time-budget), until runs have measured it;
# and the least --budget verify takes, a second a case
PROBE_SECONDS_A_CASE = 1.0


def _share_now(item, n_cases):
    """This test's --budget: what is left of the session's over the tests
    left, less what its probes will take beyond it (each earlier run's time
    past its --budget, a case), so that the session ends near its budget;
    never under half the equal share (a session run long ends past its
    budget, and the summary says so), nor under the least verify takes
    where the equal share is not. Under pytest-xdist, whose workers each
    run some of the tests, the equal share."""
    config, equal = item.config, item.stash[_budget_share]
    if hasattr(config, "workerinput"):
        return equal
    runs, left = config.stash[_runs], config.stash[_left]
    left.discard(item.nodeid)
    spent = sum(r.seconds for r in runs)
    past = [max(0.0, r.seconds - r.budget) / r.cases for r in runs
            if r.budget is not None and r.cases]
    a_case = sum(past) / len(past) if past else PROBE_SECONDS_A_CASE
    share = (config.getoption("specverify_budget") - spent) / (len(left) + 1) - a_case * n_cases
    return max(share, 0.5 * equal, min(equal, PROBE_SECONDS_A_CASE * n_cases))


def _test_case(item):
    """The SuiteCase among the test's parameters, if any."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    found = [v for v in params.values() if isinstance(v, SuiteCase)]
    return found[0] if found else None


def run_for(item, sampler=None, case=None, *, suite=None, check=True, **kwargs):
    """Verifies a sampler for a test: on `case` (default: the test's
    SuiteCase parameter) at its tier's draws, or on a whole suite; the
    marker's sampler and keywords are the defaults. Fails the test with the
    report's explanation unless it passed (when check); returns the Report."""
    marker = item.get_closest_marker("specverify")
    options = dict(marker.kwargs) if marker else {}
    if marker and marker.args:
        options.setdefault("sampler", marker.args[0])
    options.update(kwargs)
    sampler = sampler if sampler is not None else options.pop("sampler", None)
    options.pop("sampler", None)
    if sampler is None:
        pytest.fail("specverify: no sampler for %s: pass one to specverify_verify or mark the "
                    "test @pytest.mark.specverify(sampler=...)" % item.nodeid, pytrace=False)
    suite = suite or options.pop("suite", None)
    case = case if case is not None else _test_case(item)
    if isinstance(case, SuiteCase):
        options.setdefault("cases", [case.spec])
        options.setdefault("alpha", case.alpha)
        draws = case.draws
    elif case is not None:
        options.setdefault("cases", [str(case)])
        draws = None
    else:
        suite = suite or _cases.TIER_SUITE[_cases.tier()]
        draws = _cases.PR_DRAWS if _cases.tier() == "pr" else None
    given = options.get("cases") or ()
    n_cases = 1 if isinstance(given, str) else len(given)  # a suite's: for a budget alone
    shared = False  # the budget is the session's share, not the test's own
    if item.stash.get(_budget_share, None) is not None:
        n_cases = n_cases or len(_cases.suite_entries(suite))
        if "budget" not in options:
            options["budget"], shared = float("%.4g" % _share_now(item, n_cases)), True
        draws = None  # the budget sizes the draws
    options.setdefault("draws", draws)
    options.setdefault("echo", False)  # the explanation goes in the failure alone
    dump = item.config.getoption("specverify_dump")
    if dump is not None:  # the test's own folder: its name in letters, digits and ._-
        options.setdefault("dump_failing", os.path.join(
            dump, re.sub(r"[^A-Za-z0-9._-]+", "_", item.nodeid)[:150]))
    start = time.monotonic()
    refused = None
    try:
        report = verify(sampler, suite, **options)
    except SpecverifyError as e:
        if not check:
            raise
        refused = str(e)
    if refused is not None:  # outside the except: no chained copy
        # bad input or a run that could not be made: the words, not the package's frames
        pytest.fail("%s%s" % (refused, "" if not shared else (
            " (--specverify-budget %g s among %d tests gave this one --budget %g s; "
            "verify takes at least a second a case)" % (
                item.config.getoption("specverify_budget"), item.config.stash[_n_tests],
                options["budget"]))), pytrace=False)
    took = time.monotonic() - start
    item.config.stash[_runs].append(_Run(item.nodeid, _run_line(report, took), took,
                                         options.get("budget"), n_cases))
    item.stash[_checked] = True
    if check and not report.passed:
        try:
            report.assert_passed()
        except AssertionError as e:
            message = str(e)
        pytest.fail(message, pytrace=False)  # outside the except: no chained copy
    return report


def _run_line(report, seconds):
    """What one run detected: its verdict, draws and the smallest TV distance
    from p its position-1 draws detect (min-det), and its time with the
    probes and the sampler's start-up."""
    cases = report.cases
    # a Markov pair's positions hold no draws: its transitions are tested
    firsts = [c.positions[0] for c in cases if c.positions and c.positions[0].N]
    dets = [p.min_detectable for p in firsts if p.min_detectable is not None]
    verdict = ("PASS" if report.passed else
               "FAIL" if any(c.verdict == "FAIL" for c in cases) or not cases else "SUSPECT")
    if not dets:
        detects = "no TV test at position 1 (a Markov pair's transitions are tested)" if any(
            c.positions and not c.positions[0].N for c in cases) else "no TV test at position 1"
    elif min(dets) == max(dets):
        detects = "min-det TV %.3g at position 1" % dets[0]
    else:
        detects = "min-det TV %.3g to %.3g at position 1" % (min(dets), max(dets))
    return "%-7s %d case%s, %d draws, %s, %.1f s" % (
        verdict, len(cases), "" if len(cases) == 1 else "s",
        sum(c.draws for c in cases), detects, seconds)


def pytest_terminal_summary(terminalreporter, config):
    """One line a specverify run: what it detected (min-det: the TV distance
    from p detected with probability 1 - the split false-alarm rate) and
    its time, against the budget when one was given; a pass then says how
    small a defect it could have missed."""
    runs = config.stash.get(_runs, [])
    if not runs:
        return
    terminalreporter.section("specverify")
    budget = config.getoption("specverify_budget")
    took = sum(r.seconds for r in runs)
    terminalreporter.write_line(
        "%d run%s, %.1f s in all (probes and the sampler's start-up included)%s" % (
            len(runs), "" if len(runs) == 1 else "s", took,
            "" if budget is None else "; --specverify-budget %g s" % budget))
    for r in runs:
        terminalreporter.write_line("%s  %s" % (r.line, r.test))


@pytest.fixture
def specverify_verify(request):
    """specverify_verify(sampler=None, case=None, *, suite=None, check=True,
    **verify_kwargs) -> Report: verify for this test (run_for)."""

    def call(sampler=None, case=None, **kwargs):
        return run_for(request.node, sampler, case, **kwargs)

    return call


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    """A test marked specverify: its body, then the verification, unless the
    body verified already."""
    marker = pyfuncitem.get_closest_marker("specverify")
    if marker is None or inspect.iscoroutinefunction(pyfuncitem.obj):
        return None
    fn = pyfuncitem.obj
    names = inspect.signature(fn).parameters
    fn(**{k: v for k, v in pyfuncitem.funcargs.items() if k in names})
    if not pyfuncitem.stash.get(_checked, False):
        run_for(pyfuncitem)
    return True
