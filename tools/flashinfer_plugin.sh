#!/usr/bin/env bash
# tools/flashinfer_plugin.sh FLASHINFER_DIR [OUT.so]: builds FlashInfer's
# header-only chain speculative sampling kernel into a specverify plugin
# (samplers/examples/flashinfer_plugin.cu, sampler flashinfer_chain) from a
# checkout of FlashInfer you give; nothing of FlashInfer is copied here.
# The pinned version is tag v0.6.17 (commit a0a6b019b9b2); another is
# built too, with a warning, and the commit goes beside the plugin in
# OUT.so.txt. Needs nvcc (CUDA 12 or later); no GPU to build.
#   git clone --branch v0.6.17 https://github.com/flashinfer-ai/flashinfer
#   bash tools/flashinfer_plugin.sh flashinfer build/flashinfer_plugin.so
#   build/specverify verify --plugin build/flashinfer_plugin.so --suite ci
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
pinned=v0.6.17
fi=${1:?usage: tools/flashinfer_plugin.sh FLASHINFER_DIR [OUT.so]}
out=${2:-$here/build/flashinfer_plugin.so}
header=$fi/include/flashinfer/sampling.cuh
if [ ! -f "$header" ]; then
  echo "flashinfer_plugin: $fi is not a FlashInfer checkout (no include/flashinfer/sampling.cuh)" >&2
  exit 2
fi
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ ! -x "$nvcc" ]; then
  echo "flashinfer_plugin: no nvcc (set NVCC or put CUDA's bin/ on PATH)" >&2
  exit 3
fi
version=$(git -C "$fi" describe --tags --always 2>/dev/null || echo "unknown (not a git checkout)")
commit=$(git -C "$fi" rev-parse HEAD 2>/dev/null || echo unknown)
[ "$version" = "$pinned" ] ||
  echo "flashinfer_plugin: warning: FlashInfer $version, not the pinned $pinned" >&2
mkdir -p "$(dirname "$out")"
# sm_80 and sm_90 machine code and compute_90 PTX, as specverify's own kernels
"$nvcc" -std=c++17 -O3 -shared -Xcompiler -fPIC,-fvisibility=hidden \
  -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
  -gencode arch=compute_90,code=compute_90 \
  -I"$fi/include" -I"$here/samplers" \
  "$here/samplers/examples/flashinfer_plugin.cu" -o "$out"
printf 'FlashInfer %s (commit %s) from %s, built %s with %s\n' "$version" "$commit" "$fi" \
  "$(date -u +%Y-%m-%d)" "$("$nvcc" --version | tail -1)" >"$out.txt"
echo "flashinfer_plugin: built $out ($(cat "$out.txt"))"
