"""Python samplers that misbehave are findings: the run fails (exit 1) and
the report names the sampler and says what went wrong, in Python's words
where Python raised; the harness itself never crashes or hangs. Load
errors are bad input (exit 2). Each run is one small case, one thread."""

import json
import os
import shlex
import subprocess
import sys

import pytest

import specverify

HERE = os.path.dirname(os.path.abspath(__file__))
BAD = os.path.join(HERE, "bad_samplers.py")
RUN = dict(cases=["zipf:V=50,K=2"], draws=4000, batch=1000, threads=1, echo=False,
           rerun=False)


def failed_with(name, words):
    r = specverify.verify("%s:%s" % (BAD, name), **RUN)
    assert r.exit_code == 1 and not r.passed, r.text
    text = r.explanation()
    assert words in text, text
    return r


@pytest.mark.parametrize("name, words", [
    ("raises", "sampler raises: verify of sequences 0..999 returned status 4 (EINTERNAL): "
               "ValueError: the rows do not sum to one, says the sampler (bad_samplers.py:"),
    ("wrong_shape", "returned tokens of shape (1000, 2); want (1000, 3)"),
    ("wrong_dtype", "returned tokens of dtype float32; want int32 or int64"),
    ("non_contiguous", "sampler non_contiguous: verify of sequences 0..999 returned status 4 "
                       "(EINTERNAL): returned non-contiguous tokens"),
    ("returns_list", "returned a list of 1000 items; want tokens or (tokens, accepted)"),
    ("returns_none", "returned None; want tokens [B][K+1] or (tokens, accepted)"),
    ("sys_exit", "SystemExit: 3 (bad_samplers.py:"),
    ("writes_rows_numpy", "ValueError: assignment destination is read-only"),
    ("ignores_bonus", "accepted all 2 drafts, then emitted"),
    # int64 values beyond int32, reported as returned (it said "token 2147483647")
    # named as the sampler saw them: its index in the batch and its seed
    ("wide_token", "request 500 of the batch (seed 1): position 1 emitted token 4294967296 "
                   "outside [0, 50)"),
    ("wide_accepted", "request 3 of the batch (seed 3306821796323449745): accepted count "
                      "-1099511627776 outside [0, 2]"),
    ("exits", "sampler exits exited (exit status 0; a sampler must return, not exit)"),
])
def test_misbehaving_sampler_is_a_finding(name, words):
    failed_with(name, words)


@pytest.mark.parametrize("fork", ["1", "0"])
@pytest.mark.parametrize("in_process", [False, True])
def test_a_crashed_interpreter_is_a_finding_and_the_runs_go_on(monkeypatch, fork, in_process):
    # its end is the plugin's, as the fork server tells it or as the plugin
    # waits for its own; under --in-process the guard survives the signal
    # raised again, and the probes' runs start another interpreter instead of
    # waiting for the dead one's lock (they hung until --call-timeout)
    monkeypatch.setenv("SV_PYTHON_FORK", fork)
    r = specverify.verify("%s:segfaults" % BAD, **dict(RUN, in_process=in_process, timeout=120))
    assert r.exit_code == 1, r.text
    words = "sampler segfaults crashed with SIGSEGV (segmentation fault"
    text = r.explanation()
    assert words in text, text
    assert "probe of mixed batches: " + words in text, text


@pytest.mark.parametrize("name, words", [
    ("wrong_device", "returned tokens on meta, but the sampler runs on cpu"),
    ("torch_non_contiguous", "returned non-contiguous tokens (strides (1, 1000))"),
    # torch writes through a read-only view into the copy its interpreter was
    # handed: the plugin compares the copy with the harness's rows after the call
    ("writes_rows", "(EINTERNAL): modified its input rows (target row 0 of the batch's rows"),
])
def test_misbehaving_torch_sampler_is_a_finding(name, words):
    pytest.importorskip("torch")
    failed_with(name, words)


def test_declared_batch_is_kept():
    """max_batch=100: the glue splits the harness's batches of 1000 (the
    sampler asserts it); its outputs are otherwise wrong, so the case
    fails on the distribution, not on the assertion."""
    r = specverify.verify("%s:small_batches" % BAD, **RUN)
    assert "given" not in r.explanation() and "EINTERNAL" not in r.text
    assert "emitted" in r.explanation()


def test_configuration_reaches_the_sampler():
    bad = specverify.verify("%s:Configured" % BAD, config={"answer": 41}, **RUN)
    assert bad.exit_code == 1  # init raised: the run fails, never passes, and says why
    assert "init failed with status 4 (EINTERNAL): TypeError: want answer=42, got 41" in bad.text
    r = specverify.verify("%s:Configured" % BAD, config={"answer": 42}, **RUN)
    assert "EINTERNAL" not in r.text and "init failed" not in r.text
    assert r.sampler == "configured"


def test_run_it_alone_keeps_config_and_interpreter():
    """The FAIL's command that runs the case alone names the run's
    --python-config and its interpreter (the API's own, which
    SPECVERIFY_PYTHON named, not PATH): run as printed, without
    SPECVERIFY_PYTHON, it fails the same way. It once dropped both: the
    class then ran without its keyword arguments, and its init failed."""
    r = specverify.verify("%s:Configured" % BAD, config={"answer": 42}, **RUN)
    assert r.exit_code == 1 and "init failed" not in r.text, r.text
    line = [l for l in r.text.splitlines() if ": to run it alone: " in l][0]
    cmd = shlex.split(line.split(": to run it alone: ", 1)[1])
    assert cmd[cmd.index("--python-config") + 1] == '{"answer": 42}', cmd
    assert cmd[cmd.index("--python-exe") + 1] == sys.executable, cmd
    env = specverify._run.python_env()
    env.pop("SPECVERIFY_PYTHON")
    again = subprocess.run([specverify.executable()] + cmd[1:], env=env, capture_output=True,
                           text=True, timeout=300)
    assert again.returncode == 1, again.stdout + again.stderr
    assert "init failed" not in again.stdout and "emitted" in again.stdout, again.stdout


@pytest.mark.parametrize("spec, words", [
    ("%s:bad_name" % BAD, "its name 'Bad-Name' is not 1 to 64 of a-z, 0-9 and _"),
    ("%s:no_such_function" % BAD, "has no 'no_such_function'"),
    ("%s:unknown_rule" % BAD, "rule 'lookahead' is not one of chain, exact_match, block, typical, tree, tree_target_only"),
    (os.path.join(HERE, "no_such_file.py") + ":f", "no such file"),
    ("no_such_module_here:f", "ModuleNotFoundError: No module named 'no_such_module_here'"),
])
def test_a_sampler_that_cannot_load_is_bad_input(spec, words):
    with pytest.raises(specverify.SpecverifyError) as e:
        specverify.verify(spec, **RUN)
    assert e.value.exit_code == 2 and words in str(e.value), str(e.value)


def test_a_lambda_is_refused_with_what_to_do():
    with pytest.raises(specverify.SpecverifyError) as e:
        specverify.verify(lambda batch: None, **RUN)
    assert "define it at module level" in str(e.value)


def cli(*args, env=None):
    p = subprocess.run([specverify.executable()] + list(args), capture_output=True, text=True,
                       env=env)
    return p.returncode, p.stdout, p.stderr


def _no_leak_check():
    """The environment, with LeakSanitizer's check at exit off (ci/sanitize):
    torch imported in process leaves its module's C++ objects, whose stacks
    (two frames: malloc, operator new) no suppression can name."""
    env = dict(os.environ)
    if "ASAN_OPTIONS" in env:
        env["ASAN_OPTIONS"] += ":detect_leaks=0"
    return env


def _has_cuda():
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


@pytest.mark.skipif(_has_cuda(), reason="this machine has a CUDA device")
def test_cuda_sampler_without_a_gpu_is_the_environment():
    """device="cuda" on a machine without a GPU is the environment's failure
    (exit 3), as a C CUDA sampler's is, not a FAIL of the sampler (exit 1)."""
    with pytest.raises(specverify.SpecverifyError) as e:
        specverify.verify("%s:needs_cuda" % BAD, **RUN)
    assert e.value.exit_code == 3, str(e.value)
    assert "the sampler declares device='cuda', and no CUDA device is available" in str(e.value)
    code, out, err = cli("verify", "--python", BAD + ":needs_cuda", "--case", "zipf:V=50,K=2",
                         "--draws", "2000", "--threads", "2", "--in-process",
                         env=_no_leak_check())
    assert code == 3 and "no CUDA device is available" in err, out + err


def test_cli_python_flags():
    code, out, err = cli("list", "--python", BAD + ":raises", "--python", BAD + ":not_marked")
    assert code == 0 and "raises" in out and "not_marked" in out and "[python numpy" in out
    code, out, err = cli("verify", "--python", BAD + ":Configured", "--python-config",
                         json.dumps({"answer": 42}), "--case", "zipf:V=50,K=2",
                         "--draws", "2000", "--threads", "1")
    assert "sampler configured" in out or "configured" in out, out + err
    code, _, err = cli("verify", "--python", "no_colon_here")
    assert code == 2 and "is not FILE.py:NAME or MODULE:NAME" in err
    code, _, err = cli("verify", "--python", BAD + ":raises", "--python-config", "[1, 2]")
    assert code == 2 and "is not a JSON object" in err
    code, _, err = cli("verify", "--python-config", "{}")
    assert code == 2 and "--python-config without --python" in err
