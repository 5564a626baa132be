#!/bin/bash
# shard_cli.sh SPECVERIFY OUTDIR: a verification cut into shards and merged
# (issue 28). For N = 1, 2, 3 and 7 shards of `verify --suite smoke` (mixed
# batches with their probes, a Markov pair), of a tree sampler (fixed rows
# and Markov) and of a broken variant, `merge` must print the whole run's
# report line for line and write its JSON field for field, but for the
# seconds each took; a shard missing, given twice, of another run, or a
# file that is no shard, exits 2 naming it. Deterministic: fixed seeds.
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
  if diff <(untimed "$name-whole.txt") <(untimed "$dir/merged.txt") >"$dir/diff"; then
    pass "$name, $N shards: merge prints the whole run's report"
  else
    fail "$name, $N shards: the merged report differs: $(head -8 "$dir/diff")"
  fi
  if same_json "$name-whole.json" "$name-merged.json"; then
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

# what merge refuses, naming it
d=smoke-7
expect 2 "missing: shards 2, 4, 5, 6, 7 (of 7)" merge $d/s1.h5 $d/s3.h5
expect 2 "shard 1 of 7 is given twice" merge $d/s1.h5 $d/s1.h5 $d/s2.h5 $d/s3.h5 $d/s4.h5 \
  $d/s5.h5 $d/s6.h5
"$sv" verify --suite smoke --seed 4 --threads 2 --json smoke-merged.json --shard 2/7 \
  --shard-file other.h5 >/dev/null 2>&1
expect 2 "other.h5 is a shard of another run" merge $d/s1.h5 other.h5 $d/s3.h5 $d/s4.h5 \
  $d/s5.h5 $d/s6.h5 $d/s7.h5
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
