#!/bin/bash
# mixed_cost.sh [BUILD] [REPEATS] [SAMPLER]: what mixed batches cost beside
# uniform ones (issue 25's bound: mixed within 15% of uniform). Draws per
# second of `verify --suite ci` with --batches mixed (the default: every
# sequence its own rows, ragged drafts, seeded and not, the probes) and
# --batches uniform (one case broadcast per batch), run alternately
# REPEATS times (default 3) with SAMPLER (default ref_race, which takes
# contract v3 batches); prints a Markdown table of the medians and the
# ratio, with the machine. Run it on an idle machine:
#   bash experiments/mixed_cost.sh build > results/mixed-cost.md
set -euo pipefail
build=${1:-build}
repeats=${2:-3}
sampler=${3:-ref_race}
sv="$build/specverify"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
machine="$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1), $(nproc) cores, $(uname -sr)"

# rate ARGS...: draws per second of one verify run, from its JSON summary
rate() {
  "$sv" verify --sampler "$sampler" --suite ci --no-rerun --json "$tmp/r.json" "$@" >/dev/null ||
    [ $? -eq 1 ] # a verdict is not what this measures
  python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["summary"]; print(s["draws"]/s["seconds"])' \
    "$tmp/r.json"
}
median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

echo "# Mixed batches: draws per second of \`verify --suite ci\`, mixed and uniform"
echo
echo "machine: $machine; commit $(git rev-parse --short HEAD 2>/dev/null || echo '?');" \
     "$(date -u +%Y-%m-%d); sampler $sampler, --batch 4096, $(nproc) threads, median of" \
     "$repeats runs each, alternated"
echo "command: bash experiments/mixed_cost.sh $build $repeats $sampler"
echo
echo "| batches | M draws/s | mixed / uniform |"
echo "|---|---:|---:|"
: >"$tmp/mixed"
: >"$tmp/uniform"
for ((i = 0; i < repeats; i++)); do
  rate --batches mixed >>"$tmp/mixed"
  rate --batches uniform >>"$tmp/uniform"
done
mixed=$(median <"$tmp/mixed")
uniform=$(median <"$tmp/uniform")
awk -v a="$mixed" -v b="$uniform" 'BEGIN {
  printf "| uniform (one case broadcast per batch) | %.3f | |\n", b / 1e6
  printf "| mixed (the default) | %.3f | %.3f |\n", a / 1e6, a / b }'
