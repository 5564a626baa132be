# cli_lib.sh: what the command-line test scripts share (sourced; $sv is the
# specverify to run): counting, and expect CODE WORDS ARGS...
failures=0
passes=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
pass() {
  echo "PASS: $*"
  passes=$((passes + 1))
}
# expect CODE WORDS ARGS...: specverify ARGS exits with CODE and says WORDS
# (stdout and stderr together)
expect() {
  local code=$1 words=$2
  shift 2
  local out rc
  out=$("$sv" "$@" 2>&1)
  rc=$?
  if [ "$rc" -ne "$code" ] || ! grep -qF -- "$words" <<<"$out"; then
    fail "specverify $* -> exit $rc (wanted $code), output: ${out:0:600} (wanted '$words')"
  else
    pass "specverify $* -> $code"
  fi
}
# the last line of a script: the counts, and its exit status
finish() {
  echo "$passes passed, $failures failed"
  [ "$failures" -eq 0 ]
}
# untimed FILE: a report without what depends on the clock (the summary's rate)
untimed() { sed -E 's/ in [0-9.]+ s \([0-9.]+ M draws\/s,/ in - s (- M draws\/s,/' "$1"; }
# batchless FILE: a report but for the index in its batch that a finding
# names its request by: a shard's (or an MPI rank's) calls batch other
# sequences than the whole run's (a Markov case's streams are cut per
# shard), so that index is the call's own; the rest of the words (seed,
# position, token) and their order must agree.
batchless() { sed -E 's/request [0-9]+ of the batch/request - of the batch/g' "$1"; }
# same_json A B: two JSON reports equal but for seconds and draws per second
same_json() {
  /usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
def strip(o):
    if isinstance(o, dict):
        return {k: strip(v) for k, v in o.items() if k not in ("seconds", "draws_per_second")}
    if isinstance(o, list):
        return [strip(v) for v in o]
    return o
a, b = (strip(json.load(open(p))) for p in sys.argv[1:3])
sys.exit(0 if a == b else 1)
PY
}
