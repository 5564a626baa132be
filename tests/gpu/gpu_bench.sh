#!/usr/bin/env bash
# gpu_bench.sh: specverify bench end to end on a GPU: every point of a small
# sweep timed, in hot, cold and graph modes, with probability and logits
# input, and the HDF5 and Markdown files written. Exits 77 (skipped) with the reason where there is no GPU.
# usage: gpu_bench.sh SPECVERIFY TEST_GPU SCRATCH_DIR
set -u
sv=$1
test_gpu=$2
dir=$3
"$test_gpu" --has-device || exit $?   # 77 and the reason, without a GPU
mkdir -p "$dir"
rm -f "$dir"/bench.h5 "$dir"/bench.md
failures=0
run() {
  echo "+ specverify $*"
  if ! "$sv" "$@"; then
    echo "FAIL: specverify $*"
    failures=$((failures + 1))
  fi
}
run bench --sampler cuda_fused,cuda_naive --B 1,8 --K 3 --V 1000,4099 --accept-rate 0,0.7,1 \
  --time-limit 0.2 --out "$dir/bench.h5"
run bench --sampler cuda_fused --B 4 --K 2 --V 32000 --cold --time-limit 0.2
# cold with graphs: B = 1 reads about 0.3 MB a step, so many copies and graphs
rm -f "$dir"/bench-cold.h5 "$dir"/bench-cold.md
run bench --sampler cuda_fused --B 1 --K 5 --V 32000 --cold --graph --time-limit 0.2 \
  --out "$dir/bench-cold.h5"
if ! grep -q 'rotated through [0-9][0-9]* copies' "$dir/bench-cold.md" 2>/dev/null; then
  echo "FAIL: bench-cold.md does not say how many copies the cold point rotated through"
  failures=$((failures + 1))
fi
run bench --sampler cuda_fused,cuda_naive --B 1 --K 5 --V 32000 --graph --time-limit 0.2
# logits input (cuda_fused): plain temperature at two sizes, cuts in bf16, a graph
rm -f "$dir"/bench-logits.h5 "$dir"/bench-logits.md
run bench --input logits-f32 --B 1,8 --K 3 --V 1000,4099 --time-limit 0.2 \
  --out "$dir/bench-logits.h5"
run bench --input logits-bf16 --B 4 --K 2 --V 32000 --T 0.7 --top-k 50 --top-p 0.9 \
  --time-limit 0.2
run bench --input logits-bf16 --B 1 --K 5 --V 32000 --graph --time-limit 0.2
rows=$(grep -c '^| cuda_fused .* | logits-f32 |$' "$dir/bench-logits.md" 2>/dev/null || echo 0)
if [ "$rows" -ne 4 ] || [ ! -s "$dir/bench-logits.h5" ]; then
  echo "FAIL: bench-logits.md has $rows logits-f32 rows (wanted 4), or bench-logits.h5 is missing"
  failures=$((failures + 1))
fi
# 2 samplers x 2 B x 2 V x 3 rates = 24 rows in the table, and the HDF5 file
rows=$(grep -c '^| cuda_' "$dir/bench.md" 2>/dev/null || echo 0)
if [ "$rows" -ne 24 ] || [ ! -s "$dir/bench.h5" ]; then
  echo "FAIL: bench.md has $rows point rows (wanted 24), or bench.h5 is missing"
  failures=$((failures + 1))
fi
# acceptance rate 1: every draft accepted, measured exactly
if ! grep -q '| 1.00 / 1.000 |' "$dir/bench.md"; then
  echo "FAIL: no point with measured acceptance 1.000 at rate 1"
  failures=$((failures + 1))
fi
echo "$failures failed"
[ "$failures" -eq 0 ]
