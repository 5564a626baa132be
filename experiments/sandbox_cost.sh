#!/bin/bash
# sandbox_cost.sh [BUILD] [REPEATS]: what the sampler's sandbox costs (issue
# 36's bound: within 5% at B = 4096). Draws per second with every layer
# (--sandbox auto, the default) and with none (--sandbox off: the child
# process alone), run alternately REPEATS times (default 3): ref on the ci
# suite at --batch 4096, and the numpy sampler of tests/python on the ci
# suite at 5,000 draws a case (its own draws take an hour). Prints a
# Markdown table of the medians and the ratio, with the machine and the
# layers in force. Run it on an idle machine:
#   bash experiments/sandbox_cost.sh build > results/sandbox-cost.md
set -euo pipefail
build=${1:-build}
repeats=${2:-3}
sv="$build/specverify"
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
machine="$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1), $(nproc) cores, $(uname -sr)"
export PYTHONPATH="$here/tests/python:$build/python${PYTHONPATH:+:$PYTHONPATH}"

# rate ARGS...: draws per second of one verify run, from its JSON summary
rate() {
  "$sv" verify --batch 4096 --json "$tmp/r.json" "$@" >/dev/null 2>&1 || true
  python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["summary"]; print(s["draws"]/s["seconds"])' \
    "$tmp/r.json"
}
median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

echo "# Sandbox cost: draws per second with every layer and with none"
echo
echo "machine: $machine; commit $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?');" \
     "$(date -u +%Y-%m-%d); --batch 4096, $(nproc) threads, median of $repeats runs each, alternated"
echo "layers: $("$sv" verify --suite smoke --draws 1000 2>/dev/null | grep -m1 '^sandbox:')"
echo "command: bash experiments/sandbox_cost.sh $build $repeats"
echo
echo "| workload | sandbox auto (draws/s) | --sandbox off (draws/s) | auto / off |"
echo "|---|---:|---:|---:|"
for workload in "--sampler ref --suite ci" \
                "--python $here/tests/python/numpy_chain.py:numpy_chain --suite ci --draws 5000"; do
  read -r -a args <<<"$workload"
  : >"$tmp/on"
  : >"$tmp/off"
  for ((i = 0; i < repeats; i++)); do
    rate "${args[@]}" >>"$tmp/on"
    rate "${args[@]}" --sandbox off >>"$tmp/off"
  done
  on=$(median <"$tmp/on")
  off=$(median <"$tmp/off")
  shown=${workload//$here\//}
  awk -v w="$shown" -v a="$on" -v b="$off" \
    'BEGIN {printf "| `verify %s` | %.4g | %.4g | %.3f |\n", w, a, b, a / b}'
done
