"""A suite's cases as pytest parameters, and the tiers that size them.

`specverify.cases("ci")` gives one pytest.param per case of the suite, its
id the case's spec, so that `pytest -k tinytail` selects cases and a JUnit
report lists each. The cases come from the CLI (`specverify list --suite
NAME`: spec and draws, one per line), so they are always the harness's own.

A tier says how hard a run looks (docs/python.md#tiers):
  pr       a pull request's check: the suite `ci` unless one is named, each
           case at most PR_DRAWS draws (minutes, not an hour, for a Python
           sampler; the report's min-det column says what that N detects)
  nightly  the suite `full` unless one is named, each case at the draws its
           suite was sized for
The pytest plugin sets the tier from --specverify-tier before test modules
are imported; outside pytest it is "pr".
"""

from collections import namedtuple

from ._run import SpecverifyError, run

TIERS = ("pr", "nightly")
TIER_SUITE = {"pr": "ci", "nightly": "full"}
PR_DRAWS = 20_000  # the pr tier's cap: minutes, not an hour, for a Python sampler
FAMILY_ALPHA = 1e-6  # verify's default family-wise false-alarm rate

_tier = ["pr"]  # set by the plugin's pytest_configure


class SuiteCase(namedtuple("SuiteCase", "spec draws suite alpha")):
    """One case of a suite, sized by the tier: `spec` ("tinytail:V=32003,K=1"),
    `draws` (the tier's), `suite` (where it came from) and `alpha`, its share
    of the suite's family-wise false-alarm rate, so that the cases run as
    separate tests still raise a false alarm with probability at most 1e-6
    all together."""

    def __str__(self):
        return self.spec


def set_tier(name):
    if name not in TIERS:
        raise SpecverifyError("specverify tier '%s': want one of %s" % (name, ", ".join(TIERS)),
                              2, [])
    _tier[0] = name


def tier():
    """The tier in force: "pr" or "nightly"."""
    return _tier[0]


def tier_draws(draws, name=None):
    """A case's draws under a tier, from its suite's own."""
    return min(draws, PR_DRAWS) if (name or tier()) == "pr" else draws


def suite_entries(suite):
    """[(spec, draws)] of a suite, from `specverify list --suite NAME --json`
    (list_format 1, docs/formats.md)."""
    data, _, _, _ = run(["list", "--suite", suite], echo=False)
    try:
        return [(c["spec"], int(c["draws"])) for c in data["suites"][0]["cases"]]
    except (TypeError, KeyError, IndexError, ValueError) as e:
        raise SpecverifyError("specverify list --suite %s --json: not the list JSON this package "
                              "reads (%s: %s)" % (suite, type(e).__name__, e), 3, [])


def cases(suite=None, *, draws=None):
    """One pytest.param per case of `suite` (default: the tier's suite), each
    a SuiteCase with the tier's draws (or `draws`), its id the case's spec:

        @pytest.mark.parametrize("case", specverify.cases("ci"))
        def test_lossless(specverify_verify, case):
            specverify_verify(my_sampler, case)
    """
    import pytest

    suite = suite or TIER_SUITE[tier()]
    entries = suite_entries(suite)
    alpha = FAMILY_ALPHA / max(len(entries), 1)
    return [pytest.param(SuiteCase(spec, draws or tier_draws(n), suite, alpha), id=spec)
            for spec, n in entries]
