#!/usr/bin/env bash
# tools/sass.sh KERNEL.cu FUNCTION [ARCH]: the SASS of one kernel function,
# as nvcc builds it for ARCH (default sm_90), one instruction a line:
#     /*1a20*/  FSETP.GT.AND P3, PT, R38, RZ, PT ;
# For reading what a change did to a kernel's hot loop without a GPU
# (tools/sass_count.py counts a path through it). FUNCTION is the mangled
# name (cuobjdump -elf lists them), e.g. _Z12fused_kernelILi1EEv10fused_args.
#
# CUOBJDUMP names the cuobjdump to use (default: the one on PATH). One older
# than nvcc cannot read the newer cubin header (CUDA 12.8 changed its ELF ABI
# version and flags); then the header is rewritten to the old form for it:
# the instructions of one architecture are encoded the same either way.
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
src=$1 fun=$2 arch=${3:-sm_90}
root=$(cd "$(dirname "$0")/.." && pwd)
cuobjdump=${CUOBJDUMP:-cuobjdump}
command -v "$cuobjdump" >/dev/null || { echo "tools/sass.sh: no cuobjdump (set CUOBJDUMP)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
nvcc -arch="$arch" -O3 -cubin -o "$work/k.cubin" -I"$root/kernels" -I"$root/samplers" "$src"
dump() { "$cuobjdump" -sass -fun "$fun" "$1" 2>&1; }
if ! out=$(dump "$work/k.cubin") || ! grep -q '^\s*/\*[0-9a-f]\{4,\}\*/' <<<"$out"; then
  # the pre-12.8 header: OS/ABI 0x21, ABI version 7, e_flags sm | sm << 16 | 0x500
  sm=${arch#sm_}
  python3 - "$work/k.cubin" "$work/old.cubin" "$sm" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
sm = int(sys.argv[3])
d[7], d[8] = 0x21, 7
struct.pack_into('<I', d, 0x30, sm | sm << 16 | 0x500)
open(sys.argv[2], 'wb').write(d)
PY
  out=$(dump "$work/old.cubin")
fi
grep -E '^\s+/\*[0-9a-f]{4,}\*/' <<<"$out" | sed -E 's@ */\* 0x[0-9a-f]+ \*/@@' || {
  echo "tools/sass.sh: $cuobjdump printed no SASS for $fun:" >&2; echo "$out" >&2; exit 1; }
