#!/bin/bash
# rules_results.sh [BUILD] [OUT]: the results of the rules beyond the chain
# (docs/rules.md), committed under results/rules/: the references of exact
# match and block verification on the ci suite (text and JSON; the block
# report holds its accepted length against the chain rule's), their
# calibration over 200 seeds of smoke, the three broken variants of the
# rules against the ci suite, and tokens per step of the chain, exact-match,
# block and typical-acceptance references side by side on one case over
# temperature (`sweep --sampler LIST`: sweep/rules.md and a folder each);
# and the tree rules' references (tree 3x2x1, independent and distinct
# siblings) on ci, calibrated over 200 seeds of smoke, with their two broken
# variants. Each file names the machine it ran on. ONLY=trees runs the tree
# part alone.
set -euo pipefail
build=${1:-build}
out=${2:-results/rules}
sv="$build/specverify"
mkdir -p "$out"
machine="$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1), $(nproc) cores, $(uname -sr)"
commit=$(git rev-parse --short HEAD 2>/dev/null || echo '?')
stamp() { echo "# machine: $machine"; echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $commit"; echo "# command: $*"; echo; }
run() { # run FILE COMMAND...: the command's output, stamped, in FILE
  local file=$1
  shift
  { stamp "$@"; "$@" 2>&1 || echo "(exit status $?)"; } > "$file"
}

trees() {
  for s in ref_tree ref_tree_target_only; do
    for sib in iid distinct; do
      run "$out/verify-ci-$s-$sib.txt" "$sv" verify --suite ci --sampler "$s" --siblings "$sib" \
        --json "$out/verify-ci-$s-$sib.json"
    done
    run "$out/calibrate-$s-smoke.txt" "$sv" calibrate --sampler "$s" --runs 200 --suite smoke
  done
  # tokens per step: the chain, recursive rejection over a 3x2x1 tree and the
  # target-only rule on the same rows, over temperature
  run "$out/sweep-trees.txt" "$sv" sweep --case logits:V=1000,K=3 --T 0.3,0.9,1.5 \
    --sampler ref,ref_tree,ref_tree_target_only --tree 3x2x1 --draws 200000 --out "$out/sweep-trees"
  run "$out/mutants-ci-trees.txt" "$sv" mutants --suite ci --out "$out/trees" \
    --variants tree_siblings_replaced,tree_cdf_boundary --full
}
if [ "${ONLY:-}" = trees ]; then
  trees
  exit 0
fi

for s in ref_exact ref_block; do
  run "$out/verify-ci-$s.txt" "$sv" verify --suite ci --sampler "$s" --json "$out/verify-ci-$s.json"
  run "$out/calibrate-$s-smoke.txt" "$sv" calibrate --sampler "$s" --runs 200 --suite smoke
done
run "$out/mutants-ci-rules.txt" "$sv" mutants --suite ci --out "$out" \
  --variants exact_match_argmax,exact_match_shared_sample,block_residual_tokenwise

run "$out/sweep-rules.txt" "$sv" sweep --case logits:V=1000,K=5 --T 0.3:1.5:5 --draws 100000 \
  --sampler ref,ref_exact,ref_block,ref_typical --out "$out/sweep"
trees
