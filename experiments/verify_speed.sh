#!/bin/bash
# verify_speed.sh [BUILD] [SAMPLERS]: where `verify` spends its time with a
# fast sampler. Draws per second of one verify run per (sampler, case,
# isolation, batches): isolated (the default) against --in-process, and
# mixed batches (the default) against --batches uniform, on a V = 1000 case,
# a V = 32000 case and a V = 32000 logits case (bf16 input, where the
# sampler takes logits). SAMPLERS defaults to "cuda_fused ref_race": on a GPU
# the first is the CUDA sampler, the second the same rule on the host's
# cores, which shows what the harness's own drafting and counting reach.
# A CUDA sampler's runs, mixed and uniform, are timed with --device-staging
# too (drafts, check and counts on the GPU: docs/gpu.md#device-staging;
# mixed batches since issue 40), beside the host staging of the same runs;
# n/a for a host sampler. Issue 40's target: mixed within 80% of uniform.
# Prints a Markdown table with the machine (and the GPU, where there is one):
#   bash experiments/verify_speed.sh build > results/gpu/<device>/verify-speed.md
set -uo pipefail
build=${1:-build}
samplers=${2:-cuda_fused ref_race}
sv="$build/specverify"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
machine="$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1), $(nproc) cores, $(uname -sr)"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)

# one verify run: prints "M draws/s" from its JSON summary, or why not
rate() {
  local rc=0
  "$sv" verify --no-rerun --json "$tmp/r.json" "$@" >"$tmp/log" 2>&1 || rc=$?
  if [ "$rc" -gt 1 ] || [ ! -s "$tmp/r.json" ]; then
    echo "exit $rc: $(tail -1 "$tmp/log" | tr '|' '/')"
    return
  fi
  python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["summary"]
v = "pass" if s["failed"] == 0 and s["suspect"] == 0 else "FINDING"
print("%.3f (%d draws, %.2f s, %s)" % (s["draws"] / s["seconds"] / 1e6, s["draws"], s["seconds"], v))' \
    "$tmp/r.json"
  rm -f "$tmp/r.json"
}

echo "# verify's speed: isolation and mixed batches, by case"
echo
echo "machine: $machine${gpu:+; GPU: $gpu}; commit" \
  "${SV_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo '?')}; $(date -u +%Y-%m-%dT%H:%MZ);" \
  "--batch 65536, one run each"
echo "command: bash experiments/verify_speed.sh $build \"$samplers\""
echo
head="| sampler | case | input |" rule="|---|---|---|"
for iso in isolated "in process"; do
  for b in mixed uniform; do
    head+=" $iso, $b | $iso, $b, device staging |" rule+="---|---|"
  done
done
echo "$head"
echo "$rule"
cases=("zipf:V=1000,K=8|probs|10000000"
  "zipf:V=32000,K=4,s=1.3,s2=1|probs|2000000"
  "logits:V=32000,K=4,T=0.8,topk=50,topp=0.9|logits-bf16|1000000")
for s in $samplers; do
  for c in "${cases[@]}"; do
    IFS='|' read -r spec input draws <<<"$c"
    row="| $s | \`$spec\` | $input"
    cuda=$("$sv" list 2>/dev/null | awk -v s="$s" '$1 == s {print $2}')
    for iso in isolated in-process; do
      for b in mixed uniform; do
        args=(--sampler "$s" --case "$spec" --input "$input" --draws "$draws" --batch 65536
          --batches "$b")
        [ "$iso" = in-process ] && args+=(--in-process)
        row+=" | $(rate "${args[@]}")"
        if [ "$cuda" = cuda ]; then
          row+=" | $(rate "${args[@]}" --device-staging)"
        else
          row+=" | n/a"
        fi
      done
    done
    echo "$row |"
  done
done
