#!/usr/bin/env bash
# tree_gpu.sh: the naive CUDA tree samplers judged by the statistics, on a
# GPU (issue 27): cuda_tree_naive with independent and with distinct
# siblings, and cuda_tree_target_only_naive, each on the smoke suite in
# fixed-row and Markov cases (tree 3x2x1, seed 1, the suite's family-wise
# false-alarm rate). Token for token against their twins is test_gpu_tree.
# Exits 77 (skipped) with the reason where there is no GPU.
# usage: tree_gpu.sh SPECVERIFY TEST_GPU SCRATCH_DIR
set -u
sv=$1 test_gpu=$2 dir=$3
"$test_gpu" --has-device || exit $? # 77 and the reason, without a GPU
mkdir -p "$dir"
failures=0
check() { # check NAME ARGS...: verify must pass
  local name=$1
  shift
  if "$sv" verify --suite smoke --batch 65536 --json "$dir/$name.json" "$@" >"$dir/$name.log" 2>&1
  then
    echo "PASS: $name: $(grep -E '^[0-9]+ cases:' "$dir/$name.log")"
  else
    echo "FAIL: $name (exit $?):"
    grep -E '^(FAIL|SUSPECT)|cases:|specverify:' "$dir/$name.log" | head -10
    failures=$((failures + 1))
  fi
}
check cuda_tree_naive-iid --sampler cuda_tree_naive --siblings iid
check cuda_tree_naive-distinct --sampler cuda_tree_naive --siblings distinct
check cuda_tree_target_only_naive --sampler cuda_tree_target_only_naive
check cuda_tree_naive-multidraft --sampler cuda_tree_naive --tree 4x1x1
exit $((failures > 0))
