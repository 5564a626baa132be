#!/usr/bin/env bash
# vllm_gpu.sh: vLLM v1's rejection_sample (its Triton kernels) through the
# Python door and the vLLM adapter, from the vLLM source in $SV_VLLM_DIR
# (tests/python/vllm_real.py), on the GPU: the ci suite at 20,000 draws a
# case (seed 1, family-wise false-alarm rate 1e-6; the draws
# tests/python/test_numpy.py explains), its draws per second in the log. A
# FAIL is a finding about vLLM (or the adapter's version of its signature)
# and fails the test. Exits 77 (skipped), saying why, without the source,
# or without a Python whose torch sees a GPU and has Triton
# ($SV_VLLM_PYTHON, else the first python3 on PATH).
# usage: vllm_gpu.sh SPECVERIFY SOURCE_DIR PACKAGE_DIR SCRATCH_DIR
# (PACKAGE_DIR: the build's folder holding the specverify package)
set -u
sv=$1 src=$2 pkg=$3 dir=$4
mkdir -p "$dir"
if [ -z "${SV_VLLM_DIR:-}" ] || [ ! -d "$SV_VLLM_DIR/vllm/v1/sample" ]; then
  echo "SKIPPED: vllm: set SV_VLLM_DIR to a folder holding vLLM's vllm package (a checkout;" \
    "ci/gpu-pack copies its Python files into build/vllm-src) to verify its rejection_sample"
  exit 77
fi
py=${SV_VLLM_PYTHON:-$(command -v python3)}
why=$("$py" -c '
import sys
try:
    import numpy, torch, triton
except ImportError as e:
    sys.exit("lacks %s" % e.name)
if not torch.cuda.is_available():
    sys.exit("has torch %s, which sees no GPU" % torch.__version__)
' 2>&1) || { echo "SKIPPED: vllm: $py $why (vLLM's kernels need torch with CUDA and Triton)"; exit 77; }
if ! SV_VLLM_DIR=$SV_VLLM_DIR PYTHONPATH="$pkg" "$py" -c \
  'import sys; sys.path.insert(0, sys.argv[1]); import vllm_real' "$src/tests/python" \
  >"$dir/import.log" 2>&1; then
  echo "FAIL: vLLM's rejection_sample does not import from $SV_VLLM_DIR under $py:"
  tail -5 "$dir/import.log"
  exit 1
fi
if SV_VLLM_DIR=$SV_VLLM_DIR "$sv" verify --python "$src/tests/python/vllm_real.py:vllm_real" \
  --python-exe "$py" --suite ci --draws 20000 --seed 1 --json "$dir/verify-vllm.json" \
  >"$dir/verify-vllm.log" 2>&1; then
  echo "PASS: vLLM's rejection_sample passes ci at 20000 draws a case:" \
    "$(grep -E '^[0-9]+ cases:' "$dir/verify-vllm.log")"
  exit 0
fi
echo "FAIL: vLLM's rejection_sample on ci (exit $?):"
grep -E '^(FAIL|SUSPECT)|cases:|specverify:' "$dir/verify-vllm.log" | head -20
exit 1
