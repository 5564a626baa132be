#!/usr/bin/env bash
# staging_gpu.sh: verify --device-staging against host staging on a GPU
# (issue 28), the whole path: the runner, the sampler's child (isolated) or
# the worker threads (--in-process), the shared counts. The same runs with
# and without the option must write the same JSON report but for the times
# (seconds, draws per second): every count, p-value and verdict. Cases, in
# uniform batches: a fixed-row case on 2 threads with a short last batch, a
# logits-bf16 case, and a Markov pair (staged on the host, which the run
# must say); in mixed batches (issue 40): three cases mixed, ragged, both
# layouts, on 2 threads. Stage for stage, token for token, is
# test_gpu_staging (test_emu_mixed_dstage on the emulator). Exits 77 (skipped) with the
# reason where there is no GPU.
# usage: staging_gpu.sh SPECVERIFY TEST_GPU SCRATCH_DIR
set -u
sv=$1 test_gpu=$2 dir=$3
"$test_gpu" --has-device || exit $? # 77 and the reason, without a GPU
mkdir -p "$dir"
failures=0
same() { # same NAME ARGS...: the reports with and without --device-staging agree
  local name=$1
  shift
  local args=(verify --sampler cuda_fused --no-rerun "$@")
  "$sv" "${args[@]}" --json "$dir/$name-host.json" >"$dir/$name-host.log" 2>&1
  local rc_host=$?
  "$sv" "${args[@]}" --device-staging --json "$dir/$name-device.json" \
    >"$dir/$name-device.log" 2>&1
  local rc_device=$?
  if [ "$rc_host" -gt 1 ] || [ "$rc_device" != "$rc_host" ]; then
    echo "FAIL: $name: exit $rc_host with host staging, $rc_device with device staging"
    tail -3 "$dir/$name-device.log"
    failures=$((failures + 1))
    return
  fi
  if python3 - "$dir/$name-host.json" "$dir/$name-device.json" <<'PY'
import json, sys
def strip(x):  # the times differ, nothing else may
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in ("seconds", "draws_per_second")}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x
a, b = (strip(json.load(open(p))) for p in sys.argv[1:3])
sys.exit(0 if a == b else 1)
PY
  then
    echo "PASS: $name: the same report (exit $rc_host)"
  else
    echo "FAIL: $name: the reports differ ($dir/$name-host.json, $dir/$name-device.json)"
    failures=$((failures + 1))
  fi
}
u=(--batches uniform)
same zipf-isolated "${u[@]}" --case 'zipf:V=1000,K=8' --draws 2000001 --batch 4096 --threads 2
same zipf-in-process "${u[@]}" --case 'zipf:V=1000,K=8' --draws 2000001 --batch 4096 \
  --threads 2 --in-process
same logits-bf16 "${u[@]}" --case 'logits:V=32000,K=4,T=0.8,topk=50,topp=0.9' \
  --input logits-bf16 --draws 200000
same markov "${u[@]}" --case 'markov:V=100,K=3' --draws 200000
same mixed --case 'zipf:V=1000,K=8' --case 'disjoint:V=1000,K=5' --case 'identical:V=1000,K=3' \
  --draws 300001 --batch 4096 --threads 2
if ! grep -q 'staged on the host' "$dir/markov-device.log"; then
  echo "FAIL: markov: device staging did not say the Markov pair was staged on the host"
  failures=$((failures + 1))
fi
exit $((failures > 0))
