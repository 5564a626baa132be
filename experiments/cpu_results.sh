#!/bin/bash
# cpu_results.sh [BUILD] [OUT]: the CPU results committed under results/:
# ref on the ci suite (text and JSON), its throughput, the detection tables
# of every broken variant on smoke and on ci (with --full for the hard
# ones), and the calibration of ref.
# Each file names the machine it ran on.
set -euo pipefail
build=${1:-build}
out=${2:-results}
sv="$build/specverify"
mkdir -p "$out"
machine="$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1), $(nproc) cores, $(uname -sr)"
commit=$(git rev-parse --short HEAD 2>/dev/null || echo '?')
stamp() { echo "# machine: $machine"; echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $commit"; echo "# command: $*"; echo; }

{ stamp "$sv" verify --suite ci --sampler ref --json "$out/verify-ci-ref.json"
  "$sv" verify --suite ci --sampler ref --json "$out/verify-ci-ref.json" || echo "(exit status $?)"; } > "$out/verify-ci-ref.txt"
{ stamp "$sv" verify --case seedlab:V=1000,K=5 --draws 20000000
  "$sv" verify --case seedlab:V=1000,K=5 --draws 20000000 || echo "(exit status $?)"; } > "$out/throughput-ref-seedlab.txt"
{ stamp "$sv" mutants --suite smoke --out "$out"
  "$sv" mutants --suite smoke --out "$out" || echo "(exit status $?)"; } > "$out/mutants-smoke.txt"
{ stamp "$sv" mutants --suite ci --full --out "$out"
  "$sv" mutants --suite ci --full --out "$out" || echo "(exit status $?)"; } > "$out/mutants-ci.txt"
{ stamp "$sv" calibrate --sampler ref --runs 200 --suite smoke
  "$sv" calibrate --sampler ref --runs 200 --suite smoke || echo "(exit status $?)"; } > "$out/calibrate-ref-smoke.txt"
echo "machine: $machine" > "$out/MACHINE"
