#!/bin/bash
# mpi_scaling.sh [BUILD] [SUITE] [REPEATS]: draws per second of one verify
# run as one process and as MPI ranks, side by side (issue 28): one process
# with one thread, `mpirun -np 2` with one thread a rank, and, for
# reference, one process with two threads; each the median of REPEATS runs
# (default 3), alternated, on SUITE (default ci) with --no-rerun. The rate
# is the run's draws over the command's wall time, start-up and MPI's
# included. Prints a Markdown table with the machine; run it on an idle one:
#   bash experiments/mpi_scaling.sh build > results/mpi-scaling.md
set -euo pipefail
build=${1:-build}
suite=${2:-ci}
repeats=${3:-3}
sv="$build/specverify"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
machine="$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1), $(nproc) cores, $(uname -sr)"
mpi=$(mpirun --version 2>/dev/null | head -1)

# rate THREADS [LAUNCH...]: M draws per second of one run (draws from its
# JSON, time from the clock), launched as LAUNCH (mpirun's words) or alone
rate() {
  local threads=$1 t0 t1
  shift
  t0=$(date +%s.%N)
  "$@" "$sv" verify --suite "$suite" --no-rerun --threads "$threads" --json "$tmp/r.json" \
    >/dev/null 2>&1 || [ $? -eq 1 ]
  t1=$(date +%s.%N)
  python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["summary"]
print(s["draws"] / (float(sys.argv[3]) - float(sys.argv[2])) / 1e6)' "$tmp/r.json" "$t0" "$t1"
}
median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

for ((i = 0; i < repeats; i++)); do
  rate 1 >>"$tmp/one"
  rate 1 mpirun -np 2 --oversubscribe >>"$tmp/two"
  rate 2 >>"$tmp/threads"
done
one=$(median <"$tmp/one")
two=$(median <"$tmp/two")
threads=$(median <"$tmp/threads")
echo "# verify across MPI ranks: draws per second, one process against two ranks"
echo
echo "machine: $machine; $mpi; commit $(git rev-parse --short HEAD 2>/dev/null || echo '?');" \
  "$(date -u +%Y-%m-%d); suite $suite, --no-rerun, median of $repeats runs each, alternated;" \
  "draws over the command's wall time"
echo "command: bash experiments/mpi_scaling.sh $build $suite $repeats"
echo
echo "| launch | M draws/s | against one process | scaling efficiency |"
echo "|---|---:|---:|---:|"
awk -v a="$one" -v b="$two" -v c="$threads" 'BEGIN {
  printf "| one process, 1 thread | %.3f | 1.00x | |\n", a
  printf "| mpirun -np 2, 1 thread a rank | %.3f | %.2fx | %.0f%% |\n", b, b / a, 50 * b / a
  printf "| one process, 2 threads (for reference) | %.3f | %.2fx | %.0f%% |\n", c, c / a, 50 * c / a }'
