#!/bin/bash
# shard_cli.sh SPECVERIFY OUTDIR: a verification cut into shards and merged
# (issue 28). For N = 1, 2, 3 and 7 shards of `verify --suite smoke` (mixed
# batches with their probes, a Markov pair), of a tree sampler (fixed rows
# and Markov) and of a broken variant, `merge` must print the whole run's
# report line for line and write its JSON field for field, but for the
# seconds each took; a shard missing, given twice, of another run, or a
# file that is no shard, exits 2 naming it. Shards of mutants, sweep and
# calibrate (a share of its runs) merge into the whole command's output and
# files. Deterministic: fixed seeds.
set -u
sv=$1 out=$2
. "$(dirname "$0")/cli_lib.sh"
rm -rf "$out" && mkdir -p "$out" && cd "$out" || exit 2

# compare NAME WANT_EXIT N ARGS...: the whole run, then N shards and merge
compare() {
  local name=$1 want=$2 N=$3
  shift 3
  "$sv" verify "$@" --threads 2 --json "$name-whole.json" >"$name-whole.txt" 2>/dev/null
  local rc=$?
  [ "$rc" -eq "$want" ] || fail "$name: the whole run exited $rc, wanted $want"
  local dir="$name-$N"
  mkdir -p "$dir"
  for i in $(seq 1 "$N"); do
    "$sv" verify "$@" --threads $((1 + i % 2)) --json "$name-merged.json" --shard "$i/$N" \
      --shard-file "$dir/s$i.h5" >/dev/null 2>"$dir/err$i" ||
      fail "$name: shard $i/$N exited $?: $(tail -1 "$dir/err$i")"
  done
  "$sv" merge "$dir"/s*.h5 >"$dir/merged.txt" 2>"$dir/merge.err"
  rc=$?
  [ "$rc" -eq "$want" ] || fail "$name, $N shards: merge exited $rc, wanted $want: $(tail -2 "$dir/merge.err")"
  if diff <(untimed "$name-whole.txt" | batchless /dev/stdin) \
    <(untimed "$dir/merged.txt" | batchless /dev/stdin) >"$dir/diff"; then
    pass "$name, $N shards: merge prints the whole run's report"
  else
    fail "$name, $N shards: the merged report differs: $(head -8 "$dir/diff")"
  fi
  if same_json <(batchless "$name-whole.json") <(batchless "$name-merged.json"); then
    pass "$name, $N shards: merge writes the whole run's JSON"
  else
    fail "$name, $N shards: the merged JSON differs from the whole run's"
  fi
  # the shards' threads differ (1 and 2): the file says so nowhere
}
for N in 1 2 3 7; do
  compare smoke 0 "$N" --suite smoke --seed 3
done
compare tree 0 3 --suite smoke --sampler ref_tree --siblings distinct --draws 40000
compare broken 1 2 --suite smoke --sampler residual_swapped --no-rerun

# mutants, sweep and calibrate: their shards merged print and write what the
# whole command does (the files' creation times aside)
# whole_then_merged NAME N ARGS...: the whole command into NAME-whole/, its
# output in NAME-whole.txt; N shards, merged into NAME-merged/ (the same
# --out, renamed after each), in NAME-merged.txt
whole_then_merged() {
  local name=$1 N=$2
  shift 2
  rm -rf out && "$sv" "$@" --threads 2 >"$name-whole.txt" 2>/dev/null
  local rc=$?
  [ "$rc" -eq 0 ] || fail "$name: the whole command exited $rc"
  [ -d out ] && mv out "$name-whole"
  for i in $(seq 1 "$N"); do
    "$sv" "$@" --threads $((1 + i % 2)) --shard "$i/$N" --shard-file "$name-s$i.h5" \
      >/dev/null 2>"$name-err$i" || fail "$name: shard $i/$N exited $?: $(tail -1 "$name-err$i")"
  done
  [ -d out ] && fail "$name: a shard wrote its command's outputs (out/)"
  "$sv" merge "$name"-s*.h5 >"$name-merged.txt" 2>"$name-merge.err"
  rc=$?
  [ "$rc" -eq 0 ] || fail "$name: merge exited $rc: $(tail -2 "$name-merge.err")"
  [ -d out ] && mv out "$name-merged"
  if diff "$name-whole.txt" "$name-merged.txt" >"$name.diff"; then
    pass "$name, $N shards: merge prints the whole command's output"
  else
    fail "$name, $N shards: the merged output differs: $(head -8 "$name.diff")"
  fi
}
# same_files A B FILE...: the text files equal, the HDF5 files equal but for
# the time they were created
same_files() {
  local a=$1 b=$2 f
  shift 2
  for f in "$@"; do
    if [[ $f == *.h5 ]]; then
      /usr/bin/python3 - "$a/$f" "$b/$f" <<'PY' || { fail "$a/$f and $b/$f differ"; continue; }
import sys, h5py, numpy as np
def same(g, h):
    if sorted(g.attrs) != sorted(h.attrs) or sorted(g) != sorted(h):
        return False
    for k in g.attrs:
        if k != "created" and not np.array_equal(g.attrs[k], h.attrs[k]):
            return False
    for k in g:
        if isinstance(g[k], h5py.Group):
            if not same(g[k], h[k]):
                return False
        else:
            x, y = g[k][()], h[k][()]
            kind = getattr(x, "dtype", np.dtype("O")).kind
            if not np.array_equal(x, y, equal_nan=kind == "f"):
                return False
    return True
sys.exit(0 if same(h5py.File(sys.argv[1]), h5py.File(sys.argv[2])) else 1)
PY
    else
      cmp -s "$a/$f" "$b/$f" || { fail "$a/$f and $b/$f differ"; continue; }
    fi
    pass "$f: the merged command writes the whole command's"
  done
}
whole_then_merged mutants 3 mutants --suite smoke --seed 2 --out out \
  --variants residual_swapped,ratio_inverted,tree_siblings_replaced,seed_ignored
same_files mutants-whole mutants-merged mutants-smoke.md mutants-smoke.h5
whole_then_merged sweep 2 sweep --case logits:V=200,K=3 --T 0.5,1 --K 1,3 --draws 30000 \
  --sampler ref,ref_tree --tree 2x2x1 --out out
same_files sweep-whole sweep-merged rules.md ref/sweep.md ref/sweep.h5 ref_tree/sweep.md \
  ref_tree/sweep.h5 ref/plot.gp
whole_then_merged calibrate 5 calibrate --suite smoke --runs 12 --seed 5
whole_then_merged calibrate-few 4 calibrate --suite smoke --runs 2 --seed 5
"$sv" calibrate --suite smoke --runs 12 --seed 5 --shard 2/5 --shard-file c-other.h5 \
  --runs 13 >/dev/null 2>&1
expect 2 "c-other.h5 is a shard of another run" merge calibrate-s1.h5 c-other.h5 \
  calibrate-s3.h5 calibrate-s4.h5 calibrate-s5.h5
expect 2 "missing: shard 3 (of 5)" merge calibrate-s1.h5 calibrate-s2.h5 calibrate-s4.h5 \
  calibrate-s5.h5
expect 2 "--shard-file is where --shard I/N writes" mutants --shard-file x.h5
expect 2 "--shard-file is where --shard I/N writes" calibrate --shard-file x.h5
expect 2 "--resume takes points from DIR/sweep.h5" sweep --case zipf:V=50,K=2 --out o \
  --resume --shard 1/2
expect 2 "--shard '2/1': give I/N" sweep --case zipf:V=50,K=2 --shard 2/1
expect 2 "--shard '0/4': give I/N" mutants --shard 0/4

# what merge refuses, naming it
d=smoke-7
expect 2 "missing: shards 2, 4, 5, 6, 7 (of 7)" merge $d/s1.h5 $d/s3.h5
expect 2 "shard 1 of 7 is given twice" merge $d/s1.h5 $d/s1.h5 $d/s2.h5 $d/s3.h5 $d/s4.h5 \
  $d/s5.h5 $d/s6.h5
"$sv" verify --suite smoke --seed 4 --threads 2 --json smoke-merged.json --shard 2/7 \
  --shard-file other.h5 >/dev/null 2>&1
expect 2 "other.h5 is a shard of another run" merge $d/s1.h5 other.h5 $d/s3.h5 $d/s4.h5 \
  $d/s5.h5 $d/s6.h5 $d/s7.h5
# a shard whose case 1 is not the case its command makes (a file edited,
# or a suite changed under the same version): named, not summed
cp smoke-1/s1.h5 edited.h5
/usr/bin/python3 -c 'import h5py, sys
f = h5py.File(sys.argv[1], "r+"); del f["c0_case"]; f.copy("c1_case", "c0_case")' edited.h5
expect 2 "edited.h5: case 1 is " merge edited.h5
expect 2 "not an HDF5 file" merge smoke-whole.json
"$sv" sweep --case zipf:V=50,K=2 --draws 1000 --out sweep >/dev/null 2>&1
expect 2 "is not a shard file" merge sweep/sweep.h5
expect 2 "give the shard files of one run" merge
expect 2 "--shard '0/3': give I/N" verify --shard 0/3
expect 2 "--shard '3/2': give I/N" verify --shard 3/2
expect 2 "--shard-file is where --shard I/N writes" verify --shard-file x.h5
expect 2 "--power runs nothing to shard" verify --shard 1/2 --power resample_from_p

# the deep suite: the hard cases at the formula's draws, its plan first
expect 0 "binary:p=0,q=1                     accept_zero_target          2.318e+08" \
  verify --suite deep --plan
expect 0 "binary:p=0.948052,q=0.9674         float16_ratio" verify --suite deep --plan
expect 0 "tree_cdf_boundary" verify --suite deep --sampler ref_tree --plan --plan-gpus 64
out=$("$sv" verify --suite deep --sampler ref_tree --plan 2>&1)
if grep -q "float16_ratio" <<<"$out"; then
  fail "the deep suite of a tree sampler holds the chain's cases: $out"
else
  pass "the deep suite of a tree sampler holds its own hard case alone"
fi
expect 2 "--plan-gpus" verify --suite deep --plan --plan-gpus 0
finish
