#!/usr/bin/env bash
# shard_forged_cli.sh: merge refuses a shard file whose counts the run it
# names cannot have made, naming the file and the dataset (exit 2): draws
# that are not the shard's share of the run (a shard with 2^64 - 1 draws
# passed), histograms that do not sum to the draws that reached a position,
# sums over the shards past 2^64 - 1, and links or storage that lead out
# of the file (an external link was followed into another file). The files
# are forged with h5py (Debian: python3-h5py); without it the test skips.
# usage: shard_forged_cli.sh SPECVERIFY SCRATCH_DIR
set -u
sv=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir" || exit 1
. "$(dirname "$(readlink -f "$0")")/cli_lib.sh"
py=
for c in python3 /usr/bin/python3; do
  if command -v "$c" >/dev/null && "$c" -c "import h5py, numpy" 2>/dev/null; then py=$c; break; fi
done
[ -n "$py" ] || { echo "SKIPPED: no python3 with h5py"; exit 77; }

# forge FILE PYTHON: runs PYTHON with f, the shard file open for writing
forge() {
  local file=$1
  shift
  "$py" - "$file" "$@" <<PY || fail "forging $file: $*"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r+")
$1
f.close()
PY
}
# fresh NAME: a copy of the two shards of run NAME in NAME-x/, for one forgery
fresh() {
  rm -rf "$1-x"
  cp -r "$1" "$1-x"
}

run=(verify --case zipf:V=50,K=2 --draws 4000 --batch 500 --no-rerun)
for layout in mixed uniform; do
  mkdir -p $layout
  for i in 1 2; do
    expect 0 "shard $i of 2" "${run[@]}" --batches $layout --shard $i/2 --shard-file $layout/s$i.h5
  done
  expect 0 "1 cases: 1 passed" merge $layout/s1.h5 $layout/s2.h5
  # (a) draws moved from one shard to the other: the sum is the run's, each
  # shard's is not its share (4000 draws in 8 units of 500: 2000 each)
  fresh $layout
  forge $layout-x/s1.h5 'f["c0_scalars"][0] = 1500'
  forge $layout-x/s2.h5 'f["c0_scalars"][0] = 2500'
  expect 2 "merge: $layout-x/s1.h5: dataset 'c0_scalars': 1500 draws, where shard 1 of 2 of this run draws 2000 of case 1" \
    merge $layout-x/s1.h5 $layout-x/s2.h5
done

# refused SHARD PYTHON WORDS: mixed/sS.h5 forged by PYTHON, merge says WORDS
refused() {
  fresh mixed
  forge "mixed-x/s$1.h5" "$2"
  expect 2 "$3" merge mixed-x/s1.h5 mixed-x/s2.h5
}
# (a) the issue's shard of 2^64 - 1 draws ("0.0983 M draws" passed)
refused 2 'f["c0_scalars"][0] = np.uint64(2**64 - 1)' \
  "merge: mixed-x/s2.h5: dataset 'c0_scalars': 18446744073709551615 draws, where shard 2 of 2"
# (b) a histogram that does not sum to the draws that reached its position
refused 1 'h = f["c0_hist"]; h[55] = h[55] + 7' \
  "merge: mixed-x/s1.h5: dataset 'c0_hist', position 2: the counts sum to" # V = 50
refused 2 'r = f["c0_reached"]; r[0] = r[0] + 1' \
  "merge: mixed-x/s2.h5: dataset 'c0_hist', position 1: the counts sum to"
# (c) a sum over the shards past 2^64 - 1: an independence table's cell
cell=$("$py" -c 'import sys, h5py; print(int(h5py.File(sys.argv[1])["c0_pairs_seq"][:].argmax()))' mixed/s1.h5)
refused 2 "f['c0_pairs_seq'][$cell] = np.uint64(2**64 - 1)" \
  "merge: mixed-x/s2.h5: dataset 'c0_pairs_seq', element $cell: 18446744073709551615, and"
expect 2 "the sum passes 2^64 - 1" merge mixed-x/s1.h5 mixed-x/s2.h5
# (d) links and storage that leave the file
cp mixed/s1.h5 other.h5
refused 1 'del f["c0_hist"]; f["c0_hist"] = h5py.ExternalLink("other.h5", "/c0_hist")' \
  "mixed-x/s1.h5: 'c0_hist' is an external link, to /c0_hist in other.h5"
refused 2 'f.create_group("g")["deep"] = h5py.ExternalLink("other.h5", "/c0_length")' \
  "mixed-x/s2.h5: 'g/deep' is an external link, to /c0_length in other.h5"
refused 1 'f["c0_soft"] = h5py.SoftLink("/c0_hist")' "mixed-x/s1.h5: 'c0_soft' is a soft link, to /c0_hist"
refused 1 'n = f["c0_length"][:]; del f["c0_length"]; n.tofile("raw.bin"); f.create_dataset("c0_length", n.shape, n.dtype, external=[("raw.bin", 0, n.nbytes)])' \
  "mixed-x/s1.h5: 'c0_length' keeps its numbers in external files"
finish
