#!/usr/bin/env bash
# sweep_mine.sh SPECVERIFY RACE_PLUGIN NUMPY_SAMPLER_FILE SCRATCH_DIR: the
# user's own sampler in a sweep (issue 39): --plugin and --python sweep it
# beside ref (the default list then: ref and what they bring), each in
# DIR/NAME, the tokens-per-step table of both (DIR/rules.md) and one figure
# of their acceptance against T with intervals (DIR/acceptance_vs_T.png,
# .svg, .pdf from DIR/compare.gp). Bad plugins and Python specs exit 2. A sampler
# of the packed layout alone is swept in mixed batches of one case.
sv=$1 race=$2 numpy=$3:numpy_chain dir=$4
. "$(dirname "$0")/cli_lib.sh"
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 2

# mine DIR NAME ARGS...: a sweep of NAME beside ref into DIR, its outputs checked
mine() {
  local out=$1 name=$2
  shift 2
  expect 0 "vs first" sweep "$@" --case logits:V=100,K=3 --T 0.5,1 --draws 20000 --threads 2 --out "$out"
  local f missing=""
  for f in ref/sweep.h5 "$name/sweep.h5" rules.md compare.gp acceptance_vs_T.png acceptance_vs_T.svg acceptance_vs_T.pdf; do
    [ -s "$out/$f" ] || missing+=" $f"
  done
  if [ -z "$missing" ]; then pass "$name beside ref: both sweeps, the table and the figure"; else fail "$name: missing$missing"; fi
  # both samplers' measured points with their intervals, the analytic curve once
  if grep -q "'./ref/acceptance.dat' using 1:3:4:5 with yerrorlines" "$out/compare.gp" &&
    grep -q "'./$name/acceptance.dat' using 1:3:4:5 with yerrorlines" "$out/compare.gp" &&
    [ "$(grep -c "notitle" "$out/compare.gp")" = 9 ]; then
    pass "$name: compare.gp plots both with intervals (png, svg, pdf), the analytic curve once each"
  else
    fail "$name: compare.gp: $(grep -m2 plot "$out/compare.gp")"
  fi
  grep -q "| $name (chain) E measured" "$out/rules.md" && pass "$name in rules.md" || fail "rules.md lacks $name"
}
mine c example_race --plugin "$race"
mine py numpy_chain --python "$numpy"
expect 2 "no-such.so" sweep --plugin ./no-such.so --case logits:V=100,K=3 --T 1
expect 2 "--python" sweep --python not-a-spec --case logits:V=100,K=3 --T 1
# a sampler of the packed layout alone (vLLM's shape) cannot take sweep's
# uniform batches (one row set broadcast to every sequence): it was once
# handed them, read past the rows and its crash was reported as its own
# (exit 1), then refused (exit 2). Now each point runs as a mix of the one
# case in the packed layout, every sequence at the point's K. The checks:
# at both points the measured E within 3.9 standard errors of the analytic
# one (the 95% interval's half-width / 1.96; a false alarm of 1e-4 a
# point), and every one of the 20000 draws in the accepted-length counts
# (ragged drafts, a quarter of the sequences at fewer than K, would leave
# those out of the lengths: 15052 of them at this seed)
# e_within SWEEP.md: "OK/N", the N points of its E table (T, K, E analytic,
# E measured, interval) whose measured E is within 3.9 standard errors (the
# 95% interval's half-width / 1.96) of the analytic one
e_within() {
  awk -F'|' '/^\| [0-9.]+ \| [0-9]+ \| [0-9.]+ \| [0-9.]+ \| \[/ {
    gsub(/[][ ]/, "", $6); split($6, iv, ","); se = (iv[2] - iv[1]) / 2 / 1.96
    d = $5 - $4; n++; if (se > 0 && (d < 0 ? -d : d) < 3.9 * se) ok++ }
    END { print ok + 0 "/" n + 0 }' "$1"
}
packed="$(dirname "${numpy%:*}")/packed_slow_start.py:packed_slow_start"
pk=(sweep --python "$packed" --sampler packed_slow_start --case logits:V=100,K=3 --T 0.5,1
    --draws 20000 --out packed)
expect 0 "wrote packed: sweep.h5" "${pk[@]}" --threads 2
within=$(e_within packed/sweep.md)
[ "$within" = 2/2 ] && pass "packed only: E measured within 3.9 standard errors of analytic at both points" ||
  fail "packed only: E measured within 3.9 standard errors at $within points"
/usr/bin/python3 -c 'import sys, h5py
n = h5py.File(sys.argv[1])["accepted_lengths"][()].sum(axis=1)
sys.exit(0 if list(n) == [20000, 20000] else f"accepted lengths counted: {list(n)}")' \
  packed/sweep.h5 && pass "packed only: all 20000 draws of each point at K, in its lengths" ||
  fail "packed only: not every draw counted at K"
# and its shards, merged, print what the whole sweep printed
"$sv" "${pk[@]}" --threads 2 >packed-whole.txt 2>/dev/null
for i in 1 2; do
  "$sv" "${pk[@]}" --threads $i --shard "$i/2" --shard-file "packed-s$i.h5" >/dev/null 2>&1 ||
    fail "packed only: shard $i/2 exited $?"
done
"$sv" merge packed-s1.h5 packed-s2.h5 >packed-merged.txt 2>/dev/null &&
  cmp -s packed-whole.txt packed-merged.txt &&
  pass "packed only: two shards merged print the whole sweep's tables" ||
  fail "packed only: the merged shards differ from the whole sweep"
# a whole recording (200 steps) ran one process a step: a Python sampler's
# start, its interpreter and imports, paid 200 times a point. A sampler of
# your own now runs a point's steps in mixes (all 200 in one at this V): 3
# runs of its process for 2 points, one to load the sampler and one a
# point, each an interpreter started afresh without the fork server
# (SV_PYTHON_FORK=0), and one interpreter in all with it. The same checks
# of E and of the shards as above
rec="$(cd "$(dirname "$0")/../.." && pwd)/distributions/recordings/ngram-fortunes.h5"
counted="$(dirname "${numpy%:*}")/starts_counted.py:starts_counted"
rs=(sweep --python "$counted" --sampler starts_counted --recorded "$rec" --T 0.7,1 --K 2
    --draws 20000 --out steps)
SV_PYTHON_FORK=0 "$sv" "${rs[@]}" --threads 2 >/dev/null 2>steps-fresh.err ||
  fail "recorded sweep, no fork server: exit $?"
starts=$(grep -c "starts_counted: a process started" steps-fresh.err)
[ "$starts" = 3 ] && pass "recorded: 3 process starts for 2 points of 200 steps" ||
  fail "recorded: $starts process starts for 2 points of 200 steps (want 3)"
"$sv" "${rs[@]}" --threads 2 >steps.txt 2>steps.err || fail "recorded sweep: exit $?"
starts=$(grep -c "starts_counted: a process started" steps.err)
[ "$starts" = 1 ] && pass "recorded: 1 interpreter started with the fork server" ||
  fail "recorded: $starts interpreters started with the fork server (want 1)"
within=$(e_within steps/sweep.md)
[ "$within" = 2/2 ] && pass "recorded: E measured within 3.9 standard errors of analytic at both points" ||
  fail "recorded: E measured within 3.9 standard errors at $within points"
for i in 1 2; do
  "$sv" "${rs[@]}" --threads $i --shard "$i/2" --shard-file "steps-s$i.h5" >/dev/null 2>&1 ||
    fail "recorded: shard $i/2 exited $?"
done
"$sv" merge steps-s1.h5 steps-s2.h5 >steps-merged.txt 2>/dev/null && cmp -s steps.txt steps-merged.txt &&
  pass "recorded: two shards merged print the whole sweep's tables" ||
  fail "recorded: the merged shards differ from the whole sweep"
finish
