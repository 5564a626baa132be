#!/usr/bin/env bash
# sweep_mine.sh SPECVERIFY RACE_PLUGIN NUMPY_SAMPLER_FILE SCRATCH_DIR: the
# user's own sampler in a sweep (issue 39): --plugin and --python sweep it
# beside ref (the default list then: ref and what they bring), each in
# DIR/NAME, the tokens-per-step table of both (DIR/rules.md) and one figure
# of their acceptance against T with intervals (DIR/acceptance_vs_T.png,
# .svg, .pdf from DIR/compare.gp). Bad plugins and Python specs exit 2.
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
# a sampler of the packed layout alone (vLLM's shape): sweep's uniform
# batches broadcast one row set, which that layout cannot hold; it read past
# the rows and its crash was reported as the sampler's (exit 1). Now
# refused before any point, nothing written
packed="$(dirname "${numpy%:*}")/packed_slow_start.py:packed_slow_start"
expect 2 "sweep: sampler packed_slow_start takes only the packed layout" \
  sweep --python "$packed" --case logits:V=100,K=3 --T 0.5,1 --draws 2000 --out packed
[ ! -e packed ] && pass "the refused sweep wrote nothing" || fail "the refused sweep wrote packed/"
finish
