#!/bin/bash
# rules_results.sh [BUILD] [OUT]: the results of the rules beyond the chain
# (docs/rules.md), committed under results/rules/: the references of exact
# match and block verification on the ci suite (text and JSON; the block
# report holds its accepted length against the chain rule's), their
# calibration over 200 seeds of smoke, the three broken variants of the
# rules against the ci suite, and tokens per step of the chain, exact-match
# and block references side by side on one case over temperature (three
# sweeps of the same case, seed and draws; tokens-per-step.md joins them).
# Each file names the machine it ran on.
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

for s in ref_exact ref_block; do
  run "$out/verify-ci-$s.txt" "$sv" verify --suite ci --sampler "$s" --json "$out/verify-ci-$s.json"
  run "$out/calibrate-$s-smoke.txt" "$sv" calibrate --sampler "$s" --runs 200 --suite smoke
done
run "$out/mutants-ci-rules.txt" "$sv" mutants --suite ci --out "$out" \
  --variants exact_match_argmax,exact_match_shared_sample,block_residual_tokenwise

case_spec=logits:V=1000,K=5
for s in ref ref_exact ref_block; do
  run "$out/sweep-$s.txt" "$sv" sweep --case "$case_spec" --T 0.3:1.5:5 --draws 100000 \
    --sampler "$s" --out "$out/sweep-$s"
done
python3 - "$out" "$case_spec" <<'PY' > "$out/tokens-per-step.md"
import re, sys
out, spec = sys.argv[1], sys.argv[2]
rules = [("ref", "chain"), ("ref_exact", "exact match"), ("ref_block", "block")]
rows = {}
for s, _ in rules:
    table = False  # the first table only: | T | K | E analytic | E measured | ...
    for line in open(f"{out}/sweep-{s}/sweep.md"):
        if line.startswith("| T | K | E analytic"):
            table = True
        elif table and not line.startswith("|"):
            break
        m = re.match(r"\| ([\d.]+) \| (\d+) \| ([\d.]+) \| ([\d.]+) \|", line)
        if table and m:
            rows.setdefault((float(m[1]), int(m[2])), {})[s] = (m[3], m[4])
print(f"# Tokens per step by rule: {spec}\n")
print("The same case, seed (1) and draws (100000 per point) through the three")
print("references; made by experiments/rules_results.sh from the sweeps beside")
print("this file. Analytic: the chain's sum of min(p, q) products, exact match's")
print("sum of p q products; block verification has no closed form (measured).\n")
print("| T | K | chain analytic | chain measured | exact match analytic | exact match measured | block measured | block / chain |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|")
for (T, K), r in sorted(rows.items()):
    c, e, b = r["ref"], r["ref_exact"], r["ref_block"]
    print(f"| {T:g} | {K} | {c[0]} | {c[1]} | {e[0]} | {e[1]} | {b[1]} | {float(b[1]) / float(c[1]):.3f} |")
PY
