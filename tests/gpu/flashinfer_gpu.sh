#!/usr/bin/env bash
# flashinfer_gpu.sh: FlashInfer's chain speculative sampling kernel, side by
# side with cuda_fused: built into a plugin from the checkout in
# $SV_FLASHINFER_DIR (tools/flashinfer_plugin.sh; a prebuilt
# $SV_FLASHINFER_PLUGIN is taken as it is), verified on the ci suite
# (family-wise false-alarm rate 1e-6, seed 1) and timed by `specverify bench`
# beside cuda_fused in one run (B 1, 64, 256; K 5; V 128256; accept 0.7; hot
# and cold). A FAIL is a finding about FlashInfer and fails the test.
# Exits 77 (skipped), saying why, without a checkout, or without a GPU once
# it has shown that the plugin builds.
# usage: flashinfer_gpu.sh SPECVERIFY TEST_GPU SOURCE_DIR SCRATCH_DIR
set -u
sv=$1 test_gpu=$2 src=$3 dir=$4
mkdir -p "$dir"
plugin=${SV_FLASHINFER_PLUGIN:-}
if [ -z "$plugin" ]; then
  if [ -z "${SV_FLASHINFER_DIR:-}" ]; then
    echo "SKIPPED: flashinfer: set SV_FLASHINFER_DIR to a FlashInfer checkout (tag v0.6.17:" \
      "git clone --branch v0.6.17 https://github.com/flashinfer-ai/flashinfer) to build and verify it"
    exit 77
  fi
  plugin=$dir/flashinfer_plugin.so
  bash "$src/tools/flashinfer_plugin.sh" "$SV_FLASHINFER_DIR" "$plugin" ||
    { echo "FAIL: the FlashInfer plugin did not build"; exit 1; }
fi
"$sv" list --plugin "$plugin" | grep -q '^  flashinfer_chain ' ||
  { echo "FAIL: $plugin does not offer flashinfer_chain"; exit 1; }
echo "PASS: $plugin loads: flashinfer_chain ($(cat "$plugin.txt" 2>/dev/null))"
"$test_gpu" --has-device || exit $? # 77 and the reason, without a GPU
failures=0
if "$sv" verify --plugin "$plugin" --sampler flashinfer_chain --suite ci --batch 65536 \
  --json "$dir/verify-flashinfer-ci.json" >"$dir/verify-flashinfer-ci.log" 2>&1; then
  echo "PASS: flashinfer_chain passes the ci suite"
else
  echo "FAIL: flashinfer_chain on the ci suite (exit $?):"
  grep -E '^(FAIL|SUSPECT)|cases:' "$dir/verify-flashinfer-ci.log" | head -20
  failures=$((failures + 1))
fi
for mode in --hot --cold; do
  "$sv" bench --plugin "$plugin" --sampler flashinfer_chain,cuda_fused --B 1,64,256 --K 5 \
    --V 128256 --accept-rate 0.7 $mode --out "$dir/bench-flashinfer${mode#--}.h5" \
    >"$dir/bench-flashinfer${mode#--}.log" 2>&1 &&
    echo "PASS: bench $mode: flashinfer_chain and cuda_fused side by side" &&
    grep '^| ' "$dir/bench-flashinfer${mode#--}.md" ||
    { echo "FAIL: bench $mode"; tail -5 "$dir/bench-flashinfer${mode#--}.log"; failures=$((failures + 1)); }
done
exit $((failures > 0))
