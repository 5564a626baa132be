#!/usr/bin/env bash
# render_figures.sh SPECVERIFY SOURCE_DIR SCRATCH_DIR: every plotting
# command draws its figures from fixed data (a seeded sweep of 20000 draws,
# two samplers side by side, the committed H100 and H200 bench files), and
# each figure passes check_figure.py: PNG, SVG and PDF, one legend entry per
# series, nothing off the canvas, interval bars where a measured number is
# plotted, integer tick labels on the K and B axes (issue 39). Then every
# figure committed under results/ passes the same checks (made by the same
# commands, they must not go stale). Exit 77 (skipped) without gnuplot.
sv=$1 src=$2 dir=$3
. "$src/tests/cli/cli_lib.sh"
if ! command -v gnuplot >/dev/null; then
  echo "SKIP: gnuplot is not installed (bash ci/setup installs it)"
  exit 77
fi
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 2
check="/usr/bin/python3 $src/tests/plot/check_figure.py"
figure() { # FILE.svg ARGS...: the figure passes check_figure.py
  local out
  if out=$($check "$@" 2>&1); then pass "$1 ${*:2}"; else fail "$out"; fi
}
gpu=$src/results/gpu

# a sweep: T for acceptance, K for tokens and speedup (four c), the lengths
"$sv" sweep --case logits:V=100,K=5 --T 0.5,1,1.5 --K 1,2,3 --draws 20000 --seed 3 \
  --threads 2 --out sw >sw.out 2>&1 || fail "sweep: exit $? ($(tail -2 sw.out))"
figure sw/acceptance_vs_T.svg --series 3 --intervals
figure sw/tokens_vs_K.svg --series 1 --intervals --integer-x
figure sw/speedup_vs_K.svg --series 4 --intervals --integer-x
figure sw/accepted_lengths.svg --series 0 --integer-x
if grep -q "K=5" sw/plot.gp; then fail "plot.gp titles name the spec's K=5 beside the swept K"; else pass "one K in the titles"; fi

# two samplers side by side: one entry per sampler and position
"$sv" sweep --sampler ref,ref_exact --case logits:V=100,K=3 --T 0.5,1 --draws 20000 --seed 3 \
  --threads 2 --out two >two.out 2>&1 || fail "sweep --sampler ref,ref_exact: exit $? ($(tail -2 two.out))"
figure two/acceptance_vs_T.svg --series 6 --intervals

# latency of a committed bench file: a curve per block of its data
"$sv" plot "$gpu/NVIDIA_H200/bench.h5" --out lat >lat.out 2>&1 || fail "plot: exit $? ($(cat lat.out))"
curves=$(grep -c '^# curve' lat/bench-latency_B.dat)
[ "$curves" -ge 12 ] && pass "$curves curves along B" || fail "only $curves curves in bench-latency_B.dat"
figure lat/bench-latency_vs_B.svg --series "$curves" --intervals --integer-x
# bars on every curve with a point whose interquartile range is 0.1% of its
# median or more (a narrower one is under a pixel on the log axis: the
# lower panel gives it in %)
spread=$(awk '/^# curve/ { c = $3 } /^[0-9]/ && $4 - $3 >= 0.001 * $2 { s[c] = 1 } END { print length(s) }' lat/bench-latency_V.dat)
figure lat/bench-latency_vs_V.svg --series "$(grep -c '^# curve' lat/bench-latency_V.dat)" --intervals "$spread"

# compare --plot of the two devices along B
"$sv" compare "$gpu/NVIDIA_H100_80GB_HBM3/bench.h5" "$gpu/NVIDIA_H200/bench.h5" --plot cmp \
  >cmp.out 2>&1 || fail "compare --plot: exit $? ($(tail -2 cmp.out))"
figure cmp/compare.svg --series "$(grep -c '^# [0-9]' cmp/compare.dat)" --intervals --integer-x

# every committed figure, by what it plots
while IFS= read -r -d '' svg; do
  case $(basename "$svg" .svg) in
    acceptance_vs_T) figure "$svg" --intervals ;;
    tokens_vs_K | speedup_vs_K | compare) figure "$svg" --intervals --integer-x ;;
    accepted_lengths | bench-latency_vs_B) figure "$svg" --integer-x ;;
    *) figure "$svg" ;;
  esac
done < <(find "$src/results" -name '*.svg' -print0 | sort -z)
finish
