"""Embedding Python leaves SIGINT to the harness: Ctrl-C during a Python
sampler's run stops it after the batch it lands in, writes what finished
(FILE.partial, marked partial) and exits 130, in the sampler's own process
and with --in-process (where the plugin starts Python inside the harness,
without Python's signal handlers)."""

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
