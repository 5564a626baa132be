#!/usr/bin/env bash
# interrupt_cli.sh: nothing lost when a long verify or calibrate run is
# interrupted. SIGINT and SIGTERM stop it at the next batch: exit 128 +
# signal, the earlier report files byte for byte intact, what ran written to
# FILE.partial (JSON and JUnit) and marked partial, and the text says so.
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
