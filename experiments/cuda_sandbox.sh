#!/usr/bin/env bash
# cuda_sandbox.sh [BUILD]: on a GPU machine, which of the sampler's sandbox
# layers (docs/isolation.md) keep CUDA's driver from starting. Two parts:
#   - what the layers do, taken one at a time on the machine's python3 with
#     torch (not dumpable, no_new_privs, HOME and TMPDIR moved, its own
#     session, a new PID namespace with and without a /proc of its own);
#   - `verify --sampler cuda_fused --suite smoke` with each set of layers in
#     SPECVERIFY_SANDBOX_DENY turned off, its exit status and the header's
#     sandbox line.
# On the H200 of results/gpu/NVIDIA_H200/7e77c08/ both a PID namespace
# (whose /proc is the host's) and Landlock stopped it, each on its own.
#   usage, on the device after `bash ci/gpu-pack` here:
#     SV_PREBUILT=1 bash experiments/cuda_sandbox.sh build > OUT/cuda-sandbox.txt
set -u
build=${1:-build}
export LD_LIBRARY_PATH="$build/runtime-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
sv=$build/specverify
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
py='import torch; torch.cuda.init(); print("cuda devices", torch.cuda.device_count())'
row() { # NAME COMMAND...: its last line and exit status
  local name=$1 out rc
  shift
  out=$(timeout 60 "$@" 2>&1)
  rc=$?
  printf '| %s | %s | %s |\n' "$name" "$rc" "$(tail -1 <<<"$out" | cut -c1-160 | tr '|' '/')"
}
echo "machine: $(uname -sr); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1); $(id -un)"
echo
echo "| python3 with torch, CUDA started after | exit | last line |"
echo "|---|---|---|"
if python3 -c 'import torch' 2>/dev/null; then
  row "nothing" python3 -c "$py"
  row "not dumpable (PR_SET_DUMPABLE 0)" python3 -c "import ctypes; ctypes.CDLL(None).prctl(4, 0, 0, 0, 0); $py"
  row "no_new_privs" python3 -c "import ctypes; ctypes.CDLL(None).prctl(38, 1, 0, 0, 0); $py"
  row "HOME, TMPDIR, XDG_CACHE_HOME in a scratch folder" \
    env HOME="$scratch" TMPDIR="$scratch" XDG_CACHE_HOME="$scratch" python3 -c "$py"
  row "a session of its own (setsid)" setsid -w python3 -c "$py"
  row "a new PID namespace, the host's /proc" unshare --pid --fork python3 -c "$py"
  row "a new PID namespace, a /proc of its own" unshare --pid --fork --mount-proc python3 -c "$py"
else
  echo "| (no python3 with torch here) | - | - |"
fi
echo
echo "| SPECVERIFY_SANDBOX_DENY | exit | sandbox line, or the error |"
echo "|---|---|---|"
for deny in none nodump nopriv seccomp pidns landlock watch "pidns watch" "pidns watch seccomp" \
  "pidns watch nopriv" "pidns watch landlock" "nodump nopriv seccomp pidns landlock watch"; do
  out=$(SPECVERIFY_SANDBOX_DENY="$deny" timeout 60 "$sv" verify --sampler cuda_fused \
    --suite smoke --draws 20000 2>&1)
  rc=$?
  line=$(grep -m1 -E '^sandbox:|needs a CUDA device' <<<"$out" | cut -c1-160 | tr '|' '/')
  printf '| %s | %s | %s |\n' "$deny" "$rc" "$line"
done
