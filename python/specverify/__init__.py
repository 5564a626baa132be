"""specverify for Python: verify a rejection sampler written in Python
(numpy or PyTorch) with the C harness's suites and statistics.

    import specverify

    @specverify.sampler(tensors="torch", layouts=("packed",))
    def my_sampler(batch):
        ...                     # batch: specverify.Batch
        return tokens           # [B][K+1], -1 after the last

    def test_my_sampler():
        specverify.verify(my_sampler, suite="ci").assert_passed()

The sampler runs in a process of its own (your interpreter, started by the
harness's isolated child), so it must be importable: defined at module level,
or named as "path/file.py:NAME". docs/python.md has the whole guide.
"""

import json
import os

from ._batch import Batch
from ._cases import cases
from ._outputs import SamplerError
from ._report import Case, Position, Report
from ._paths import VERSION as __version__
from ._run import SpecverifyError, executable, run, sampler_spec

__all__ = ["sampler", "verify", "replay", "Replay", "cases", "mutants", "power", "PowerReport", "Batch", "Report",
           "Case", "Position", "SamplerError", "SpecverifyError", "MutantsTable", "executable"]


def sampler(fn=None, *, name=None, description=None, inputs=("probs",), layouts=("padded",),
            tensors="numpy", device="cpu", bonus="sampler", max_batch=None, max_bytes=None,
            rule="chain", lacks=(), drafts="harness"):
    """Says what a Python sampler takes; the function is returned unchanged.

    name, description  how it is listed and reported (default: the function's
                       name and its docstring's first line)
    inputs             of "probs" (always), "logits-f32", "logits-bf16"
    layouts            of "padded" ([B][K+1][V]) and "packed" (vLLM's)
    tensors            "numpy" or "torch": what the batch's arrays are
    device             where torch tensors are put ("cpu", "cuda", "cuda:1")
    bonus              "sampler": it draws the bonus token itself; "harness":
                       batch.bonus_tokens holds one drawn from each bonus row,
                       which it must emit after accepting every draft (vLLM's
                       caller does this); "none": it emits no bonus and the
                       harness fills that slot (the position after the last
                       draft then says nothing about the sampler); either
                       way the engine's own bonus sampler is not tested (a
                       bug there, vLLM's float32 exponential race, shows
                       only in it), and the report's "bonus:" line says so
    max_batch          the most sequences per call; larger batches are split
    max_bytes          or a budget for a call's rows (target and draft bytes)
    rule               the verification rule it implements: "chain" (Leviathan
                       et al.), "exact_match" (no draft probabilities: it is
                       given batch.draft = None and compares each draft with
                       a target sample), "block" (Sun et al. 2024),
                       "typical" (Medusa's, lossy: measure it with
                       verify(..., measure=True)), "tree" (recursive rejection
                       over a tree of drafts: batch.parents, and it returns
                       (tokens, accepted, path)), "tree_target_only" (SGLang's
                       rule, no draft rows); each is judged by its own law
                       (docs/rules.md)
    lacks              what it does not implement, of "top_k_p" (logits
                       input by temperature only: the top-k and top-p cases
                       are left out) and "seeds" (no per-request seeds: no
                       sequence is seeded, the batch-composition and
                       seed-sensitivity probes are not run); what is left
                       out is named in the report's "checks not taken"
    drafts             "harness" (the default): the harness draws the drafts
                       from q and gives them in batch.draft_tokens; "own": the
                       sampler draws them itself from the draft rows (with
                       batch.draft_uniforms or its own noise) and returns
                       (tokens, accepted, drafts), judged on what it emits
                       (chain rule only; docs/python.md)
    """
    meta = {k: v for k, v in dict(name=name, description=description, inputs=tuple(inputs),
                                   layouts=tuple(layouts), tensors=tensors, device=device,
                                   bonus=bonus, max_batch=max_batch,
                                   max_bytes=max_bytes, rule=rule,
                                   lacks=tuple(lacks), drafts=drafts).items()
            if v is not None}

    def mark(f):
        f.__specverify__ = meta
        return f

    return mark(fn) if fn is not None else mark


def _options(**kw):
    """CLI options from keyword arguments: name=value -> --name value (None
    skipped, True a bare flag, lists repeated)."""
    out = []
    for key, value in kw.items():
        if value is None or value is False:
            continue
        flag = "--" + key.replace("_", "-")
        if value is True:
            out.append(flag)
        elif isinstance(value, (list, tuple)):
            for v in value:
                out += [flag, str(v)]
        else:
            out += [flag, str(value)]
    return out


def _sampler_args(sampler, config):
    spec = sampler_spec(sampler)
    if ":" not in spec:  # a built-in sampler, or one of a --plugin
        return ["--sampler", spec]
    args = ["--python", spec]
    if config:
        args += ["--python-config", json.dumps(config)]
    return args


def verify(sampler, suite=None, *, cases=None, draws=None, draws_scale=None, seed=1,
           alpha=1e-6, input=None, batch=None, threads=None, batches=None, seeding=None,
           config=None, in_process=False, call_timeout=None, rerun=True, plugin=None,
           echo=None, timeout=None, measure=False, sandbox=None, budget=None, tree=None,
           siblings=None, plot=None, dump_failing=None):
    """Verifies `sampler` and returns its Report (``report.assert_passed()``
    for pytest). The sampler is a module-level callable, "file.py:NAME",
    "module:NAME", or a built-in sampler's name ("ref").

    suite        "smoke", "ci" (the default), "full", "logits"
    cases        case specs instead of a suite ("zipf:V=1000,K=4")
    draws        draws per case (default: the suite's); with budget or
                 draws_scale, the most any case gets
    draws_scale  each case at this times its suite's draws (0.01: a hundredth
                 of each; verify --draws-scale): the suite's weighting kept, so
                 a large vocabulary's case stays as light beside the small ones
                 as the suite made it, where draws=N gives every case N
    budget       seconds the run may take (verify --budget): each case's draws
                 from a short probe of the sampler, what they detect printed first
    seed, alpha  the run's seed and family-wise false-alarm rate
    input        "probs", "logits-f32", "logits-bf16"
    batch        sequences per call (default 4096); threads: workers
    batches      "mixed" (default) or "uniform"; seeding: "mixed", "all", "none"
    config       keyword arguments for the sampler (a class is made with them)
    echo         pass the CLI's progress and table through to this process;
                 None (the default): inside a pytest test, the progress only,
                 so that the table's FAIL lines are not printed again beside
                 assert_passed()'s message (report.text keeps the table)
    budget       seconds the run may take (--budget): the harness sizes the
                 draws to fit
    timeout      seconds the whole call may take (None: no limit); past it the
                 CLI's process group is killed and SpecverifyError (exit_code
                 124) names the timeout; nothing a sampler leaves running can
                 hold the call past it
    sandbox      "auto" (default: every layer the machine allows), "strict" (the
                 environment error, exit 3, unless all of them) or "off"
                 (docs/isolation.md); the report's .json["sandbox"] names them
    measure      distances from p, TV and KL with 95% intervals (each Position's
                 .distance): for a lossy rule (typical acceptance) in place of
                 verdicts, report.passed then only saying the contract held; any
                 other rule keeps its verdicts, and report.passed means them
    tree         a tree rule's sampler: the tree's shape ("3x2x1", the default)
    siblings     and its sibling law, "iid" (the default) or "distinct"
    plot         a folder: for each failing or suspect position, a figure of
                 where its mass went (verify --plot; Report.plot() draws them
                 from any report afterwards)
    dump_failing a folder: the batch in which each case first broke the
                 contract, and the two batches of a batch-composition failure
                 (verify --dump-failing; each case's .replay_files names them,
                 and replay(FILE) gives the sampler that batch again)

    Raises SpecverifyError for bad arguments or input (exit 2), for the
    environment (exit 3) and past the timeout (124); a sampler that fails is
    a Report, not an error.
    """
    args = ["verify"] + _sampler_args(sampler, config)
    if plugin:
        args += _options(plugin=plugin if isinstance(plugin, (list, tuple)) else [plugin])
    if cases:
        args += _options(case=list(cases) if not isinstance(cases, str) else [cases])
    args += _options(suite=suite, draws=draws, draws_scale=draws_scale, seed=seed, alpha=alpha,
                     input=input, batch=batch, threads=threads, batches=batches, seeding=seeding,
                     call_timeout=call_timeout, in_process=in_process, no_rerun=not rerun,
                     measure=measure, sandbox=sandbox, budget=budget, tree=tree,
                     siblings=siblings, plot=plot, dump_failing=dump_failing)
    if echo is None:
        echo = "progress" if "PYTEST_CURRENT_TEST" in os.environ else True
    data, text, code, command = run(args, echo=echo, timeout=timeout)
    return Report(data, text, code, command)


class Replay:
    """`specverify replay FILE`: a failing batch given to the sampler again.
    .reproduced is True when the failure came back (exit 1), .text what the
    CLI printed, .exit_code its status, .json the replay's data, .batches its
    batches (each: size, layout, index, place, same_as_run, and the finding's
    sequence in the run and again: n and tokens)."""

    def __init__(self, data, text, exit_code, command):
        self.json = data or {}  # replay --json's (docs/formats.md#replay-json)
        self.text, self.exit_code, self.command = text, exit_code, command
        self.reproduced = exit_code == 1
        self.batches = self.json.get("batches", [])

    def __repr__(self):
        return "<Replay %s>" % ("reproduced" if self.reproduced else "not reproduced")


def replay(file, sampler=None, *, config=None, plugin=None, in_process=False,
           call_timeout=None, sandbox=None, echo=False, timeout=None):
    """Gives a sampler again the batch that verify(..., dump_failing=DIR)
    wrote to `file` (a Case's .replay_files), and says whether the failure
    comes back: a Replay. sampler: the file's (None, a built-in's or a
    plugin's) or another one, a module-level callable or "file.py:NAME", that
    takes the same batch. Raises SpecverifyError for a file that is no
    failing batch or no longer matches its cases (exit 2)."""
    args = ["replay", os.fspath(file)]
    if sampler is not None:
        args += _sampler_args(sampler, config)
    if plugin:
        args += _options(plugin=plugin if isinstance(plugin, (list, tuple)) else [plugin])
    args += _options(in_process=in_process, call_timeout=call_timeout, sandbox=sandbox)
    data, text, code, command = run(args, echo=echo, timeout=timeout)
    return Replay(data, text, code, command)


class PowerReport(str):
    """`verify --power`'s text (a str, as power() returned before), with its
    numbers as data: .power (P(the run catches the variant), None when no
    closed form), .cases (per case: name, draws, known, by_contract, power,
    draws_for_target, and per position N, w2, df, power, draws_for_target),
    .json (the whole of it; docs/formats.md)."""

    def __new__(cls, text, data):
        self = super().__new__(cls, text)
        self.json = data or {}
        self.power = self.json.get("power")
        self.cases = self.json.get("cases", [])
        return self


def power(variant, suite=None, *, cases=None, draws=None, alpha=1e-6, input=None, echo=False):
    """How likely a run is to catch a broken variant (`verify --power`),
    from its output distribution in closed form: a PowerReport, the CLI's
    text with the numbers as data."""
    args = ["verify", "--power", variant]
    if cases:
        args += _options(case=list(cases) if not isinstance(cases, str) else [cases])
    args += _options(suite=suite, draws=draws, alpha=alpha, input=input)
    data, text, _, _ = run(args, echo=echo)
    return PowerReport(text, data)


class MutantsTable:
    """`specverify mutants`: per broken variant, CAUGHT or MISSED and why.
    .rows: one dict a variant, from the table's JSON (docs/formats.md):
    variant, result, caught, hard, draws, power, draws_for_target, best_case,
    and checks (each check's min_p and failed)."""

    def __init__(self, text, rows, exit_code):
        self.text, self.rows, self.exit_code = text, rows, exit_code
        self.all_caught = exit_code == 0

    def result(self, variant):
        for r in self.rows:
            if r.get("variant") == variant:
                return r.get("result")
        raise KeyError(variant)

    def __repr__(self):
        return "<MutantsTable %d variants, %s>" % (
            len(self.rows), "all caught" if self.all_caught else "some missed")


def mutants(suite=None, *, variants=None, full=False, seed=None, alpha=None, threads=None,
            echo=True):
    """Runs the deliberately broken samplers through a suite: does the suite
    catch each bug class? Returns a MutantsTable."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="specverify-mutants-") as out:
        args = ["mutants"] + _options(suite=suite, full=full, seed=seed, alpha=alpha,
                                      threads=threads, out=out)
        if variants:
            args += ["--variants", ",".join(variants)]
        _, text, code, _ = run(args, echo=echo, json_report=False)
        rows = []
        for name in os.listdir(out):  # the table as data (docs/formats.md)
            if name.endswith(".json"):
                with open(os.path.join(out, name)) as f:
                    rows = json.load(f)["variants"]
        return MutantsTable(text, rows, code)
