#!/usr/bin/env bash
# draws_floor.sh SPECVERIFY OUT_DIR: suites that fit slow samplers without
# losing rare events unseen (issue 38). --draws-scale X keeps each case's
# share of the suite's draws (tinytail, built for race_float32_truncated,
# keeps 100x zipf's where --draws N gives both N; with --draws N too, N is
# the most a case gets), and a case built for a
# rare bug that ran below the draws its power needs is named in the report
# and the JSON ("below power"), never a case built for nothing.
sv=$1
dir=$2
. "$(dirname "$0")/cli_lib.sh"
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 2

expect 2 "--draws-scale" verify --suite smoke --draws-scale abc
expect 2 "--draws-scale" verify --suite smoke --draws-scale 0

# the ci suite's draws at a hundredth each: read back from --power's JSON
# (which runs nothing) against the suite's own
expect 0 "power against race_float32_truncated" verify --suite ci --power race_float32_truncated --json whole.json
expect 0 "power against race_float32_truncated" verify --suite ci --power race_float32_truncated --draws-scale 0.01 --json scaled.json
if python3 - whole.json scaled.json <<'PY'; then pass "--draws-scale 0.01: each case a hundredth of its own"; else fail "--draws-scale's draws"; fi
import json, sys
whole, scaled = ({c["name"]: c["draws"] for c in json.load(open(p))["cases"]} for p in sys.argv[1:3])
assert whole.keys() == scaled.keys() and len(whole) > 10
for name, n in whole.items():
    assert scaled[name] == max(1, round(n / 100)), (name, n, scaled[name])
assert scaled["tinytail:V=32003,K=1"] == 5200, scaled
PY
# and with --draws N, at most N a case (a pull request's tier: the suite's
# weighting, the cap on the cases that have the most)
expect 0 "power against race_float32_truncated" verify --suite ci --power race_float32_truncated --draws-scale 0.01 --draws 20000 --json capped.json
if python3 - whole.json capped.json <<'PY'; then pass "--draws-scale 0.01 --draws 20000: a hundredth of each, at most 20000"; else fail "--draws-scale with --draws"; fi
import json, sys
whole, capped = ({c["name"]: c["draws"] for c in json.load(open(p))["cases"]} for p in sys.argv[1:3])
assert whole.keys() == capped.keys()
for name, n in whole.items():
    assert capped[name] == min(20000, max(1, round(n / 100))), (name, n, capped[name])
assert capped["seedlab:V=1000,K=5"] == 20000 and capped["logits:V=151936,K=2,T=0.7"] == 2000
PY

# below power: tinytail at 20,000 draws (its power against the float32 race
# there is about 2e-7; 1 - 1e-6 needs about 3.3e5), zipf at the same draws
# built for nothing: one line, in the text and the JSON
expect 0 "below power: tinytail:V=32003,K=1 ran 20000 draws, where its power against race_float32_truncated (the bug it was built for) is" \
  verify --case tinytail:V=32003,K=1 --case zipf:V=200,K=2 --draws 20000 --threads 2 --json short.json
if python3 - short.json <<'PY'; then pass "JSON: below_power on tinytail only, with the power formula's numbers"; else fail "JSON below_power"; fi
import json, sys
cases = {c["name"]: c for c in json.load(open(sys.argv[1]))["cases"]}
b = cases["tinytail:V=32003,K=1"]["below_power"]
assert b["variant"] == "race_float32_truncated" and b["power"] < 1e-5, b
assert 2e5 < b["draws_needed"] < 5e5 and b["power_target"] == 0.999999, b
assert "below_power" not in cases["zipf:V=200,K=2"]
PY
out=$("$sv" verify --case zipf:V=200,K=2 --draws 2000 --threads 2 2>&1)
if grep -q "below power" <<<"$out"; then
  fail "a case built for nothing said below power: $out"
else
  pass "a case built for no rare bug: no 'below power'"
fi
# at its suite draws' power (1 - 3e-12) nothing is said: the scale that keeps them
out=$("$sv" verify --suite ci --power race_float32_truncated 2>&1 | grep -c "below power")
if [ "$out" = 0 ]; then pass "--power prints no below-power line"; else fail "--power: $out below-power lines"; fi
finish
