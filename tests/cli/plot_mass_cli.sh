#!/usr/bin/env bash
# plot_mass_cli.sh: verify --plot DIR and plot REPORT.json draw where each
# failing position's mass went (issue 39). residual_swapped on
# zipf:V=200,K=4 (seed 1, 50000 draws, no re-run) fails all 4 positions:
# 4 figures, each a data file of its 200 bins (V = 200, no pooled tail)
# beside PNG, SVG and PDF; the same figures again from the JSON; none for a
# passing run; a file that is no report, exit 2.
# usage: plot_mass_cli.sh SPECVERIFY SCRATCH_DIR
sv=$1
dir=$2
source "$(dirname "$0")/cli_lib.sh"
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
run=(--sampler residual_swapped --case zipf:V=200,K=4 --draws 50000 --seed 1 --no-rerun)

expect 1 "plot: figs/mass-4.{png,svg,pdf}: zipf:V=200,K=4, position 4 (FAIL)" \
  verify "${run[@]}" --plot figs --json report.json
for n in 1 2 3 4; do
  for ext in png svg pdf; do
    [ -s "figs/mass-$n.$ext" ] && pass "figs/mass-$n.$ext drawn" || fail "figs/mass-$n.$ext missing"
  done
done
head -c 4 figs/mass-1.pdf | grep -q '%PDF' && pass "mass-1.pdf is a PDF" || fail "mass-1.pdf: not a PDF"
rows=$(grep -vc '^#' figs/mass-1.dat)
[ "$rows" = 200 ] && pass "mass-1.dat: 200 bins" || fail "mass-1.dat: $rows bins, want 200"
# each row: observed / expected is the ratio of its own columns, the band around 1
awk '!/^#/ { if (($4 - $3 / $2) ^ 2 > 1e-8 || $5 > 1 || $6 < 1) bad++ } END { exit bad > 0 }' \
  figs/mass-1.dat && pass "mass-1.dat: ratios and band agree" || fail "mass-1.dat: a row disagrees"
grep -q "filledcurves" figs/mass.gp && pass "the band is drawn" || fail "mass.gp draws no band"

expect 0 "plot: again/mass-4.{png,svg,pdf}: zipf:V=200,K=4, position 4 (FAIL)" \
  plot report.json --out again
cmp -s figs/mass-1.dat again/mass-1.dat && pass "the JSON's figures are verify's" ||
  fail "again/mass-1.dat differs from figs/mass-1.dat"
expect 0 "plot: report-plots/mass-1" plot report.json
expect 0 "plot: no failing or suspect position: no figure in none" \
  verify --sampler ref --case zipf:V=200,K=4 --draws 20000 --seed 1 --plot none
echo '{"cases": []}' >notreport.json
expect 2 "plot notreport.json: not a report of verify --json" plot notreport.json
finish
