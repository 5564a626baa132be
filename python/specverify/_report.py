"""The report of a run: what `specverify verify --json` writes, as objects,
with the harness's own words beside it. A sampler's words (its exception's
text) are shown as the JSON holds them: escaped by the harness, a newline as
the two characters \\n, ESC as \\x1b (docs/cli.md), so that nothing here
can forge a line of the explanation or redraw a terminal."""

import json
import os
import re

import numpy as np


class Position:
    """One case's tests at one emitted position.

    The bins its chi-square and G tests used (None where no test ran, and
    in a report of report_format 1, written before the counts were):
    ``tokens`` (int64; -1 for the pooled tail of rare tokens, last),
    ``counts`` (int64: the draws that emitted each bin) and ``expected``
    (float64: N times the bin's target probability), and ``outside_support``
    (draws of tokens of probability 0, in no bin). ``counts.sum() +
    outside_support == N``, and ``((counts - expected) ** 2 / expected).sum()``
    is the reported chi-square statistic, so scipy.stats.chisquare or a plot
    of residuals can take them as they are.
    """

    def __init__(self, d):
        self.raw = d
        self.position = d["position"]
        self.N = d["N"]
        self.verdict = d["verdict"]
        self.chi2_p = (d.get("chi2") or {}).get("p")
        self.g_p = (d.get("g") or {}).get("p")
        tv = d.get("tv") or {}
        self.tv = tv.get("value")
        self.tv_threshold = tv.get("threshold")
        self.min_detectable = tv.get("min_detectable")
        # {tv, tv_lo, tv_hi, kl, kl_lo, kl_hi, level}: how far from p (verify --measure)
        self.distance = d.get("distance")
        self.chi2 = (d.get("chi2") or {}).get("stat")
        binned = d.get("counts")
        self.tokens = self.counts = self.expected = self.outside_support = None
        if binned:
            self.tokens = np.asarray(binned["tokens"], dtype=np.int64)
            self.counts = np.asarray(binned["observed"], dtype=np.int64)
            self.expected = np.asarray(binned["expected"], dtype=np.float64)
            self.outside_support = int(binned.get("outside_support", 0))

    def __repr__(self):
        return "<Position %d: %s, N=%d, chi2 p=%s, TV=%s>" % (
            self.position, self.verdict, self.N, self.chi2_p, self.tv)


class Case:
    """One case: its verdict, its first run's positions and checks, and the
    words of what looks wrong (the findings)."""

    def __init__(self, d):
        self.raw = d
        self.name = d["name"]
        self.K, self.V = d["K"], d["V"]
        self.verdict = d["verdict"]
        runs = d.get("runs") or [{}]
        first = runs[0]
        self.draws = sum(r.get("draws", 0) for r in runs)
        self.positions = [Position(p) for p in first.get("positions", [])]
        self.accepted_length = first.get("accepted_length")
        self.independence = first.get("independence")
        self.batch_composition = first.get("batch_composition")
        self.seed_sensitivity = first.get("seed_sensitivity")
        self.findings = [f for r in runs for f in (r.get("findings") or [])]
        # verify --dump-failing: {"contract": FILE, "composition": FILE}, for replay()
        self.replay_files = d.get("replay") or {}

    def __repr__(self):
        return "<Case %s: %s>" % (self.name, self.verdict)


class Report:
    """A verification's outcome. ``passed`` is True when every case passed;
    ``text`` is what the CLI printed (the table and the words of what looks
    wrong); ``cases`` the per case and position numbers; ``json`` all of it."""

    def __init__(self, data, text, exit_code, command):
        self.json = data
        self.text = text
        self.exit_code = exit_code
        self.command = command
        self.sampler = data.get("sampler")
        self.rule = data.get("rule", "chain")  # the verification rule it was judged by
        self.suite = data.get("suite")
        self.seed = data.get("seed")
        self.alpha = data.get("family_alpha")
        self.cases = [Case(c) for c in data.get("cases", [])]
        summary = data.get("summary", {})
        self.summary = summary
        self.partial = bool(summary.get("partial"))
        self.measured = bool(data.get("measure"))  # verify --measure: distances from p
        # False only for a lossy rule measured (its distances stand in for
        # verdicts); a lossless rule measured is judged, so it must pass
        self.judged = bool(data.get("judged", True))
        self.passed = exit_code == 0 and not self.partial and (not self.judged or all(
            c.verdict == "PASS" for c in self.cases))
        self.verdict = "PASS" if self.passed else "FAIL"

    @classmethod
    def from_file(cls, path, text="", exit_code=0, command=()):
        with open(path) as f:
            return cls(json.load(f), text, exit_code, command)

    def case(self, name):
        for c in self.cases:
            if c.name == name:
                return c
        raise KeyError(name)

    def explanation(self):
        """What looks wrong, in the harness's words: the FAIL and SUSPECT lines
        and the findings, then the summary line."""
        lines = [l for l in self.text.splitlines()
                 if l.startswith(("FAIL", "SUSPECT", "PARTIAL")) or " cases: " in l]
        for c in self.cases:
            for f in c.findings:
                line = "%s: %s" % (c.name, f)
                if not any(f in l for l in lines):
                    lines.append(line)
        return "\n".join(lines) if lines else self.text.strip()

    def assert_passed(self):
        """For pytest: raises AssertionError with the harness's explanation
        unless every case passed."""
        __tracebackhide__ = True  # pytest: the message, not this frame's source
        if not self.passed:
            where = "suite %s" % self.suite if self.suite else "its cases"
            raise AssertionError("specverify: sampler %s did not pass %s (seed %s):\n%s"
                                 % (self.sampler, where, self.seed, self.explanation()))

    def plot(self, folder):
        """Draws, in folder, where the mass of each failing or suspect
        position went (observed over expected per bin, with the band a bin
        alone stays in: `specverify plot REPORT.json`, as verify's --plot);
        returns the figures' paths (PNG; SVG and PDF beside each)."""
        import tempfile

        from ._run import run

        with tempfile.TemporaryDirectory(prefix="specverify-plot-") as tmp:
            path = os.path.join(tmp, "report.json")
            with open(path, "w") as f:
                json.dump(self.json, f)
            _, out, _, _ = run(["plot", path, "--out", os.fspath(folder)], echo=False,
                               json_report=False)
        # the CLI's own list: "plot: FOLDER/mass-N.{png,svg,pdf}: CASE, position K (FAIL)"
        return [m.group(1) + ".png" for m in re.finditer(r"^plot: (.*)\.\{png,svg,pdf\}: ",
                                                         out, re.M)]

    def __bool__(self):
        return self.passed

    def __repr__(self):
        return "<Report %s: %s, %d cases>" % (self.sampler, self.verdict, len(self.cases))
