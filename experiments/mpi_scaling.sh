#!/bin/bash
# mpi_scaling.sh [BUILD] [SUITE] [REPEATS]: draws per second of one verify
# run as one process and as MPI ranks, side by side (issue 28): one process
# with THREADS threads, `mpirun -np R` with THREADS threads a rank for each
# R in RANKS, and, for reference, one process with R x THREADS threads; each
# the median of REPEATS runs (default 3), alternated, on SUITE (default ci)
# with --no-rerun. The rate is the run's draws over the command's wall
# time, start-up and MPI's included. Prints a Markdown table with the
# machine (and its GPUs); run it on an idle one:
#   bash experiments/mpi_scaling.sh build > results/mpi-scaling.md
# Environment (the defaults are the CPU table's):
#   RANKS="2"      rank counts to time (a GPU node: "2 4 8", one GPU a rank)
#   THREADS=1      threads per process
#   SAMPLER=NAME   the sampler (default verify's, ref); a CUDA sampler's
#                  ranks take one GPU each (docs/shards.md#mpi)
#   EXTRA="..."    more verify flags, e.g. "--batches uniform --device-staging"
# e.g. on a GPU node: SAMPLER=cuda_fused THREADS=4 RANKS="2 4 8" bash experiments/mpi_scaling.sh
set -euo pipefail
build=${1:-build}
suite=${2:-ci}
repeats=${3:-3}
ranks=${RANKS:-2}
threads=${THREADS:-1}
sampler=${SAMPLER:-}
read -r -a extra <<<"${EXTRA:-}"
[ -n "$sampler" ] && extra=(--sampler "$sampler" "${extra[@]}")
sv="$build/specverify"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
machine="$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1), $(nproc) cores, $(uname -sr)"
gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sort | uniq -c |
  awk '{n=$1; $1=""; printf "%s%dx%s", (NR > 1 ? ", " : ""), n, $0}' || true)
mpi=$(mpirun --version 2>/dev/null | head -1 || true)

# rate THREADS [LAUNCH...]: M draws per second of one run (draws from its
# JSON, time from the clock), launched as LAUNCH (mpirun's words) or alone
rate() {
  local n=$1 t0 t1
  shift
  t0=$(date +%s.%N)
  "$@" "$sv" verify --suite "$suite" --no-rerun --threads "$n" --json "$tmp/r.json" \
    "${extra[@]}" >/dev/null 2>"$tmp/err" || [ $? -eq 1 ] ||
    { echo "mpi_scaling: verify failed: $(tail -2 "$tmp/err")" >&2; exit 1; }
  t1=$(date +%s.%N)
  python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["summary"]
print(s["draws"] / (float(sys.argv[3]) - float(sys.argv[2])) / 1e6)' "$tmp/r.json" "$t0" "$t1"
}
median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

for ((i = 0; i < repeats; i++)); do
  rate "$threads" >>"$tmp/one"
  for r in $ranks; do
    rate "$threads" mpirun -np "$r" --oversubscribe >>"$tmp/ranks-$r"
    rate $((r * threads)) >>"$tmp/threads-$r"
  done
done
one=$(median <"$tmp/one")
plural() { [ "$1" -eq 1 ] && echo "1 thread" || echo "$1 threads"; }
echo "# verify across MPI ranks: draws per second, one process against $(
  [ "$ranks" = 2 ] && echo "two ranks" || echo "ranks ($ranks)")"
echo
echo "machine: $machine${gpus:+; GPUs: $gpus}; $mpi; commit" \
  "$(git rev-parse --short HEAD 2>/dev/null || echo '?'); $(date -u +%Y-%m-%d); suite $suite," \
  "${sampler:+sampler $sampler, }${EXTRA:+$EXTRA, }--no-rerun, median of $repeats runs each," \
  "alternated; draws over the command's wall time"
env=""
[ "$ranks" != 2 ] && env+="RANKS=\"$ranks\" "
[ "$threads" != 1 ] && env+="THREADS=$threads "
[ -n "$sampler" ] && env+="SAMPLER=$sampler "
[ -n "${EXTRA:-}" ] && env+="EXTRA=\"$EXTRA\" "
echo "command: ${env}bash experiments/mpi_scaling.sh $build $suite $repeats"
echo
echo "| launch | M draws/s | against one process | scaling efficiency |"
echo "|---|---:|---:|---:|"
printf "| one process, %s | %.3f | 1.00x | |\n" "$(plural "$threads")" "$one"
for r in $ranks; do
  mr=$(median <"$tmp/ranks-$r")
  mt=$(median <"$tmp/threads-$r")
  awk -v a="$one" -v b="$mr" -v r="$r" -v t="$(plural "$threads")" 'BEGIN {
    printf "| mpirun -np %d, %s a rank | %.3f | %.2fx | %.0f%% |\n", r, t, b, b / a, 100 * b / a / r }'
  awk -v a="$one" -v c="$mt" -v r="$r" -v t="$(plural $((r * threads)))" 'BEGIN {
    printf "| one process, %s (for reference) | %.3f | %.2fx | %.0f%% |\n", t, c, c / a, 100 * c / a / r }'
done
