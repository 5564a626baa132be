#!/usr/bin/env bash
# bad_input_env.sh: without gnuplot (a PATH that hides it) the plotting
# commands still write their data and gnuplot script, say how to install
# gnuplot, and exit 0; the plots are drawn where gnuplot is found. A
# gnuplot that fails (a stand-in here) is exit 3 with its message, after
# the tables and the data: never a silent exit 0 without the plots.
# (sweep --out without gnuplot is in sweep_cli.sh; a missing GPU in
# cli_errors.sh; bench --out plots through the same code as plot.)
# usage: bad_input_env.sh SPECVERIFY TEST_COMPARE SCRATCH_DIR
set -u
sv=$1
maker=$2
dir=$3
rm -rf "$dir"
mkdir -p "$dir"
"$maker" "$dir" >/dev/null || exit 1
cd "$dir" || exit 1
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
install="plots not drawn: gnuplot is not installed (Debian: apt-get install gnuplot-nox)"

out=$(PATH=/nonexistent "$sv" plot base.h5 --out plots 2>&1)
rc=$?
[ $rc -eq 0 ] || fail "plot without gnuplot: exit $rc ($out)"
grep -qF "$install; the data and plots/base-plot.gp are written" <<<"$out" ||
  fail "plot without gnuplot said: $out"
[ -s plots/base-latency_B.dat ] && [ -s plots/base-latency_V.dat ] && [ -s plots/base-plot.gp ] ||
  fail "plot without gnuplot wrote no data or script"
ls plots/*.png plots/*.svg >/dev/null 2>&1 && fail "plot without gnuplot: images appeared"

out=$(PATH=/nonexistent "$sv" compare base.h5 slow.h5 --plot ratio 2>&1)
rc=$?
[ $rc -eq 0 ] || fail "compare --plot without gnuplot: exit $rc ($out)"
grep -qF "$install; the data and ratio/compare.gp are written" <<<"$out" ||
  fail "compare --plot without gnuplot said: $out"
[ -s ratio/compare.dat ] && [ -s ratio/compare.gp ] || fail "compare --plot wrote no data or script"

# a gnuplot that refuses the script: exit 3, its message and its log named
mkdir -p fakebin noexec
printf '#!/bin/sh\necho "\\"$1\\" line 7: unexpected or unrecognized token: s" >&2\nexit 1\n' \
  >fakebin/gnuplot
chmod +x fakebin/gnuplot
said='plots not drawn: gnuplot exited with 1 on'
out=$(PATH="$PWD/fakebin:$PATH" "$sv" plot base.h5 --out broken 2>&1)
rc=$?
[ $rc -eq 3 ] || fail "plot with a failing gnuplot: exit $rc ($out)"
grep -qF "$said broken/base-plot.gp: \"./base-plot.gp\" line 7: unexpected or unrecognized token: s (all it said is in broken/base-plot.log)" <<<"$out" ||
  fail "plot with a failing gnuplot said: $out"
[ -s broken/base-latency_B.dat ] && [ -s broken/base-plot.gp ] && [ -s broken/base-plot.log ] ||
  fail "plot with a failing gnuplot lost the data, script or log"
out=$(PATH="$PWD/fakebin:$PATH" "$sv" compare base.h5 slow.h5 --plot broken-ratio 2>&1)
rc=$?
[ $rc -eq 3 ] || fail "compare --plot with a failing gnuplot: exit $rc ($out)"
grep -qF "$said broken-ratio/compare.gp" <<<"$out" && grep -q "faster, .* slower" <<<"$out" ||
  fail "compare --plot with a failing gnuplot said: $out"
out=$(PATH="$PWD/fakebin:$PATH" "$sv" sweep --case zipf:V=50,K=2 --draws 500 --out broken-sweep 2>&1)
rc=$?
[ $rc -eq 3 ] || fail "sweep --out with a failing gnuplot: exit $rc ($out)"
grep -qF "$said broken-sweep/plot.gp" <<<"$out" && grep -q "^| - | 2 |" <<<"$out" ||
  fail "sweep --out with a failing gnuplot said: $out"
[ -s broken-sweep/sweep.h5 ] && [ -s broken-sweep/sweep.md ] ||
  fail "sweep --out with a failing gnuplot lost its results"
# one that cannot be run (not executable): exit 3, named
printf '#!/bin/sh\nexit 0\n' >noexec/gnuplot
out=$(PATH="$PWD/noexec" "$sv" plot base.h5 --out noexec-plots 2>&1)
rc=$?
[ $rc -eq 3 ] && grep -qF "plots not drawn: cannot run gnuplot: Permission denied" <<<"$out" ||
  fail "plot with a gnuplot that cannot run: exit $rc ($out)"

if command -v gnuplot >/dev/null; then
  out=$("$sv" plot base.h5 --out drawn 2>&1) || fail "plot with gnuplot: exit $? ($out)"
  [ -s drawn/base-latency_vs_B.png ] && [ -s drawn/base-latency_vs_V.svg ] ||
    fail "plot with gnuplot drew nothing: $out"
else
  echo "SKIP: gnuplot is not installed here: only the missing-gnuplot path is tested"
fi
echo "$failures failed"
[ "$failures" -eq 0 ]
