#!/usr/bin/env python3
"""What the Python path costs: draws per second of a Python sampler through
specverify against the same function called on the same batches alone
(issue 26's target: within 20% at B = 4096).

  python3 experiments/python_overhead.py BUILD_DIR [OUT.md] [--draws N]

For each sampler (the numpy one and the vLLM-style torch one of
tests/python) and case, specverify runs the sampler under `timed` below,
which calls it and adds up the time spent inside it (perf_counter around
the call, in the sampler's own process). Then

  bare          = draws / time inside the function: the function in a bare
                  loop over exactly the batches the run gave it;
  specverify    = draws / the run's time (the JSON report's): drafting, the
                  batch's views, the call, the outputs checked and written
                  back, counting;
  ratio         = specverify / bare (1 is no overhead).

One harness thread, batches of 4096, no re-runs; isolated (the default) and
--in-process. torch runs with one thread either way (SV_TORCH_THREADS).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.abspath(os.path.join(HERE, "..", "tests", "python"))
SAMPLERS = [("numpy_chain.py", "numpy_chain"), ("vllm_style.py", "vllm_ok")]
CASES = ["seedlab:V=1000,K=5", "zipf:V=1000,K=8", "tail:V=32000,K=3"]


def timed(batch):
    """A stand-in sampler: the one in SV_TIMED_TARGET, its time added up in
    SV_TIMED_TO (seconds and sequences, rewritten after every call)."""
    global _seconds, _sequences
    t0 = time.perf_counter()
    out = _target(batch)
    _seconds += time.perf_counter() - t0
    _sequences += batch.B
    # one file a process: the probes of mixed batches run in processes of their own
    with open("%s.%d" % (os.environ["SV_TIMED_TO"], os.getpid()), "w") as f:
        f.write("%r %d\n" % (_seconds, _sequences))
    return out


_seconds, _sequences = 0.0, 0
if os.environ.get("SV_TIMED_TARGET"):  # in the sampler's process: be the target
    from specverify import _plugin

    _target, _ = _plugin._resolve(os.environ["SV_TIMED_TARGET"])
    timed.__specverify__ = dict(_target.__specverify__)
    if timed.__specverify__.get("tensors") == "torch":
        import torch

        torch.set_num_threads(int(os.environ.get("SV_TORCH_THREADS", "1")))


def run(cli, args, env):
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "r.json")
        spent = os.path.join(tmp, "spent")
        p = subprocess.run([cli, "verify"] + args + ["--json", report], capture_output=True,
                           text=True, env=dict(env, SV_TIMED_TO=spent))
        parts = [os.path.join(tmp, n) for n in os.listdir(tmp) if n.startswith("spent.")]
        if not os.path.exists(report) or not parts:
            sys.exit("specverify failed: %s" % p.stderr[-2000:])
        with open(report) as f:
            data = json.load(f)
        seconds = sequences = 0
        for part in parts:
            with open(part) as f:
                s, n = f.read().split()
            seconds, sequences = seconds + float(s), sequences + int(n)
    runs = [r for c in data["cases"] for r in c["runs"]]
    draws = sum(r["draws"] for r in runs)
    return draws / float(seconds), draws / sum(r["seconds"] for r in runs), int(sequences)


def _machine():
    model = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    u = os.uname()
    return "%s, %d cores, %s %s" % (model, os.cpu_count(), u.sysname, u.release)


def _commit():
    p = subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"],
                       capture_output=True, text=True)
    return p.stdout.strip() or "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("out", nargs="?")
    ap.add_argument("--draws", type=int, default=400_000)
    o = ap.parse_args()
    sys.path[:0] = [os.path.join(o.build, "python")]
    import specverify

    cli = specverify.executable()
    rows = []
    for file, name in SAMPLERS:
        spec = "%s:%s" % (os.path.join(TESTS, file), name)
        env = dict(os.environ, SV_TIMED_TARGET=spec,
                   PYTHONPATH=os.pathsep.join([TESTS, os.environ.get("PYTHONPATH", "")]))
        for case in CASES:
            common = ["--python", os.path.abspath(__file__) + ":timed", "--case", case,
                      "--draws", str(o.draws), "--batch", "4096", "--threads", "1",
                      "--no-rerun"]
            bare, isolated, calls = run(cli, common, env)
            bare_in, in_process, _ = run(cli, common + ["--in-process"], env)
            rows.append((name, case, bare, isolated, bare_in, in_process))
            print("%-12s %-20s bare %8.0f  isolated %8.0f (%.2f) | bare %8.0f  in-process "
                  "%8.0f (%.2f)" % (name, case, bare, isolated, isolated / bare, bare_in,
                                    in_process, in_process / bare_in), flush=True)
    if o.out:
        with open(o.out, "w") as f:
            f.write("# The Python path's cost: draws per second through specverify against "
                    "the function alone on the same batches\n\n")
            f.write("machine: %s; commit %s; %s\n\n" % (_machine(), _commit(),
                                                       time.strftime("%Y-%m-%d")))
            f.write("command: `python3 experiments/python_overhead.py build %s --draws %d`; "
                    "one harness thread, batches of 4096, torch on one thread\n\n"
                    % (o.out, o.draws))
            f.write("| sampler | case | bare (draws/s) | through specverify, isolated | ratio "
                    "| bare | through specverify, --in-process | ratio |\n")
            f.write("|---|---|---:|---:|---:|---:|---:|---:|\n")
            for n, c, bare, iso, bare_in, inp in rows:
                f.write("| %s | `%s` | %.0f | %.0f | %.2f | %.0f | %.0f | %.2f |\n"
                        % (n, c, bare, iso, iso / bare, bare_in, inp, inp / bare_in))


if __name__ == "__main__":
    main()
