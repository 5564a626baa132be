"""Running the specverify CLI for the Python API.

The statistics, drafting, suites and reports are the C harness's; Python
reaches them through the CLI and its JSON report, both versioned and
documented (docs/python.md says why this and not a library binding). A
Python sampler runs inside the CLI's isolated child, which embeds CPython
(python/plugin/sv_python.c): the caller's process never forks with torch's
threads alive, and a sampler's crash is a finding, not the end of pytest.
"""

import inspect
import json
import os
import subprocess
import sys
import sysconfig
import tempfile
import threading

from . import _paths


class SpecverifyError(Exception):
    """The run could not be made: bad arguments or input (exit 2), or the
    environment (exit 3); the message is the CLI's."""

    def __init__(self, message, exit_code, command):
        super().__init__(message)
        self.exit_code = exit_code
        self.command = command


def executable():
    """The specverify CLI: $SPECVERIFY, else the one this package was built
    or installed with."""
    exe = os.environ.get("SPECVERIFY") or _paths.EXECUTABLE
    if not os.path.isfile(exe):
        raise SpecverifyError("specverify's CLI is not at %s (set SPECVERIFY to its path)"
                              % exe, 3, [exe])
    return exe


def sampler_spec(sampler):
    """'FILE.py:QUALNAME' for a callable defined at module level; a string is
    taken as it is (a spec, or with no ':' a built-in sampler's name)."""
    if isinstance(sampler, str):
        return sampler
    target = inspect.unwrap(sampler) if callable(sampler) else None
    qualname = getattr(target, "__qualname__", None)
    if target is None or not qualname or "<" in qualname:
        raise SpecverifyError(
            "sampler %r: the sampler runs in a process of its own, which imports it by name; "
            "define it at module level (not a lambda or a nested function), or pass "
            "'path/file.py:NAME'" % (sampler,), 2, [])
    module = sys.modules.get(getattr(target, "__module__", None))
    path = getattr(module, "__file__", None)
    if not path:
        raise SpecverifyError("sampler %s: its module has no file to import it from; pass "
                              "'path/file.py:NAME'" % qualname, 2, [])
    # the name it is bound to there (an adapter's sampler is not its function's name)
    if getattr(module, qualname, None) not in (sampler, target):
        bound = [k for k, v in vars(module).items() if v is sampler or v is target]
        if not bound:
            raise SpecverifyError("sampler %s: not found by name in %s; bind it to a "
                                  "module-level name there" % (qualname, path), 2, [])
        qualname = bound[0]
    return "%s:%s" % (os.path.abspath(path), qualname)


def python_env():
    """The environment of the CLI: this interpreter's sys.path on
    PYTHONPATH when the embedded Python is the same version, so the sampler
    sees the packages the caller sees."""
    env = dict(os.environ)
    if sys.version_info[:2] == tuple(_paths.EMBEDDED_PYTHON):
        # not this interpreter's standard library: the embedded one has its own
        std = {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib")}
        std |= {os.path.join(d, "lib-dynload") for d in set(std)}
        paths = [p for p in sys.path
                 if p and os.path.isdir(p) and os.path.abspath(p) not in std]
        old = env.get("PYTHONPATH")
        env["PYTHONPATH"] = os.pathsep.join(paths + ([old] if old else []))
    return env


def run(args, echo=True, timeout=None, json_report=True, cwd=None):
    """Runs `specverify ARGS` (with --json to a file of its own when
    json_report); (data or None, stdout text, exit code, command). Progress
    (stderr) is passed through when echo."""
    with tempfile.TemporaryDirectory(prefix="specverify-") as tmp:
        report = os.path.join(tmp, "report.json")
        command = [executable()] + list(args) + (["--json", report] if json_report else [])
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env=python_env(), cwd=cwd)
        err_lines, out_parts = [], []
        # stdout drains on a thread of its own: a full pipe would stall the CLI
        reader = threading.Thread(target=lambda: out_parts.append(proc.stdout.read()))
        reader.start()
        try:
            for line in proc.stderr:
                err_lines.append(line)
                if echo:
                    sys.stderr.write(line)
            code = proc.wait(timeout=timeout)
            reader.join()
            out = "".join(out_parts)
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        if echo and out:
            sys.stdout.write(out)
        data = None
        for path in (report, report + ".partial"):
            if os.path.exists(path):
                with open(path) as f:
                    data = json.load(f)
                break
        if code in (2, 3) or (json_report and data is None and code != 0):
            message = "".join(err_lines).strip() or out.strip() or "exit status %d" % code
            raise SpecverifyError(message, code, command)
        return data, out, code, command
