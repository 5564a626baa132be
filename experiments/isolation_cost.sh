#!/bin/bash
# isolation_cost.sh [BUILD] [REPEATS]: what running the sampler in a child
# process of its own costs (issue 23's bound: within 10% at B = 4096).
# Draws per second of ref, isolated (the default) and --in-process, run
# alternately REPEATS times (default 3) on the ci suite and on one
# fixed-row case, at --batch 4096 on every core; prints a Markdown table of
# the medians and the ratio, with the machine. Run it on an idle machine:
#   bash experiments/isolation_cost.sh build > results/isolation-cost.md
set -euo pipefail
build=${1:-build}
repeats=${2:-3}
sv="$build/specverify"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
machine="$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1), $(nproc) cores, $(uname -sr)"

# rate ARGS...: draws per second of one verify run, from its JSON summary
rate() {
  "$sv" verify --sampler ref --batch 4096 --json "$tmp/r.json" "$@" >/dev/null
  python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["summary"]; print(s["draws"]/s["seconds"])' \
    "$tmp/r.json"
}
median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

echo "# Isolation cost: draws per second of ref, isolated and in process"
echo
echo "machine: $machine; commit $(git rev-parse --short HEAD 2>/dev/null || echo '?');" \
     "$(date -u +%Y-%m-%d); --batch 4096, $(nproc) threads, median of $repeats runs each, alternated"
echo "command: bash experiments/isolation_cost.sh $build $repeats"
echo
echo "| workload | isolated (M draws/s) | --in-process (M draws/s) | isolated / in-process |"
echo "|---|---:|---:|---:|"
for workload in "--suite ci" "--case seedlab:V=1000,K=5 --draws 20000000"; do
  read -r -a args <<<"$workload"
  : >"$tmp/iso"
  : >"$tmp/inp"
  for ((i = 0; i < repeats; i++)); do
    rate "${args[@]}" >>"$tmp/iso"
    rate "${args[@]}" --in-process >>"$tmp/inp"
  done
  iso=$(median <"$tmp/iso")
  inp=$(median <"$tmp/inp")
  awk -v w="$workload" -v a="$iso" -v b="$inp" \
    'BEGIN {printf "| `verify %s` | %.3f | %.3f | %.3f |\n", w, a / 1e6, b / 1e6, a / b}'
done
