#!/usr/bin/env bash
# tools/sglang_plugin.sh SGLANG_DIR FLASHINFER_DIR [OUT.so]: builds SGLang's
# header-only tree kernel (sgl-kernel/csrc/speculative/speculative_sampling.cuh,
# TreeSpeculativeSamplingTargetOnly) into a specverify plugin
# (samplers/examples/sglang_tree_plugin.cu and sglang_tree_args.cu, sampler
# sglang_tree_target_only, rule tree_target_only) from checkouts you give;
# nothing of SGLang or FlashInfer is copied here. The kernel includes
# FlashInfer's sampling.cuh: FLASHINFER_DIR should be the commit
# sgl-kernel/CMakeLists.txt pins (its repo-flashinfer GIT_TAG); another is
# built too, with a warning. Both commits go beside the plugin in OUT.so.txt.
# Needs nvcc (CUDA 12 or later) and Random123's headers; no GPU to build.
#   git clone https://github.com/sgl-project/sglang
#   git clone https://github.com/flashinfer-ai/flashinfer && git -C flashinfer checkout PIN
#   bash tools/sglang_plugin.sh sglang flashinfer build/sglang_tree_plugin.so
#   build/specverify verify --plugin build/sglang_tree_plugin.so --suite smoke \
#     --tree 3x2x1 --siblings distinct
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: tools/sglang_plugin.sh SGLANG_DIR FLASHINFER_DIR [OUT.so]"
sg=${1:?$usage}
fi=${2:?$usage}
out=${3:-$here/build/sglang_tree_plugin.so}
header=$sg/sgl-kernel/csrc/speculative/speculative_sampling.cuh
if [ ! -f "$header" ]; then
  echo "sglang_plugin: $sg is not an SGLang checkout (no sgl-kernel/csrc/speculative/speculative_sampling.cuh)" >&2
  exit 2
fi
if [ ! -f "$fi/include/flashinfer/sampling.cuh" ]; then
  echo "sglang_plugin: $fi is not a FlashInfer checkout (no include/flashinfer/sampling.cuh)" >&2
  exit 2
fi
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ ! -x "$nvcc" ]; then
  echo "sglang_plugin: no nvcc (set NVCC or put CUDA's bin/ on PATH)" >&2
  exit 3
fi
commit() { git -C "$1" rev-parse HEAD 2>/dev/null || echo unknown; }
sg_commit=$(commit "$sg")
fi_commit=$(commit "$fi")
# the FlashInfer commit sgl-kernel builds with: the GIT_TAG after repo-flashinfer
pin=$(awk '/FetchContent_Declare\(/ {flashinfer = 0} /repo-flashinfer/ {flashinfer = 1}
           flashinfer && $1 == "GIT_TAG" {print $2; exit}' "$sg/sgl-kernel/CMakeLists.txt" 2>/dev/null || true)
if [ -n "$pin" ] && [[ $fi_commit != "$pin"* ]]; then
  echo "sglang_plugin: warning: FlashInfer $fi_commit, not the $pin sgl-kernel pins" >&2
fi
mkdir -p "$(dirname "$out")"
# sm_80 and sm_90 machine code and compute_90 PTX, as specverify's own kernels
"$nvcc" -std=c++17 -O3 -shared -Xcompiler -fPIC,-fvisibility=hidden \
  -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
  -gencode arch=compute_90,code=compute_90 \
  -I"$fi/include" -I"$sg/sgl-kernel/csrc" -I"$here/samplers" -I"$here/kernels" \
  "$here/samplers/examples/sglang_tree_plugin.cu" "$here/samplers/examples/sglang_tree_args.cu" \
  -o "$out"
printf 'SGLang %s from %s, FlashInfer %s (sgl-kernel pins %s) from %s, built %s with %s\n' \
  "$sg_commit" "$sg" "$fi_commit" "${pin:-unknown}" "$fi" "$(date -u +%Y-%m-%d)" \
  "$("$nvcc" --version | tail -1)" >"$out.txt"
echo "sglang_plugin: built $out ($(cat "$out.txt"))"
