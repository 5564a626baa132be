#!/usr/bin/env bash
# interrupt_cli.sh: nothing lost when a long verify, mutants or calibrate
# run is interrupted. SIGINT and SIGTERM stop it at the next batch: exit
# 128 + signal, the earlier result files byte for byte intact, what ran
# written to FILE.partial (verify: JSON and JUnit; mutants: Markdown and
# HDF5) and marked partial, and the text says so.
# usage: interrupt_cli.sh SPECVERIFY SCRATCH_DIR
set -u
sv=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir" || exit 1
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
"$sv" verify --case seedlab:V=64,K=2 --draws 10000 --json r.json --junit r.xml >/dev/null ||
  fail "the first, short run: exit $?"
before=$(cat r.json r.xml | md5sum)
for sig in INT TERM; do
  want=$((128 + $(kill -l "$sig")))
  rm -f r.json.partial r.xml.partial
  # 1e9 draws: minutes; two cases, so the second never starts
  "$sv" verify --case seedlab:V=1000,K=5 --case zipf:V=1000,K=8 --draws 1000000000 \
    --json r.json --junit r.xml >out.txt 2>err.txt &
  pid=$!
  sleep 3
  kill -s "$sig" "$pid"
  wait "$pid"
  rc=$?
  [ $rc -eq $want ] || fail "SIG$sig: exit $rc, want $want ($(tail -2 err.txt))"
  [ "$(cat r.json r.xml | md5sum)" = "$before" ] || fail "SIG$sig: the earlier reports changed"
  grep -Eq '"partial":[[:space:]]*true' r.json.partial &&
    grep -Eq "\"interrupted_by\":[[:space:]]*\"SIG$sig\"" r.json.partial ||
    fail "SIG$sig: r.json.partial does not say partial"
  grep -q "<error message=\"interrupted by SIG$sig: 1 of 2 cases ran" r.xml.partial ||
    fail "SIG$sig: r.xml.partial has no interrupted error"
  grep -q "^PARTIAL: interrupted by SIG$sig: 1 of 2 cases ran" out.txt ||
    fail "SIG$sig: the text report does not say partial"
  grep -q "^seedlab:V=1000,K=5 .*PASS$" out.txt || fail "SIG$sig: the cut case is not reported"
done
# mutants: the earlier table stays whole, the variants that ran go to
# FILE.partial. --full runs accept_zero_target on binary:p=0,q=1 for 2.3e8
# draws (minutes), so the signal lands inside it, after resample_from_p.
mut=(mutants --suite smoke --full --out mut)
"$sv" "${mut[@]}" --variants resample_from_p >/dev/null 2>&1 || fail "mutants, the short run: exit $?"
before=$(cat mut/mutants-smoke-full.md mut/mutants-smoke-full.h5 | md5sum)
for sig in INT TERM; do
  want=$((128 + $(kill -l "$sig")))
  rm -f mut/*.partial
  "$sv" "${mut[@]}" --variants resample_from_p,accept_zero_target >mut.out 2>mut.err &
  pid=$!
  sleep 4
  kill -s "$sig" "$pid"
  wait "$pid"
  rc=$?
  [ $rc -eq $want ] || fail "mutants SIG$sig: exit $rc, want $want ($(tail -2 mut.err))"
  [ "$(cat mut/mutants-smoke-full.md mut/mutants-smoke-full.h5 | md5sum)" = "$before" ] ||
    fail "mutants SIG$sig: the earlier table changed"
  note="interrupted by SIG$sig: 1 of 2 variants ran whole, the next cut short"
  grep -q "^\*\*PARTIAL: $note\.\*\*" mut/mutants-smoke-full.md.partial ||
    fail "mutants SIG$sig: the Markdown table does not say partial"
  grep -q "^| resample_from_p | .* | CAUGHT |$" mut/mutants-smoke-full.md.partial ||
    fail "mutants SIG$sig: the finished variant is not in the partial table"
  grep -q "^| accept_zero_target | .* | \(CAUGHT (cut short)\|CUT SHORT\) |$" \
    mut/mutants-smoke-full.md.partial || fail "mutants SIG$sig: the cut variant is not marked"
  grep -aq "$note" mut/mutants-smoke-full.h5.partial ||
    fail "mutants SIG$sig: the HDF5 file has no partial attribute"
  grep -q "^PARTIAL: $note" mut.out || fail "mutants SIG$sig: the text does not say partial"
done

# calibrate: the runs that finished are tested, marked PARTIAL
"$sv" calibrate --runs 100000 >cal.out 2>cal.err &
pid=$!
sleep 3
kill -s INT "$pid"
wait "$pid"
rc=$?
[ $rc -eq 130 ] || fail "calibrate SIGINT: exit $rc, want 130 ($(tail -2 cal.err))"
grep -q "^PARTIAL: interrupted by SIGINT after [0-9]* of 100000 runs (the run cut short is left out)" \
  cal.out || fail "calibrate SIGINT: the text does not say partial: $(head -3 cal.out)"
grep -q "^PARTIAL, \(CALIBRATED\|NOT CALIBRATED\): \|too few p-values" cal.out ||
  fail "calibrate SIGINT: no verdict of the runs that finished"

echo "$failures failed"
[ "$failures" -eq 0 ]
