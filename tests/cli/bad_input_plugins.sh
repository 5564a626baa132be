#!/usr/bin/env bash
# bad_input_plugins.sh: plugins that cannot be loaded (missing, not a shared
# library, no entry symbol, another contract version) are refused with exit
# 2 and a message naming the file; samplers that misbehave at run time (ids
# out of range, outputs left unwritten, an error status, a crash inside the
# plugin) fail the case (exit 1) with a finding that names the sampler, the
# case and what went wrong. A crash by signal is caught and the report is
# still written, whether the sampler runs in its own process (the default) or
# in the harness's (--in-process); an abort in process is named on stderr
# and earlier reports stay whole.
# usage: bad_input_plugins.sh SPECVERIFY SCRATCH_DIR CRASH_PLUGIN MISBEHAVE_PLUGIN
#                             NO_SYMBOL_PLUGIN BAD_VERSION_PLUGIN
set -u
sv=$1
dir=$2
crash=$3
misbehave=$4
no_symbol=$5
bad_version=$6
rm -rf "$dir"
mkdir -p "$dir"
. "$(dirname "$0")/cli_lib.sh"
cd "$dir" || exit 1

case=zipf:V=50,K=2
# ---- plugins that cannot be loaded: exit 2 before anything runs
echo "not a library" >not_a_library.so
expect 2 "plugin $dir/missing.so: no such file" verify --plugin "$dir/missing.so"
expect 2 "cannot load it as a shared library" verify --plugin "$dir/not_a_library.so"
expect 2 "exports no 'sv_plugin_get' symbol" verify --plugin "$no_symbol"
expect 2 "built against sampler contract version 42, but this specverify speaks versions 1 to 8" \
  verify --plugin "$bad_version"
expect 2 "cannot load it as a shared library" calibrate --plugin "$dir/not_a_library.so"
expect 2 "no such file" bench --plugin "$dir/missing.so"
expect 2 "the plugins offer 4 samplers; choose one with --sampler" verify --plugin "$crash"

# ---- contract breaches: the case fails with a finding saying what
run=(--case "$case" --draws 4000 --batch 1000 --threads 1) # one thread: the first call's request 0 first
# misbehaves SAMPLER WORDS: verify fails the case (exit 1), saying WORDS
misbehaves() { expect 1 "$2" verify --plugin "$misbehave" --sampler "$1" "${run[@]}"; }
misbehaves ids_out_of_range "request 0 of the batch (seed 1): position 1 emitted token 50 outside [0, 50)"
misbehaves count_out_of_range "request 0 of the batch (seed 1): accepted count 3 outside [0, 2]"
misbehaves unwritten "request 0 of the batch (seed 1): accepted count left unwritten"
misbehaves tokens_unwritten "request 0 of the batch (seed 1): position 1 left unwritten (n = 0)"
misbehaves verify_error "sampler verify_error: verify of sequences 0..999 returned status 1 (EINVAL"
misbehaves init_error "sampler init_error: init failed with status 2 (ENOMEM: an allocation failed): the workspace of 64 GiB"
misbehaves bad_status "returned status 7 (not a status of sv_sampler.h)"
# a sampler's own words on a failed call (contract version 4), isolated and in process
misbehaves explains "returned status 4 (EINTERNAL): KeyError: 'temperature' (sampler.py:12 in verify)xxx"
expect 1 "returned status 4 (EINTERNAL): KeyError: 'temperature'" \
  verify --in-process --plugin "$misbehave" --sampler explains "${run[@]}"

# ---- crashes inside the plugin: caught, named, the report written
# passed WHAT: no failure since the mark
mark() { before_block=$failures; }
passed() {
  [ "$failures" -eq "$before_block" ] && echo "PASS: $1" && passes=$((passes + 1))
}
mark
# one thread: with two, the calls of sequences 10000.. and 11000.. both
# crash, and which one does first is the scheduler's choice
"$sv" verify --plugin "$crash" --sampler crash_segv --case "$case" --case zipf:V=60,K=3 \
  --draws 20000 --batch 1000 --threads 1 --json segv.json --junit segv.xml >segv.out 2>segv.err
rc=$?
[ $rc -eq 1 ] || fail "crash_segv: exit $rc, want 1 ($(cat segv.err))"
grep -q "^specverify: sampler crash_segv crashed with SIGSEGV (segmentation fault.*) in verify, case zipf:V=50,K=2, sequences 10000\.\.10999$" segv.err ||
  fail "crash_segv: stderr does not name sampler, case and sequences: $(cat segv.err)"
grep -q "^FAIL *zipf:V=50,K=2: sampler crash_segv crashed with SIGSEGV .* in verify of sequences 10000\.\.10999$" segv.out ||
  fail "crash_segv: the text report has no finding for the crash"
grep -q '"findings":.*sampler crash_segv crashed with SIGSEGV' segv.json ||
  fail "crash_segv: the JSON report does not name the crash"
grep -q 'sampler crash_segv crashed with SIGSEGV' segv.xml || fail "crash_segv: JUnit has no crash"
grep -q "zipf:V=60,K=3.*sequences 10000\.\.10999" segv.err ||
  fail "crash_segv: the second case did not run (each crash is caught): $(cat segv.err)"

passed "crash_segv: exit 1, named on stderr and in the text, JSON and JUnit reports"
expect 1 "sampler crash_stack crashed with SIGSEGV" \
  verify --plugin "$crash" --sampler crash_stack "${run[@]}"
expect 1 "sampler crash_init crashed with SIGSEGV (segmentation fault: a bad pointer or a stack overflow) in init, case zipf:V=50,K=2" \
  verify --plugin "$crash" --sampler crash_init "${run[@]}"

# abort, isolated (the default): it ends the sampler's process only; the
# case fails with the finding and the report is written
expect 1 "sampler crash_abort crashed with SIGABRT (abort: a failed assert or a corrupt heap) in verify of sequences 0..999" \
  verify --plugin "$crash" --sampler crash_abort "${run[@]}" --json abort-isolated.json
mark
if grep -q 'crash_abort crashed with SIGABRT' abort-isolated.json; then
  passed "crash_abort isolated: in the JSON report"
else
  fail "crash_abort isolated: no report"
fi

# abort in process: said at once, exit 1, no report written and the earlier one whole
mark
"$sv" verify --case "$case" --draws 2000 --json abort.json >/dev/null 2>&1 || fail "first run"
before=$(md5sum <abort.json)
"$sv" verify --in-process --plugin "$crash" --sampler crash_abort "${run[@]}" --json abort.json \
  >abort.out 2>abort.err
rc=$?
[ $rc -eq 1 ] || fail "crash_abort: exit $rc, want 1"
grep -q "^specverify: sampler crash_abort crashed with SIGABRT (abort.*) in verify, case zipf:V=50,K=2, sequences .*; after an abort the heap may be corrupt; exiting with status 1" abort.err ||
  fail "crash_abort: stderr: $(cat abort.err)"
[ "$(md5sum <abort.json)" = "$before" ] || fail "crash_abort: the earlier report changed"
ls abort.json.tmp.* >/dev/null 2>&1 && fail "crash_abort: left a temporary file"
passed "crash_abort in process: exit 1 at once, named on stderr, the earlier report whole"

# the crash guard in process too: caught, named, the report written
expect 1 "sampler crash_segv crashed with SIGSEGV (segmentation fault: a bad pointer or a stack overflow) in verify of sequences 10000..10999" \
  verify --in-process --plugin "$crash" --sampler crash_segv --case "$case" --draws 20000 --batch 1000
expect 1 "sampler crash_stack crashed with SIGSEGV" \
  verify --in-process --plugin "$crash" --sampler crash_stack "${run[@]}"

finish
