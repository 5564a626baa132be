#!/usr/bin/env bash
# report_data.sh SPECVERIFY OUT_DIR MISBEHAVE_PLUGIN: the JSON report as data
# (issue 37): each position's counts in its tests' bins, summing to N and
# giving back the chi-square; findings naming the request as the sampler saw
# it. (verify --power --json and mutants' JSON: mutants_cli.sh, test_api.py.)
sv=$1
dir=$2
misbehave=$3
. "$(dirname "$0")/cli_lib.sh"
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 2

# ---- counts: zipf at V = 1000 on 20,000 draws pools a tail (token -1)
expect 0 "1 cases: 1 passed" verify --sampler ref --case zipf:V=1000,K=2 --draws 20000 \
  --threads 2 --json counts.json
if python3 - counts.json <<'PY'; then pass "counts sum to N and give the chi-square"; else fail "counts"; fi
import json, sys
d = json.load(open(sys.argv[1]))
assert d["report_format"] == 2
for p in d["cases"][0]["runs"][0]["positions"]:
    c = p["counts"]
    assert len(c["tokens"]) == len(c["observed"]) == len(c["expected"]) == p["bins"]
    assert sum(c["observed"]) + c["outside_support"] == p["N"], p["position"]
    stat = sum((o - e) ** 2 / e for o, e in zip(c["observed"], c["expected"]))
    assert abs(stat - p["chi2"]["stat"]) <= 1e-9 * max(1.0, stat), (stat, p["chi2"])
    assert c["tokens"][-1] == -1 and p["pooled_tail_categories"] > 0
PY

# ---- a contract breach names the request: its index in the batch, its seed
expect 1 "request 0 of the batch (seed 1): accepted count 3 outside [0, 2]" \
  verify --plugin "$misbehave" --sampler count_out_of_range --case zipf:V=50,K=2 --draws 4000 \
  --batch 1000 --threads 1 --json breach.json --junit breach.xml
if grep -q '"request 0 of the batch (seed 1): accepted count 3' breach.json &&
   ! grep -q '4611686018427387904\|"draw [0-9]' breach.json; then
  pass "the JSON's findings name the request"
else
  fail "the JSON's findings: $(grep -m3 'request\|draw' breach.json)"
fi

# issue 39: the FAIL names the command that runs the case alone, shell-quoted;
# run as printed, it fails the same way, and the JSON holds it too
cmd=$("$sv" verify --plugin "$misbehave" --sampler count_out_of_range --case zipf:V=50,K=2 \
  --draws 4000 --batch 1000 --threads 1 2>&1 | sed -n 's/^FAIL    zipf:V=50,K=2: to run it alone: //p')
if [ -n "$cmd" ] && grep -q "^specverify verify --plugin '.*' --sampler 'count_out_of_range' --case 'zipf:V=50,K=2' --seed 1 --draws 4000$" <<<"$cmd"; then
  out=$(eval "\"$sv\"${cmd#specverify}" 2>&1); rc=$?
  if [ $rc -eq 1 ] && grep -q "accepted count 3 outside \[0, 2\]" <<<"$out"; then
    pass "the printed command runs the case alone and fails the same way"
  else
    fail "the printed command -> $rc: $(tail -3 <<<"$out")"
  fi
else
  fail "no 'to run it alone' command: $cmd"
fi
grep -q '"reproduce":[[:space:]]*"specverify verify --plugin' breach.json && pass "the JSON's reproduce" ||
  fail "breach.json has no reproduce"

# JUnit files the breach under the contract's testcase
if python3 - breach.xml <<'PY'; then pass "JUnit: the breach in the contract testcase"; else fail "JUnit's contract testcase: $(grep -m2 contract breach.xml)"; fi
import sys, xml.etree.ElementTree as ET
tc = [t for t in ET.parse(sys.argv[1]).getroot().iter("testcase") if t.get("name") == "contract"]
failure = tc[0].find("failure")
assert failure is not None and "request 0 of the batch (seed 1)" in (failure.text or ""), failure
PY
finish
