#!/usr/bin/env bash
# bad_input_env.sh: without gnuplot (a PATH that hides it) the plotting
# commands still write their data and gnuplot script, say how to install
# gnuplot, and exit 0; the plots are drawn where gnuplot is found.
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

if command -v gnuplot >/dev/null; then
  out=$("$sv" plot base.h5 --out drawn 2>&1) || fail "plot with gnuplot: exit $? ($out)"
  [ -s drawn/base-latency_vs_B.png ] && [ -s drawn/base-latency_vs_V.svg ] ||
    fail "plot with gnuplot drew nothing: $out"
else
  echo "SKIP: gnuplot is not installed here: only the missing-gnuplot path is tested"
fi
echo "$failures failed"
[ "$failures" -eq 0 ]
