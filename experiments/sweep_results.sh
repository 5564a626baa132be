#!/bin/bash
# sweep_results.sh [BUILD] [OUT]: the acceptance-vs-temperature results
# committed under results/sweep/: for synthetic families, the seed lab's
# temperatures {0.2, 0.7, 1.0, 1.5} and a fine sweep from 0.05 to 2, K in
# {1, 2, 3, 5, 8}, with ref measuring. Each folder has sweep.h5, sweep.md,
# plot.gp, its data and PNG/SVG plots; COMMAND.txt says how it was made.
set -euo pipefail
build=${1:-build}
out=${2:-results/sweep}
sv="$build/specverify"
machine="$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1), $(nproc) cores, $(uname -sr)"
run() { # run NAME ARGS...: one sweep into OUT/NAME
  local name=$1
  shift
  mkdir -p "$out/$name"
  { echo "machine: $machine"; echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "command: $sv sweep $* --out $out/$name"; } > "$out/$name/COMMAND.txt"
  "$sv" sweep "$@" --out "$out/$name" > /dev/null
}
run logits-seedlab-T --case logits:V=1000,K=5 --T 0.2,0.7,1,1.5 --K 1,2,3,5,8 --draws 200000
run logits-fine-T --case logits:V=1000,K=5 --T 0.05:2:40 --K 1,2,3,5,8 --draws 200000
run onehot-fine-T --case onehot:V=1000,K=5 --T 0.05:2:40 --K 1,2,3,5,8 --draws 200000
run logits-topk50-topp0.9 --case logits:V=32000,K=4,topk=50,topp=0.9 --T 0.2,0.7,1,1.5 \
  --K 1,2,4 --draws 100000
# the shipped recording of real text (distributions/recordings/README.md):
# a word 4-gram target and a bigram drafter, 200 steps spread over the draws
run ngram-fortunes-T --recorded distributions/recordings/ngram-fortunes.h5 --T 0,0.5,0.7,1,1.5 \
  --K 1,2,4 --draws 400000
