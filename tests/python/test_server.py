"""The fork server (specverify/_server.py, harness/cli/python_server.c):
a Python sampler's interpreter and imports start once a command, and each
run of the sampler's process is a fork of it, which begins from the state
the imports left (its process-wide generators seeded afresh). Where a fork
would not be a clean copy (a thread started at import, a random generator
made at import), each run starts an interpreter of its own again, and the
report's header says why. SV_PYTHON_FORK=0 turns it off."""

import json
import os
import subprocess

import pytest

from specverify._run import executable, python_env

HERE = os.path.dirname(os.path.abspath(__file__))
COUNTED = os.path.join(HERE, "starts_counted.py") + ":starts_counted"
STATES = os.path.join(HERE, "server_states.py")


def _verify(tmp_path, spec, env, marker):
    """verify --suite smoke at 2000 draws a case: (exit status, the report's
    "python" object, how many times stderr says marker)."""
    report = tmp_path / "report.json"
    run_env = python_env()
    run_env.update(env)
    if env.get("SV_PYTHON_FORK") is None:
        run_env.pop("SV_PYTHON_FORK", None)
    r = subprocess.run([executable(), "verify", "--python", spec, "--suite", "smoke",
                        "--draws", "2000", "--json", str(report)],
                       env={k: v for k, v in run_env.items() if v is not None},
                       capture_output=True, text=True, timeout=600)
    data = json.loads(report.read_text()) if report.exists() else {}
    return r.returncode, data.get("python", {}), r.stderr.count(marker)


def test_one_interpreter_serves_every_run(tmp_path):
    # smoke without the server: the load, then a mix and its three probes a
    # vocabulary and a run a Markov pair, each an interpreter started
    marker = "starts_counted: a process started"
    rc, py, fresh = _verify(tmp_path, COUNTED, {"SV_PYTHON_FORK": "0"}, marker)
    assert rc == 0 and fresh >= 10
    assert py["start"] == "started for each run (SV_PYTHON_FORK=0)"
    rc, py, served = _verify(tmp_path, COUNTED, {}, marker)
    assert rc == 0 and served == 1
    assert py["start"] == "imported once; each run a fork of that process"


def test_runs_do_not_share_state(tmp_path):
    # own_state fails a run whose module state another process changed
    rc, py, _ = _verify(tmp_path, STATES + ":own_state", {}, "")
    assert rc == 0
    assert py["start"] == "imported once; each run a fork of that process"


@pytest.mark.parametrize("env, why", [
    ("SV_TEST_THREAD_AT_IMPORT", "the imports started threads"),
    ("SV_TEST_GENERATOR_AT_IMPORT", "the imports made a random generator, rng in server_states.py"),
])
def test_what_a_fork_cannot_copy_starts_each_run_afresh(tmp_path, env, why):
    marker = "server_states: a process started"
    rc, py, starts = _verify(tmp_path, STATES + ":threaded_at_import", {env: "1"}, marker)
    assert rc == 0 and starts >= 10
    assert py["start"] == "started for each run (%s)" % why


def test_a_wedged_server_costs_seconds_not_the_run(tmp_path):
    # the server's fork hangs (server_states.py): the load's request gives up
    # after 20 s and starts an interpreter, the state asked after the load
    # gets no answer in 30 s and the server is stopped, and every run after
    # starts its own; the verdict is the sampler's as ever
    marker = "server_states: a process started"
    run_env = python_env()
    run_env.pop("SV_PYTHON_FORK", None)
    run_env["SV_TEST_FORK_HANGS"] = "1"
    report = tmp_path / "report.json"
    r = subprocess.run([executable(), "verify", "--python", STATES + ":threaded_at_import",
                        "--suite", "smoke", "--draws", "2000", "--json", str(report)],
                       env=run_env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "the Python fork server did not answer in 20 s" in r.stderr
    assert json.loads(report.read_text())["python"]["start"] == \
        "started for each run (the fork server did not answer)"
    assert r.stderr.count(marker) >= 10
