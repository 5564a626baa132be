#!/usr/bin/env bash
# sglang_gpu.sh: SGLang's tree kernel (TreeSpeculativeSamplingTargetOnly)
# built into a plugin from the checkouts in $SV_SGLANG_DIR and
# $SV_SGLANG_FLASHINFER_DIR (tools/sglang_plugin.sh; a prebuilt
# $SV_SGLANG_PLUGIN is taken as it is), verified on the smoke suite as a
# tree of 3x2x1 with distinct siblings (SGLang's drafter takes a node's
# top-k children; family-wise false-alarm rate 1e-6, seed 1) and its draws
# per second beside cuda_tree_target_only_naive's on the same run. A FAIL is
# a finding about SGLang and fails the test. Exits 77 (skipped), saying why,
# without the checkouts, or without a GPU once it has shown that the plugin
# builds and loads.
# usage: sglang_gpu.sh SPECVERIFY TEST_GPU SOURCE_DIR SCRATCH_DIR
set -u
sv=$1 test_gpu=$2 src=$3 dir=$4
mkdir -p "$dir"
plugin=${SV_SGLANG_PLUGIN:-}
if [ -z "$plugin" ]; then
  if [ -z "${SV_SGLANG_DIR:-}" ] || [ -z "${SV_SGLANG_FLASHINFER_DIR:-}" ]; then
    echo "SKIPPED: sglang: set SV_SGLANG_DIR to an SGLang checkout and SV_SGLANG_FLASHINFER_DIR" \
      "to the FlashInfer commit its sgl-kernel/CMakeLists.txt pins, to build and verify its tree kernel"
    exit 77
  fi
  plugin=$dir/sglang_tree_plugin.so
  bash "$src/tools/sglang_plugin.sh" "$SV_SGLANG_DIR" "$SV_SGLANG_FLASHINFER_DIR" "$plugin" ||
    { echo "FAIL: the SGLang plugin did not build"; exit 1; }
fi
"$sv" list --plugin "$plugin" | grep -q '^  sglang_tree_target_only ' ||
  { echo "FAIL: $plugin does not offer sglang_tree_target_only"; exit 1; }
echo "PASS: $plugin loads: sglang_tree_target_only ($(cat "$plugin.txt" 2>/dev/null))"
"$test_gpu" --has-device || exit $? # 77 and the reason, without a GPU
failures=0
for s in sglang_tree_target_only cuda_tree_target_only_naive; do
  if "$sv" verify --plugin "$plugin" --sampler "$s" --suite smoke --tree 3x2x1 \
    --siblings distinct --batch 65536 --json "$dir/verify-$s.json" >"$dir/verify-$s.log" 2>&1; then
    echo "PASS: $s passes the tree smoke suite: $(grep -E '^[0-9]+ cases:' "$dir/verify-$s.log")"
  else
    echo "FAIL: $s on the tree smoke suite (exit $?):"
    grep -E '^(FAIL|SUSPECT)|cases:|specverify:' "$dir/verify-$s.log" | head -20
    failures=$((failures + 1))
  fi
done
exit $((failures > 0))
