#!/usr/bin/env bash
# lacks_cli.sh: a sampler that does not implement top-k/top-p or per-request
# seeds fails for that reason alone unless it says so (sv_sampler.lacks,
# contract version 7); saying so, the cases and probes it cannot take are
# left out and named in "checks not taken", the rest pass, a run with
# nothing left is refused (exit 2), and a real defect still FAILs (issue 38).
# usage: lacks_cli.sh SPECVERIFY SCRATCH_DIR LACKS_PLUGIN LACKS_UNKNOWN_PLUGIN
set -u
sv=$1
dir=$2
plugin=$3
unknown=$4
rm -rf "$dir"
mkdir -p "$dir"
. "$(dirname "$0")/cli_lib.sh"
cd "$dir" || exit 1

# V = 1000, mixed in one batch: one case sampled by temperature, one with top-p
logits=(--input logits-f32 --case 'logits:V=1000,K=5,T=0.7' --case 'logits:V=1000,K=3,T=1.5,topp=0.9'
        --draws 200000 --threads 2 --no-rerun)
# own_rng keys each call by a process-wide counter, out of the seed's reach:
# on two threads which batch gets which key changes from run to run, and so
# would the verdicts (a sound sampler SUSPECT now and then, without a
# re-run); on one thread each run is the same run
smoke=(--suite smoke --draws 200000 --threads 1 --no-rerun)

# top-k/top-p: undeclared, the top-p case's tokens leave its cut (support)
expect 1 "logits:V=1000,K=3,T=1.5,topp=0.9: request" verify --plugin "$plugin" --sampler temp_only "${logits[@]}"
# declared: that case is left out and named; the other passes
expect 0 "checks not taken: 1 case with top-k or top-p (the sampler lacks them, SV_LACKS_TOP_K_P): logits:V=1000,K=3,T=1.5,topp=0.9" \
  verify --plugin "$plugin" --sampler temp_only_lacks "${logits[@]}" --json topkp.json
if /usr/bin/python3 - topkp.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert [c["name"] for c in r["cases"]] == ["logits:V=1000,K=5,T=0.7"], r["cases"]
assert r["lacks"] == ["top_k_p"], r["lacks"]
assert "logits:V=1000,K=3,T=1.5,topp=0.9" in r["checks_not_taken"], r["checks_not_taken"]

PY
then
  pass "topkp.json: one case run, the top-p case named in checks_not_taken, lacks [top_k_p]"
else
  fail "topkp.json: not the cases or the words wanted"
fi
# a budget over cases some of which are left out: its probe once took the
# cases run for the first ones given (stopping "after 2 of 4 cases"), and
# the run gave a case the draws of the case at its place in the run's order
expect 0 "checks not taken: 2 cases with top-k or top-p" \
  verify --plugin "$plugin" --sampler temp_only_lacks --input logits-f32 --threads 2 \
  --case 'logits:V=1000,K=3,T=1.5,topp=0.9' --case 'logits:V=1000,K=3,T=1.5' \
  --case 'logits:V=1000,K=2,T=0.7,topk=50' --case 'logits:V=500,K=2' --budget 10
# nothing left: refused before any draw
expect 2 "every case of this run has one (logits:V=1000,K=4,topk=50)" \
  verify --plugin "$plugin" --sampler temp_only_lacks --input logits-f32 \
  --case 'logits:V=1000,K=4,topk=50'
# probabilities as input carry the cut in p: nothing is left out
expect 0 "6 cases: 6 passed" verify --plugin "$plugin" --sampler own_rng_lacks "${smoke[@]}"

# per-request seeds: undeclared, a seeded request's tokens change with its batch
expect 1 "batch composition: seeded sequence" \
  verify --plugin "$plugin" --sampler own_rng "${smoke[@]}"
# declared: no sequence seeded, the probes not run, and the report says so
expect 0 "checks not taken: seeded requests and the probes that need them, batch composition and seed sensitivity" \
  verify --plugin "$plugin" --sampler own_rng_lacks "${smoke[@]}" --json seeds.json
if /usr/bin/python3 - seeds.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["seeding"] == "none" and r["lacks"] == ["seeds"], (r["seeding"], r["lacks"])
assert all("batch_composition" not in c["runs"][0] for c in r["cases"])
assert all(c["verdict"] == "PASS" for c in r["cases"]), [c["verdict"] for c in r["cases"]]
assert r["bonus"] == "sampler"
PY
then
  pass "seeds.json: seeding none, no probes, every case PASS"
else
  fail "seeds.json: not the seeding, probes or verdicts wanted"
fi
expect 2 "--seeding all: sampler own_rng_lacks says it lacks per-request seeds" \
  verify --plugin "$plugin" --sampler own_rng_lacks "${smoke[@]}" --seeding all
# a declaration hides no defect: q ignored still FAILs its accepted lengths
expect 1 "failed" verify --plugin "$plugin" --sampler own_rng_q_ignored "${smoke[@]}"

# the bonus drawn by glue, not by the engine: the report's bonus line says so
expect 0 "bonus: drawn by the harness from each bonus row (bonus=\"harness\", SV_LACKS_BONUS), not by the engine's own bonus sampler" \
  verify --plugin "$plugin" --sampler bonus_glue --case 'zipf:V=1000,K=4,s=1.1' --draws 100000
expect 2 "sampler 'lacks_unknown' says it lacks 0x200, which has bits sv_sampler.h does not define" \
  verify --plugin "$unknown" --sampler lacks_unknown --suite smoke
finish
