#!/usr/bin/env bash
# compare_cli.sh: specverify compare on files made by test_compare: equal
# files are SAME at every point, a planted 2x slowdown is SLOWER (a 0.5%
# change inside the measured noise stays SAME), different devices and
# parameters are warned about, and bad input gets exit 2.
# usage: compare_cli.sh SPECVERIFY TEST_COMPARE SCRATCH_DIR
set -u
sv=$1
maker=$2
dir=$3
rm -rf "$dir"
mkdir -p "$dir"
"$maker" "$dir" || exit 1
cd "$dir" || exit 1
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
out=$("$sv" compare base.h5 same.h5 2>&1) || fail "compare base same: exit $?"
grep -q "0 faster, 0 slower, 3 same" <<<"$out" || fail "equal files not all SAME: $out"
out=$("$sv" compare base.h5 slow.h5 --plot plot 2>&1) || fail "compare base slow: exit $?"
grep -q "cuda_fused B=64 K=5 V=128256 a=0.7 graph | 22.00 | 44.00 | 2.000 | .* | SLOWER |" \
  <<<"$out" || fail "the 2x slowdown is not SLOWER: $out"
grep -q "cuda_naive B=64 .* | SAME |" <<<"$out" || fail "0.5% inside the noise is not SAME"
grep -q "warning: devices differ" <<<"$out" || fail "no warning for different devices"
[ -s plot/compare.dat ] && [ -s plot/compare.gp ] || fail "no compare.dat/.gp"
if command -v gnuplot >/dev/null; then
  [ -s plot/compare.png ] && [ -s plot/compare.svg ] || fail "no ratio plot"
fi
out=$("$sv" compare base.h5 other.h5 2>&1) || fail "compare base other: exit $?"
grep -q "only in .*(other.h5)" <<<"$out" && grep -q "only in .*(base.h5)" <<<"$out" \
  && grep -q "warning: parameters differ" <<<"$out" || fail "different points not reported"
# the input mode is part of a point; a recording's points (no target rate) match
out=$("$sv" compare base.h5 modes.h5 2>&1) || fail "compare base modes: exit $?"
grep -q "cuda_fused B=1 K=5 V=128256 a=0.7 logits-bf16.*only in .*(modes.h5)" <<<"$out" \
  || fail "a logits point matched a probs point: $out"
out=$("$sv" compare rec.h5 rec2.h5 2>&1) || fail "compare rec rec2: exit $?"
grep -q "0 faster, 0 slower, 1 same" <<<"$out" || fail "a recording's points did not match: $out"
# a minimum practical difference on top of the noise: two very quiet runs
# 0.1% apart are SAME (the noise rule alone called it FASTER), 5% is FASTER
out=$("$sv" compare quiet.h5 quiet2.h5 2>&1) || fail "compare quiet quiet2: exit $?"
grep -q "cuda_fused B=1 K=5 .* | 0.999 | 2.0% | SAME |" <<<"$out" &&
  grep -q "cuda_fused B=64 K=5 .* | 0.950 | 2.0% | FASTER |" <<<"$out" &&
  grep -q "^1 faster, 0 slower, 1 same" <<<"$out" ||
  fail "quiet runs: 0.1% not SAME or 5% not FASTER under the 2% minimum: $out"
out=$("$sv" compare quiet.h5 quiet2.h5 --min-diff 0 2>&1) || fail "compare --min-diff 0: exit $?"
grep -q "cuda_fused B=1 K=5 .* | 0.999 | .* | FASTER |" <<<"$out" ||
  fail "--min-diff 0 (the noise rule alone) did not call 0.1% FASTER: $out"
out=$("$sv" compare quiet.h5 quiet2.h5 --min-diff 0.1 2>&1) || fail "compare --min-diff 0.1: exit $?"
grep -q "0 faster, 0 slower, 2 same" <<<"$out" || fail "--min-diff 0.1 still called 5%: $out"
"$sv" compare --help | grep -q -- "--min-diff D" || fail "compare --help does not list --min-diff"

# specverify plot: latency against B and V from a bench file
out=$("$sv" plot base.h5 --out plots 2>&1) || fail "plot base.h5: exit $? ($out)"
[ -s plots/base-latency_B.dat ] && [ -s plots/base-latency_V.dat ] && [ -s plots/base-plot.gp ] \
  || fail "plot: no data or script in plots/"
grep -q "index 0 using 1:2:3:4 with yerrorlines" plots/base-plot.gp &&
  grep -q "index 0 using .* title 'cuda_fused K=5 V=128256 a=0.7 hot'" plots/base-plot.gp ||
  fail "plot: no titled curve"
if command -v gnuplot >/dev/null; then
  [ -s plots/base-latency_vs_B.png ] && [ -s plots/base-latency_vs_V.svg ] || fail "plot: no images"
fi
msg=$("$sv" plot sweep.h5 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "not a bench file" <<<"$msg" || fail "plot sweep.h5 -> $rc '$msg'"
msg=$("$sv" plot 2>&1); rc=$?
[ $rc -eq 2 ] || fail "plot without a file -> $rc"

expect2() {
  local words=$1
  shift
  local msg
  msg=$("$sv" compare "$@" 2>&1)
  local rc=$?
  [ $rc -eq 2 ] && grep -qF -- "$words" <<<"$msg" || fail "compare $* -> $rc '$msg'"
}
expect2 "compare needs 2 to 16 bench files, got 1" base.h5
expect2 "not a bench file" base.h5 sweep.h5
expect2 "not an HDF5 file" base.h5 compare_cli_missing.h5
expect2 "--min-diff" base.h5 same.h5 --min-diff -0.1
expect2 "--min-diff" base.h5 same.h5 --min-diff 2
expect2 "--min-diff" base.h5 same.h5 --min-diff abc
expect2 "--fail-on 'faster'" base.h5 same.h5 --fail-on faster
expect2 "unknown axis 'Q'" base.h5 same.h5 --where Q=1
expect2 "give AXIS=VALUE" base.h5 same.h5 --where B
expect2 "--axis 'sampler'" base.h5 same.h5 --axis sampler

# issue 39: the CI gate. Equal files pass it; the planted 2x slowdown fails
# it (exit 1, the point named), after the JSON is written with the table's
# numbers; filtered away by --where, it passes
"$sv" compare base.h5 same.h5 --fail-on slower >/dev/null 2>&1 || fail "--fail-on slower on equal files: exit $?"
err=$("$sv" compare base.h5 slow.h5 --fail-on slower --json gate.json 2>&1 >/dev/null); rc=$?
[ $rc -eq 1 ] && grep -q "^compare: SLOWER: cuda_fused B=64 K=5 V=128256 a=0.7 graph on .*: 44.00 us against 22.00 us (2.000x" <<<"$err" &&
  grep -q "^compare: 1 point SLOWER than " <<<"$err" || fail "--fail-on slower on the 2x slowdown -> $rc: $err"
python3 - gate.json <<'PY' || fail "gate.json does not hold the table's numbers"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["compare_format"] == 1 and d["fail_on"] == "slower" and d["slower"] == 1, d
o = d["others"][0]
assert o["summary"] == {"faster": 0, "slower": 1, "same": 2, "only_base": 0, "only_other": 0}, o["summary"]
slow = [p for p in o["points"] if p["verdict"] == "SLOWER"]
assert len(slow) == 1 and slow[0]["sampler"] == "cuda_fused" and slow[0]["B"] == 64 and slow[0]["graph"]
assert slow[0]["base_median_us"] == 22.0 and slow[0]["median_us"] == 44.0 and abs(slow[0]["ratio"] - 2.0) < 1e-9
assert d["base"]["device"] != o["device"] and o["label"] == o["device"]  # devices differ: labels are their names
PY
out=$("$sv" compare base.h5 slow.h5 --fail-on slower --where sampler=cuda_naive 2>&1) ||
  fail "--where sampler=cuda_naive left the slow cuda_fused point in the gate: $out"
grep -q "cuda_fused" <<<"$out" && fail "--where sampler=cuda_naive printed cuda_fused: $out"
# the plot along B: a series per sampler and graph mode that vary, noise bands
"$sv" compare base.h5 slow.h5 --plot axis --axis B >/dev/null 2>&1 || fail "--plot --axis B: exit $?"
[ "$(grep -c "'compare.dat' index [0-9]* using 1:2:3:4 with yerrorlines" axis/compare.gp)" = 9 ] ||
  fail "--plot --axis B: not 3 series in each of png, svg, pdf: $(grep -c index axis/compare.gp)"
grep -q "title 'NVIDIA H200: cuda_fused graph'" axis/compare.gp ||
  fail "--plot: series not labelled by device and axes: $(grep -m3 -o "title '[^']*'" axis/compare.gp)"
if command -v gnuplot >/dev/null; then
  [ -s axis/compare.png ] && [ -s axis/compare.svg ] && [ -s axis/compare.pdf ] || fail "--plot: no PNG, SVG, PDF"
fi
echo "$failures failed"
[ "$failures" -eq 0 ]
