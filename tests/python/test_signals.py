"""The sampler's interpreter leaves SIGINT and SIGTERM to the harness: Ctrl-C
during a Python sampler's run stops it after the batch it lands in, writes
what finished (FILE.partial, marked partial) and exits 130, in the sampler's
own process and with --in-process (where the plugin's interpreter is the
harness's child, in its process group, and ignores both)."""

import json
import os
import signal
import subprocess
import time

import pytest

import specverify

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.mark.parametrize("mode", [[], ["--in-process"]])
def test_sigint_stops_a_python_run_cleanly(tmp_path, mode):
    report = tmp_path / "r.json"
    p = subprocess.Popen([specverify.executable(), "verify", "--python",
                          os.path.join(HERE, "numpy_chain.py") + ":numpy_chain",
                          "--case", "seedlab:V=1000,K=5", "--draws", "50000000",
                          "--threads", "1", "--json", str(report)] + mode,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(4)  # the run is under way: Python started, batches verified
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 130, (out, err)
    partial = json.loads((tmp_path / "r.json.partial").read_text())
    assert partial["summary"]["partial"] is True
    assert 0 < partial["summary"]["draws"] < 50_000_000
    assert "interrupted by SIGINT" in err


@pytest.mark.parametrize("mode", [[], ["--in-process"]])
@pytest.mark.parametrize("sig,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_to_the_process_group_is_the_harness_s(tmp_path, mode, sig, code):
    # Ctrl-C at a terminal (or a CI runner's kill) signals the whole process
    # group, the sampler's interpreter included: the harness decides when to
    # stop, so the sampler must not see a KeyboardInterrupt (a false FAIL).
    report = tmp_path / "r.json"
    p = subprocess.Popen([specverify.executable(), "verify", "--python",
                          os.path.join(HERE, "numpy_chain.py") + ":numpy_chain",
                          "--case", "seedlab:V=1000,K=5", "--draws", "50000000",
                          "--threads", "1", "--json", str(report)] + mode,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    time.sleep(4)  # the run is under way: the interpreter started, batches verified
    os.killpg(p.pid, sig)
    out, err = p.communicate(timeout=120)
    assert p.returncode == code, (out, err)
    partial = json.loads((tmp_path / "r.json.partial").read_text())
    assert partial["summary"]["partial"] is True
    assert partial["summary"]["failed"] == 0, out
    assert "KeyboardInterrupt" not in out + err
    assert "interrupted by %s" % signal.Signals(sig).name in err
