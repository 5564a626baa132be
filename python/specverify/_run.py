"""Running the specverify CLI for the Python API.

The statistics, drafting, suites and reports are the C harness's; Python
reaches them through the CLI and its JSON report, both versioned and
documented (docs/python.md says why this and not a library binding). A
Python sampler runs in an interpreter process under the CLI's isolated
child (this one, sys.executable, by default; python/plugin/sv_python.c):
the caller's process never forks with torch's threads alive, and a
sampler's crash is a finding, not the end of pytest.
"""

import inspect
import json
import os
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time

from . import _paths


class SpecverifyError(Exception):
    """The run could not be made: bad arguments or input (exit 2), or the
    environment (exit 3), the message the CLI's; or it ran past the Python
    API's timeout (exit_code 124, the message naming it)."""

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
    """The environment of the CLI: the sampler runs in this interpreter
    (SPECVERIFY_PYTHON, unless the caller set one), with this process's
    sys.path on PYTHONPATH, so it sees the packages the caller sees (a
    conftest's additions too)."""
    env = dict(os.environ)
    env.setdefault("SPECVERIFY_PYTHON", sys.executable)
    if os.path.realpath(env["SPECVERIFY_PYTHON"]) == os.path.realpath(sys.executable):
        # not the standard library: the interpreter finds its own
        std = {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib")}
        std |= {os.path.join(d, "lib-dynload") for d in set(std)}
        paths = [p for p in sys.path
                 if p and os.path.isdir(p) and os.path.abspath(p) not in std]
        old = env.get("PYTHONPATH")
        env["PYTHONPATH"] = os.pathsep.join(paths + ([old] if old else []))
    return env


def _kill_group(proc):
    """Kills the CLI's process group (its own session): the CLI and whatever
    it started that stayed in it; waits (2 s at most) until they are gone."""
    end = time.monotonic() + 2.0
    try:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        while time.monotonic() < end:
            os.killpg(proc.pid, 0)  # ProcessLookupError once the group is empty
            time.sleep(0.01)
    except (ProcessLookupError, PermissionError):
        pass


def _wait(proc, err_file, deadline, echo):
    """The CLI's exit status, passing its progress (stderr, a file) through
    as it grows when echo; None once the deadline (monotonic) passes."""
    while True:
        code = proc.poll()
        chunk = err_file.read()
        if echo and chunk:
            sys.stderr.write(chunk)
            sys.stderr.flush()
        if code is not None:
            return code
        if deadline is not None and time.monotonic() >= deadline:
            return None
        time.sleep(0.05)


def run(args, echo=True, timeout=None, json_report=True, cwd=None):
    """Runs `specverify ARGS` (with --json to a file of its own when
    json_report); (data or None, stdout text, exit code, command). Progress
    (stderr) is passed through when echo, the text (stdout) too unless echo
    is "progress".

    timeout (seconds) bounds the whole call: the CLI writes to files, not
    pipes, so nothing its sampler leaves running (a daemon holding its
    stdout) can block a read; it runs in a session of its own, and past the
    timeout its whole process group is killed and SpecverifyError (exit_code
    124) says so."""
    with tempfile.TemporaryDirectory(prefix="specverify-") as tmp:
        report = os.path.join(tmp, "report.json")
        command = [executable()] + list(args) + (["--json", report] if json_report else [])
        out_path, err_path = os.path.join(tmp, "stdout"), os.path.join(tmp, "stderr")
        deadline = None if timeout is None else time.monotonic() + timeout
        with open(out_path, "w") as out_w, open(err_path, "w") as err_w, \
                open(err_path, errors="replace") as err_r:
            proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out_w,
                                    stderr=err_w, env=python_env(), cwd=cwd,
                                    start_new_session=True)
            try:
                code = _wait(proc, err_r, deadline, echo)
            except BaseException:  # KeyboardInterrupt: the CLI must not outlive us
                _kill_group(proc)
                raise
            _kill_group(proc)  # what the CLI left in its group dies with the call
            if code is None:
                raise SpecverifyError(
                    "specverify: the run took longer than timeout=%g s and was stopped (the "
                    "CLI and everything in its process group killed)" % timeout, 124, command)
        with open(out_path, errors="replace") as f:
            out = f.read()
        with open(err_path, errors="replace") as f:
            err = f.read()
        if echo and echo != "progress" and out:
            sys.stdout.write(out)
        data = None
        for path in (report, report + ".partial"):
            if os.path.exists(path):
                with open(path) as f:
                    data = json.load(f)
                break
        if code in (2, 3) or (json_report and data is None and code != 0):
            message = err.strip() or out.strip() or "exit status %d" % code
            raise SpecverifyError(message, code, command)
        return data, out, code, command
