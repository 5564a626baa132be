#!/usr/bin/env bash
# hostile_samplers.sh: a sampler can neither fake, hang nor crash the verdict
# (issue 23). Each hostile sampler of plugin_hostile.c must end as a FAIL
# (exit 1) that names it and what it did, with the reports written; in
# --in-process mode, as a FAIL or a named exit 1, never a pass or exit 0.
# Plugins that misbehave while loading are refused with exit 2.
# usage: hostile_samplers.sh SPECVERIFY SCRATCH_DIR HOSTILE_PLUGIN LOAD_PLUGIN_DIR
set -u
sv=$1
dir=$2
hostile=$3
loads=$4
rm -rf "$dir"
mkdir -p "$dir"
. "$(dirname "$0")/cli_lib.sh"
cd "$dir" || exit 1

case=zipf:V=50,K=2
run=(--case "$case" --draws 4000 --batch 1000 --threads 1)

# hostile NAME WORDS: isolated, exit 1, WORDS in the text report, in the JSON
# report, and said on stderr
hostile() {
  local name=$1 words=$2
  shift 2
  "$sv" verify --plugin "$hostile" --sampler "$name" "${run[@]}" --json "$name.json" "$@" \
    >"$name.out" 2>"$name.err"
  local rc=$?
  if [ $rc -ne 1 ]; then
    fail "$name: exit $rc, wanted 1 ($(head -c 400 "$name.err"))"
  elif ! grep -qF -- "$words" "$name.out"; then
    fail "$name: the report does not say '$words': $(grep -m2 FAIL "$name.out")"
  elif ! grep -qF -- "$words" "$name.json"; then
    fail "$name: the JSON report does not say '$words'"
  elif ! grep -qF -- "specverify: sampler $name" "$name.err"; then
    fail "$name: nothing said on stderr: $(head -c 400 "$name.err")"
  else
    pass "$name: FAIL, '$words', reports written"
  fi
}

# ---- isolated (the default): each a finding, the reports written
hostile rows_sharpened "sampler rows_sharpened modified its input rows (target row 1"
hostile bonus_in_place "sampler bonus_in_place modified its input rows (target row 3"
hostile drafts_overwrite "sampler drafts_overwrite modified its input draft tokens (those of sequence 1)"
hostile past_tokens "sampler past_tokens wrote 256 bytes past the end of out_tokens (beyond the K+1 slots of sequence 999"
hostile before_tokens "before the start of out_tokens (before the K+1 slots of sequence 0"
hostile past_accepted "past the end of out_accepted (beyond the count of sequence 999"
hostile far_past_tokens "sampler far_past_tokens wrote past the end of out_tokens"
hostile exit_zero "sampler exit_zero exited (exit status 0; a sampler must return, not exit) in verify of sequences 0..999"
hostile quick_exit_zero "sampler quick_exit_zero exited (exit status 0"
hostile thread_segv "sampler thread_segv crashed with SIGSEGV (segmentation fault: a bad pointer or a stack overflow) on a thread it created, during verify of sequences 0..999"
start=$SECONDS
hostile hang "sampler hang did not return within 2 s (--call-timeout; it was stopped) in verify of sequences 0..999" --call-timeout 2
[ $((SECONDS - start)) -lt 30 ] && pass "hang: stopped in $((SECONDS - start)) s" ||
  fail "hang: took $((SECONDS - start)) s"
# two threads: the other slot's call ends with the child, one finding
hostile past_tokens "wrote 256 bytes past the end of out_tokens" --threads 2
# a crash in the harness's sampler process leaves the next case to run
"$sv" verify --plugin "$hostile" --sampler exit_zero --case "$case" --case zipf:V=60,K=3 \
  --draws 2000 --threads 1 >two.out 2>two.err
grep -q "^FAIL *zipf:V=60,K=3: sampler exit_zero exited" two.out &&
  pass "exit_zero: the second case ran in a fresh process and failed too" ||
  fail "exit_zero: the second case: $(grep -m3 -e FAIL -e zipf two.out)"

# ---- SIGINT while a call hangs: said at once, the run ends when the call does
"$sv" verify --plugin "$hostile" --sampler hang "${run[@]}" --call-timeout 4 \
  --json int.json >int.out 2>int.err &
pid=$!
sleep 1.5
kill -INT $pid
# said at once: well before the call's 4 s are up (polled, for a loaded machine)
said=0
for _ in 1 2 3 4 5 6 7 8 9 10; do
  grep -q "specverify: SIGINT: waiting for sampler hang's verify of sequences 0..999 (running for [0-9.]* s) to return" int.err &&
    ! grep -q "did not return within" int.err && said=1 && break
  sleep 0.2
done
if [ $said -eq 1 ]; then
  pass "SIGINT during a hung call: said at once what it waits for"
else
  fail "SIGINT during a hung call: stderr within 2 s: $(cat int.err)"
fi
wait $pid
rc=$?
[ $rc -eq 130 ] && [ -s int.json.partial ] && grep -q "did not return within 4 s" int.json.partial &&
  pass "SIGINT during a hung call: exit 130, the partial report names the hung call" ||
  fail "SIGINT during a hung call: exit $rc, $(ls int.json* 2>&1)"

# ---- on a terminal the notice starts a line of its own, below the progress line
# drawn in place, not glued to its end (issue 39); script(1) gives it a pty
if command -v script >/dev/null 2>&1; then
  printf -v cmd '%q ' exec "$sv" verify --plugin "$hostile" --sampler hang "${run[@]}" \
    --call-timeout 4 --json tty.json
  script -qfec "$cmd" tty.log </dev/null >/dev/null 2>&1 &
  spid=$!
  pid=
  for _ in $(seq 50); do
    pid=$(pgrep -P $spid | head -1)
    [ -n "$pid" ] && grep -q "draws" tty.log 2>/dev/null && break
    sleep 0.1
  done
  sleep 0.5
  [ -n "$pid" ] && kill -INT "$pid"
  wait $spid
  lines=$(tr -d '\r' <tty.log)
  if grep -q '\[1/1\] zipf:V=50,K=2: 0/4000 draws' <<<"$lines" &&
    grep -q '^specverify: SIGINT: waiting for sampler hang' <<<"$lines"; then
    pass "SIGINT on a terminal: the notice starts its own line, below the progress line"
  else
    fail "SIGINT on a terminal: the notice is not on its own line: $(cat -v tty.log | head -c 600)"
  fi
else
  pass "SIGINT on a terminal: skipped (no script(1) for a pty)"
fi

# ---- a SIGINT stops the run after the batch it lands in, not batches later
# (isolated, the signal crosses processes: it may land while the next batch
# is taken, which then runs too; in process it is there before the call returns)
for mode in "" --in-process; do
  # --sandbox off: the sandbox (rightly) forbids a sampler to signal the
  # harness (sandbox_cli.sh); here the signal stands for a Ctrl-C
  "$sv" verify --plugin "$hostile" --sampler interrupt_harness --case "$case" --draws 1000000 \
    --batch 1000 --threads 1 --json next.json --sandbox off $mode >next.out 2>&1
  rc=$?
  draws=$(grep -o '"draws":[[:space:]]*[0-9]*' next.json.partial 2>/dev/null | head -1 | grep -o '[0-9]*$')
  want="6000 $([ -z "$mode" ] && echo 7000)"
  [ $rc -eq 130 ] && [[ " $want " == *" ${draws:-none} "* ]] &&
    pass "SIGINT ${mode:-isolated}: stopped after the batch it landed in ($draws draws)" ||
    fail "SIGINT ${mode:-isolated}: exit $rc, ${draws:-no} draws, want 130 and $want"
done

# ---- in process: caught where a process can catch it, never a pass or exit 0
expect 1 "sampler rows_sharpened modified its input rows (target row 1" \
  verify --in-process --plugin "$hostile" --sampler rows_sharpened "${run[@]}"
expect 1 "sampler past_tokens wrote 256 bytes past the end of out_tokens" \
  verify --in-process --plugin "$hostile" --sampler past_tokens "${run[@]}"
expect 1 "sampler past_accepted wrote 4 bytes past the end of out_accepted" \
  verify --in-process --plugin "$hostile" --sampler past_accepted "${run[@]}"
expect 1 "sampler exit_zero called exit() inside a call" \
  verify --in-process --plugin "$hostile" --sampler exit_zero "${run[@]}"
# _exit(0) is an exit_group the calling thread's seccomp rule traps (issue 36)
expect 1 "sampler quick_exit_zero ended the process inside a call (_exit or exit_group, status 0)" \
  verify --in-process --plugin "$hostile" --sampler quick_exit_zero "${run[@]}"
expect 1 "on a thread outside the calls while sampler thread_segv was running" \
  verify --in-process --plugin "$hostile" --sampler thread_segv "${run[@]}"
expect 1 "sampler hang did not return from verify of sequences 0..999 within 1 s" \
  verify --in-process --plugin "$hostile" --sampler hang "${run[@]}" --call-timeout 1

# ---- plugins that misbehave while loading: refused, exit 2
expect 2 "load_ctor_segv.so crashed while loading (SIGSEGV)" verify --plugin "$loads/load_ctor_segv.so"
expect 2 "load_ctor_exit.so ended the process while loading (exit status 0)" \
  verify --plugin "$loads/load_ctor_exit.so"
expect 2 "load_wild_plugin.so crashed while loading (SIGSEGV)" verify --plugin "$loads/load_wild_plugin.so"
expect 2 "load_wild_samplers.so crashed while loading (SIGSEGV)" \
  verify --plugin "$loads/load_wild_samplers.so"
expect 2 "is named 'bad,name'; a name is 1 to 64 of a-z, 0-9 and _" \
  list --plugin "$loads/load_bad_name.so"
expect 2 "says it takes inputs 0x80, which has bits sv_sampler.h does not define" \
  verify --plugin "$loads/load_bad_inputs.so"
expect 2 "load_bad_layouts.so: sampler 'load_hostile' says it takes layouts 0x22, which has bits sv_sampler.h does not define" \
  verify --plugin "$loads/load_bad_layouts.so"
expect 0 "load_hostile                 host  plugin    (no description)" \
  list --plugin "$loads/load_null_desc.so"
expect 2 "crashed while loading (SIGSEGV)" calibrate --plugin "$loads/load_ctor_segv.so"

finish
