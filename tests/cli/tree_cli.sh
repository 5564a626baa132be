#!/bin/bash
# tree_cli.sh SPECVERIFY OUTDIR: the tree rules from the command line (issue
# 27). The references pass on fixed-row and Markov cases with independent and
# distinct siblings and on a multi-draft tree; the sibling-law variant fails
# the depth law and the transitions; bad trees and misplaced tree flags are
# refused with exit 2, naming what was wrong. Fixed seeds: a pass here fails
# by chance with probability at most 1e-6 per run (the family-wise rate).
set -u
sv=$1 out=$2
. "$(dirname "$0")/cli_lib.sh"
rm -rf "$out" && mkdir -p "$out"

cases=(--case zipf:V=200,K=3 --case markov:V=64,K=4 --draws 200000 --no-rerun)
for s in ref_tree ref_tree_target_only; do
  for sib in iid distinct; do
    expect 0 "2 cases: 2 passed" verify --sampler "$s" --siblings "$sib" "${cases[@]}"
  done
done
# multi-draft: four independent drafts of three tokens each
expect 0 "1 cases: 1 passed" verify --sampler ref_tree --tree 4x1x1 --case zipf:V=200,K=3 \
  --draws 200000 --no-rerun
# the report names the tree, and the JSON says the rule and the tree
expect 0 "tree: 3x2x1 iid" verify --sampler ref_tree --case zipf:V=50,K=3 --draws 20000 \
  --json "$out/tree.json"
if grep -qE '"rule":[[:space:]]*"tree"' "$out/tree.json" &&
  grep -qE '"tree":[[:space:]]*"3x2x1 iid"' "$out/tree.json"; then
  pass "the JSON report carries the rule and the tree"
else
  fail "the JSON report lacks the rule or the tree: $(head -c 400 "$out/tree.json")"
fi
# the broken sibling law: its depth law and the emitted chain are off
expect 1 "accepted depth given each step's tree" verify --sampler tree_siblings_replaced \
  --case markov:V=64,K=4 --draws 200000 --no-rerun
# right where the siblings really were distinct
expect 0 "1 cases: 1 passed" verify --sampler tree_siblings_replaced --siblings distinct \
  --case markov:V=64,K=4 --draws 200000 --no-rerun

# bad input: exit 2, naming what was wrong
expect 2 "--tree '3x0': not a tree shape" verify --sampler ref_tree --tree 3x0
expect 2 "--tree '3x': not a tree shape" verify --sampler ref_tree --tree 3x
expect 2 "too many nodes" verify --sampler ref_tree --tree 4x4
expect 2 "--siblings 'some': give iid" verify --sampler ref_tree --siblings some
expect 2 "--tree is for a tree rule's sampler; sampler ref implements the chain rule" \
  verify --sampler ref --tree 2x2
expect 2 "fewer than the 3 distinct siblings" verify --sampler ref_tree --siblings distinct \
  --case binary:p=0.3,q=0.6 --draws 1000
expect 2 "sampler ref_tree does not take logits-f32 input" verify --sampler ref_tree \
  --input logits-f32

# sweep: a tree's tokens per step beside the chain's on the same rows. On
# zipf:V=1000,K=3 recursive rejection over a 3x2x1 tree emits about 2.75
# tokens a step at depth 3 against the chain's 2.33 (40000 draws each: the
# standard errors are under 0.01, so "more than the chain's" cannot fail by
# chance)
expect 0 "ref_tree (tree) E measured" sweep --case zipf:V=1000,K=3 --sampler ref,ref_tree \
  --K 1,3 --draws 40000 --out "$out/sweep"
row=$(grep -E '^\| - \| 3 \|' "$out/sweep/rules.md")
chain=$(echo "$row" | awk -F'|' '{print $4}') tree=$(echo "$row" | awk -F'|' '{print $6}')
if awk -v c="$chain" -v t="$tree" 'BEGIN {exit !(t + 0 > c + 0.2)}'; then
  pass "sweep: the tree's tokens per step at depth 3 ($tree) exceed the chain's ($chain)"
else
  fail "sweep: the tree's tokens per step ($tree) do not exceed the chain's ($chain): $row"
fi
if grep -q "ref_tree (tree 3x2x1, iid siblings)" "$out/sweep/ref_tree/sweep.md"; then
  pass "sweep: the tree sampler's tables name its tree"
else
  fail "sweep: $out/sweep/ref_tree/sweep.md does not name the tree"
fi
expect 2 "K = 4 is deeper than the tree 3x2x1 (depth 3)" sweep --case zipf:V=100,K=4 \
  --sampler ref_tree --draws 1000
expect 2 "--tree is for a tree rule's sampler, and --sampler names none" sweep \
  --case zipf:V=100,K=2 --sampler ref --tree 2x2 --draws 1000
expect 2 "has sampler 'ref_tree (tree 3x2x1, iid siblings)'" sweep --case zipf:V=1000,K=3 \
  --sampler ref_tree --tree 2x2x2 --K 1,3 --draws 40000 --out "$out/sweep/ref_tree" --resume
finish
