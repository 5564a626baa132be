#!/usr/bin/env bash
# old_contracts_cli.sh: a sampler of contract version 1 or 2 takes every
# check its batches allow (issue 36). Its batches carry a seed and a first
# index, so seed sensitivity and batch-composition invariance (the same
# sequence in another batch size) run; only what needs the version 3 arrays
# is left out, and the report says which.
# usage: old_contracts_cli.sh SPECVERIFY SCRATCH_DIR V1_PLUGIN V1_SEEDLESS_PLUGIN V2_PLUGIN
set -u
sv=$1
dir=$2
v1=$3
v1_seedless=$4
v2=$5
rm -rf "$dir"
mkdir -p "$dir"
. "$(dirname "$0")/cli_lib.sh"
cd "$dir" || exit 1

run=(--suite smoke --threads 2)

# a version 1 sampler that ignores the seed: right in law, caught by the probe
expect 1 "seed sensitivity: all 256 probed sequences gave the same tokens under other seeds" \
  verify --plugin "$v1_seedless" --sampler old_linear "${run[@]}" --json seedless.json
if /usr/bin/python3 - seedless.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
runs = [c["runs"][0] for c in r["cases"] if "seed_sensitivity" in c["runs"][0]]
seed = [x["seed_sensitivity"]["verdict"] for x in runs]
# every case with randomness to follow FAILs (greedy's tokens are fixed: n/a)
assert seed.count("FAIL") == 4 and seed.count("n/a") == 1, seed
assert all(x["batch_composition"]["verdict"] == "PASS" for x in runs)
assert "seed sensitivity" not in r["checks_not_taken"], r["checks_not_taken"]
PY
then
  pass "seedless.json: seed sensitivity FAILs on every case with randomness, batch composition PASSes"
else
  fail "seedless.json: not the probes' verdicts wanted"
fi

# the correct version 1 and 2 samplers still pass, the probes run, and the
# report leaves out only what needs the version 3 arrays
expect 0 "6 cases: 6 passed, 0 suspect, 0 failed" verify --plugin "$v1" --sampler old_linear \
  "${run[@]}" --json v1.json
expect 0 "6 cases: 6 passed, 0 suspect, 0 failed" verify --plugin "$v2" --sampler old_v2 \
  "${run[@]}" --json v2.json
expect 0 "checks not taken: mixed batches, ragged drafts, the packed layout, per-sequence seeds and rules (a sampler" \
  verify --plugin "$v1" --sampler old_linear "${run[@]}"
for f in v1.json v2.json; do
  if /usr/bin/python3 - "$f" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
runs = [c["runs"][0] for c in r["cases"] if "seed_sensitivity" in c["runs"][0]]
assert len(runs) == 5, len(runs)  # every case but the Markov pair
seed = [x["seed_sensitivity"]["verdict"] for x in runs]
assert seed.count("PASS") == 4 and seed.count("n/a") == 1, seed  # greedy: nothing to follow
for x in runs:  # batch_composition's seeded_probed: every sequence of an older sampler
    assert x["seed_sensitivity"]["probed"] == 256
    assert x["batch_composition"]["verdict"] == "PASS" and x["batch_composition"]["seeded_probed"] == 256
PY
  then
    pass "$f: seed sensitivity and batch composition probed and passed"
  else
    fail "$f: the probes did not run or did not pass"
  fi
done
finish
