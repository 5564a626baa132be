#!/usr/bin/env bash
# measure_cli.sh: `verify --measure` drops verdicts only for a lossy rule
# (issue 36). A lossless rule measured keeps its verdicts and exit status,
# with the distances beside them; typical acceptance is measured, not judged.
# usage: measure_cli.sh SPECVERIFY SCRATCH_DIR
set -u
sv=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir"
. "$(dirname "$0")/cli_lib.sh"
cd "$dir" || exit 1

# json_field FILE KEY: the report's top-level KEY, as Python prints it
json_field() { /usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }

# a broken chain sampler (its residual from max(q - p, 0)) on a case where it
# keeps the contract: before the fix --measure let it off with exit 0
lossless=(--sampler residual_swapped --case zipf:V=200,K=4 --draws 100000 --threads 2)
expect 1 "FAIL    zipf:V=200,K=4: position 1: token" verify "${lossless[@]}" --measure \
  --json swapped.json
expect 1 "measured, beside the verdicts" verify "${lossless[@]}" --measure
expect 1 "1 cases: 0 passed, 0 suspect, 1 failed" verify "${lossless[@]}" --measure
if [ "$(json_field swapped.json measure) $(json_field swapped.json judged)" = "True True" ]; then
  pass "a lossless rule measured: the JSON says measure and judged"
else
  fail "swapped.json: measure $(json_field swapped.json measure), judged $(json_field swapped.json judged)"
fi

# ref measured: its verdicts pass, the distances are printed too
expect 0 "measured, beside the verdicts" verify --sampler ref --suite smoke --threads 2 --measure
expect 0 "6 cases: 6 passed, 0 suspect, 0 failed" verify --sampler ref --suite smoke --threads 2 \
  --measure

# the lossy rule: measured in place of verdicts, exit 0 though it is not p
expect 0 "measured, not judged" verify --sampler ref_typical --suite smoke --threads 2 --measure \
  --json typical.json
expect 0 "6 cases measured." verify --sampler ref_typical --suite smoke --threads 2 --measure
expect 1 "lossy by design: judged here as if lossless" verify --sampler ref_typical --suite smoke \
  --threads 2
if [ "$(json_field typical.json measure) $(json_field typical.json judged)" = "True False" ]; then
  pass "a lossy rule measured: the JSON says measure, not judged"
else
  fail "typical.json: measure $(json_field typical.json measure), judged $(json_field typical.json judged)"
fi
finish
