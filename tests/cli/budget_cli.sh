#!/usr/bin/env bash
# budget_cli.sh: `verify --budget SECONDS` (issue 37): bad values refused,
# a numpy sampler's run within the budget plus its probes, and what it
# prints checked: each case's min-det against the report's own at position 1
# (N = the draws chosen), a rare-event case's power against verify --power.
# usage: budget_cli.sh SPECVERIFY NUMPY_SAMPLER_FILE SCRATCH_DIR
set -u
sv=$1
numpy=$2:numpy_chain
dir=$3
rm -rf "$dir"
mkdir -p "$dir"
. "$(dirname "$0")/cli_lib.sh"
cd "$dir" || exit 1

expect 2 "--budget" verify --suite smoke --budget abc
expect 2 "--budget" verify --suite smoke --budget 0
expect 2 "give --budget 17 or more" verify --suite ci --budget 3
expect 2 "--plan prints the suite's sizing" verify --suite smoke --budget 20 --plan
expect 2 "--power runs nothing" verify --suite smoke --budget 20 --power accept_ratio_inverted

# run SUITE BUDGET: the run's stdout in SUITE.out; fails past budget + probes + 30 s
run() {
  local start end probes
  start=$(date +%s.%N)
  "$sv" verify --python "$numpy" --suite "$1" --budget "$2" >"$1.out" 2>"$1.err"
  local rc=$?
  end=$(date +%s.%N)
  probes=$(sed -nE 's/^probe: .* ([0-9.]+) s \(the sampler.*/\1/p' "$1.err")
  if [ "$rc" -ne 0 ] || [ -z "$probes" ]; then
    fail "verify --suite $1 --budget $2 -> exit $rc: $(tail -3 "$1.err")"
    return
  fi
  if awk -v s="$start" -v e="$end" -v b="$2" -v p="$probes" 'BEGIN { exit !(e - s <= b + p + 30) }'; then
    pass "verify --suite $1 --budget $2: $(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }') s, probes $probes s"
  else
    fail "verify --suite $1 --budget $2 took $(awk -v s="$start" -v e="$end" 'BEGIN { print e - s }') s (probes $probes s)"
  fi
}

# each case's min-det in the budget's table = the report's at position 1
# (its N is the draws chosen, within 1%)
check_min_det() {
  /usr/bin/python3 - "$1" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
plan, report = {}, {}
for m in re.finditer(r"^(\S+)\s+(\d+)\s+(\d+)\s+\S+\s+\S+\s+([0-9.]+)\s+[0-9.]+$", text, re.M):
    plan[m.group(1)] = (int(m.group(2)), float(m.group(4)))
for m in re.finditer(r"^(\S+)\s+1\s+(\d+)\s.*?\)\s+([0-9.]+)\s", text, re.M):
    report[m.group(1)] = (int(m.group(2)), float(m.group(3)))
# a mixed batch's cases of one vocabulary share its sequences: at a few
# hundred draws their split can move from the asked (their sum kept); those
# are left out, and at least three cases must be left to compare
moved = [c for c in plan if c in report and abs(plan[c][0] - report[c][0]) > 0.01 * plan[c][0]]
bad = [c for c in plan if c not in moved and (c not in report or
       abs(plan[c][1] - report[c][1]) > 0.01 * plan[c][1])]
print(len(plan) - len(moved), "cases; moved by mixing:", moved, "differ:", bad)
sys.exit(1 if bad or len(plan) - len(moved) < 3 else 0)
PY
}

run smoke 20
if out=$(check_min_det smoke.out); then pass "smoke: min-det per case as the report's: $out"; else fail "smoke: $out"; fi
expect_line() { grep -qE "$2" "$1" && pass "$1: '$2'" || fail "$1 lacks '$2': $(head -3 "$1")"; }
expect_line smoke.out "^budget: in 20 s: each case at [0-9.]+% or more of the suite's draws; min-det TV [0-9.]+ to "
expect_line smoke.out "kept for one SUSPECT re-run"

run ci 60
if out=$(check_min_det ci.out); then pass "ci: min-det per case as the report's: $out"; else fail "ci: $out"; fi
expect_line ci.out "^budget: in 60 s: each case at .*tinytail's race_float32_truncated power .* at the suite's draws\)"
# tinytail's power at the draws chosen, recomputed by verify --power at them
draws=$(sed -nE 's/^tinytail:V=32003,K=1, built for race_float32_truncated: power .* at ([0-9]+) draws.*/\1/p' ci.out)
said=$(sed -nE 's/^tinytail:V=32003,K=1, built for race_float32_truncated: power ([0-9.e -]+) at.*/\1/p' ci.out)
"$sv" verify --power race_float32_truncated --suite ci --draws "${draws:-1}" >power.out 2>&1
if /usr/bin/python3 - "$said" power.out <<'PY'
import re, sys
said = sys.argv[1].strip()
said = 1 - float(said[4:]) if said.startswith("1 - ") else float(said)
rows, on = [], False
for line in open(sys.argv[2]):
    if line.startswith("tinytail:V=32003,K=1"):
        on = True
    elif line.strip() and not line.startswith(" "):
        on = False
    if on and line.strip():
        rows.append(float(line.split()[-2]))
miss = 1.0
for p in rows:
    miss *= 1 - p
print(said, 1 - miss)
sys.exit(0 if rows and abs(said - (1 - miss)) <= 0.002 else 1)
PY
then pass "ci: tinytail's power at $draws draws as verify --power's"
else fail "ci: tinytail's power '$said' at '$draws' draws against $(cat power.out | grep -A3 tinytail)"; fi

# a sampler of the packed layout alone (the probe's uniform batches are not
# for it: each case runs alone) that starts slowly, 0.5 s a process as a
# torch import: the probe refused its layout once, then stopped after its
# first round, whose rate held the start-up, and gave a case of a 10 s
# budget a few hundred draws. At numpy_chain's rate (over 10^5 draws/s
# here), the run's draws must be at least 20,000.
slow="$(dirname "$2")/packed_slow_start.py:packed_slow_start"
"$sv" verify --python "$slow" --case identical:V=100,K=2 --budget 10 --json slow.json \
  >slow.out 2>slow.err
rc=$?
got=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cases"][0]["runs"][0]["draws"])' slow.json 2>/dev/null)
if [ $rc -eq 0 ] && [ "${got:-0}" -ge 20000 ]; then
  pass "a packed-only sampler with a 0.5 s start: --budget 10 gave $got draws ($(grep '^probe' slow.err))"
else
  fail "a packed-only sampler with a 0.5 s start: exit $rc, ${got:-no} draws: $(tail -2 slow.err)"
fi
# a probe round runs only the cases whose rate is not yet known: each run
# starts the sampler's process (a Python one: its interpreter, its imports),
# and known cases once started it again every round. At V = 151936 the
# sampler sleeps 1 ms a sequence, so that case's second round (1024 draws)
# takes over the quarter second that measures a rate: any later round runs
# the other case alone. The probe's line counts each round's cases; the
# sampler's starts (one to load it, one a case a round) must be those,
# counted where each starts an interpreter (SV_PYTHON_FORK=0: no fork
# server); with the server, one interpreter serves them all
counted="$(dirname "$2")/starts_counted.py:starts_counted"
SV_PYTHON_FORK=0 "$sv" verify --python "$counted" --case logits:V=151936,K=2 \
  --case zipf:V=50,K=2 --plan >starts.out 2>starts.err ||
  fail "verify --plan of starts_counted: exit $?"
rounds=$(grep -oE "rate on [0-9]+ cases|, [0-9]+ again" starts.err | grep -oE "[0-9]+" | paste -sd+)
starts=$(grep -o "starts_counted: a process started" starts.err | wc -l)
later=$(grep -oE ", [0-9]+ again" starts.err | tail -n +2 | grep -vc ", 1 again")
if [[ $rounds == 2+2* ]] && [ "$starts" -eq $((1 + rounds)) ] && [ "$later" -eq 0 ]; then
  pass "probe: $starts process starts, 1 + $rounds: the measured case not run again"
else
  fail "probe: $starts process starts against rounds of $rounds cases: $(grep -m1 '^probe' starts.err)"
fi
"$sv" verify --python "$counted" --case logits:V=151936,K=2 --case zipf:V=50,K=2 --plan \
  >server.out 2>server.err || fail "verify --plan of starts_counted, fork server: exit $?"
starts=$(grep -o "starts_counted: a process started" server.err | wc -l)
[ "$starts" -eq 1 ] && pass "probe: 1 interpreter started with the fork server" ||
  fail "probe: $starts interpreters started with the fork server (want 1)"
finish
