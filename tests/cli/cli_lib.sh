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
