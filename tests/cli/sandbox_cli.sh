#!/usr/bin/env bash
# sandbox_cli.sh: a sampler that attacks the harness's process is stopped by
# a layer of the sandbox and gets a FAIL (exit 1) that names what it tried,
# with the reports written: never exit 0, a hang, a lost report, or a
# process left behind (issue 36). C samplers (plugin_attacks.c) and Python
# ones (tests/python/hostile_sandbox.py), under every layer the machine
# allows, then with the PID namespace and Landlock turned off (the
# fallbacks: signals only to itself, its processes swept); the report's
# header names the layers; --sandbox strict refuses a machine without one.
# usage: sandbox_cli.sh SPECVERIFY SCRATCH_DIR ATTACK_PLUGIN HOSTILE_PLUGIN HOSTILE_PY
set -u
sv=$1
dir=$2
attacks=$3
hostile=$4
hostile_py=$5
rm -rf "$dir"
mkdir -p "$dir/reports"
. "$(dirname "$0")/cli_lib.sh"
cd "$dir" || exit 1

case=zipf:V=50,K=2
run=(--case "$case" --draws 4000 --batch 1000 --threads 1 --call-timeout 60)
py_run=(--case "$case" --draws 4000 --batch 500 --threads 1 --call-timeout 120)
export SV_TEST_FORGE="$dir/reports/forged.json"
export PYTHONPATH="$(dirname "$hostile_py")${PYTHONPATH:+:$PYTHONPATH}"

# attack LABEL WORDS SAMPLER_ARGS...: specverify run as this shell's pid (so
# the sampler knows the harness's), within 120 s; exit 1, WORDS in the text
# and JSON reports, the reports' folder holding the reports alone
attack() {
  local label=$1 words=$2
  shift 2
  rm -f reports/*
  SV_TEST_HARNESS_PID= timeout -s KILL 120 bash -c \
    'export SV_TEST_HARNESS_PID=$$; exec "$@"' _ "$sv" verify "$@" \
    --json reports/report.json >"reports/$label.out" 2>"$label.err"
  local rc=$?
  if [ $rc -ne 1 ]; then
    fail "$label: exit $rc, wanted 1 ($(head -c 600 "$label.err"))"
  elif ! grep -qF -- "$words" "reports/$label.out"; then
    fail "$label: the report does not say '$words': $(grep -m2 FAIL "reports/$label.out")"
  elif ! grep -qF -- "$words" reports/report.json; then
    fail "$label: the JSON report does not say '$words'"
  elif [ -e reports/forged.json ]; then
    fail "$label: the sampler wrote into the reports' folder"
  else
    pass "$label: FAIL, '$words', reports written"
  fi
}

# gone LABEL: the daemon the sampler said it started is not running
gone() {
  local pid
  pid=$(grep -o 'daemon pid [0-9]*' "$1.err" | grep -o '[0-9]*$' | head -1)
  if [ -z "$pid" ]; then
    fail "$1: the daemon's pid was not relayed: $(head -c 400 "$1.err")"
  elif kill -0 "$pid" 2>/dev/null; then
    fail "$1: daemon $pid still runs after the run"
    kill -KILL "$pid"
  else
    pass "$1: daemon $pid is gone"
  fi
}

attacks_all() {
  local tag=$1 sig_words=$2
  attack "$tag-proc_mem" "$mem_words" --plugin "$attacks" --sampler proc_mem "${run[@]}"
  attack "$tag-ptrace" "made a system call the sandbox forbids: ptrace(pid" \
    --plugin "$attacks" --sampler ptrace_harness "${run[@]}"
  attack "$tag-vm_write" "made a system call the sandbox forbids: process_vm_writev(pid" \
    --plugin "$attacks" --sampler vm_write "${run[@]}"
  attack "$tag-stop_parent" "made a system call the sandbox forbids: kill(pid $sig_words" \
    --plugin "$attacks" --sampler stop_parent "${run[@]}"
  attack "$tag-kill_parent" "made a system call the sandbox forbids: kill(pid" \
    --plugin "$attacks" --sampler kill_parent "${run[@]}"
  attack "$tag-daemon" "sampler daemon left 1 process running when its process ended" \
    --plugin "$attacks" --sampler daemon "${run[@]}"
  gone "$tag-daemon"
  attack "$tag-write_report" "$write_words" --plugin "$attacks" --sampler write_report "${run[@]}"
}

# the watch: an attempt the sampler does not own up to is named all the same
mem_words="/mem, the memory of the harness, with openat (the sandbox refused it and stopped the sampler)"
write_words="reports/forged.json in the reports' folder $dir/reports with openat (the sandbox refused it and stopped the sampler)"
export SV_TEST_FORGE_REL=reports/forged.json
watched() {
  attack quiet_mem "sampler quiet_mem tried to read /proc/" --plugin "$attacks" --sampler quiet_mem "${run[@]}"
  grep -qF -- "$mem_words" reports/quiet_mem.out ||
    fail "quiet_mem: the FAIL does not say '$mem_words': $(grep -m1 FAIL reports/quiet_mem.out)"
  attack quiet_write "sampler quiet_write tried to write $dir/$write_words" \
    --plugin "$attacks" --sampler quiet_write "${run[@]}"
  py && attack py-quiet_mem "sampler quiet_mem tried to read /proc/" \
    --python "$hostile_py:quiet_mem" "${py_run[@]}"
  py && attack py-quiet_write "sampler quiet_write tried to write $dir/$write_words" \
    --python "$hostile_py:quiet_write" "${py_run[@]}"
  # the control: writes where Landlock allows them are the sampler's business
  "$sv" verify --plugin "$attacks" --sampler scratch_write "${run[@]}" --json reports/scratch.json \
    >scratch.out 2>&1
  local rc=$?
  [ $rc -eq 0 ] && pass "scratch_write: writes in its scratch folder pass (exit 0)" ||
    fail "scratch_write: exit $rc: $(grep -m2 -e FAIL -e specverify: scratch.out)"
}

# ---- every layer the machine allows (the default)
"$sv" verify --suite smoke --draws 2000 >header.out 2>&1
layers=$(grep -m1 '^sandbox:' header.out)
echo "layers here: $layers"
[ -n "$layers" ] && pass "the header names the layers: $layers" ||
  fail "no 'sandbox:' line in the report's header: $(head -5 header.out)"
if [ -z "$hostile_py" ]; then
  echo "SKIPPED: the Python attacks (specverify built without Python)"
fi
py() { [ -n "$hostile_py" ]; }
if [[ $layers == *"pidns"*"landlock"* && $layers != *"not in force"* ]]; then
  attacks_all all "1, "
  watched
  py && attack py-proc_mem "$mem_words" \
    --python "$hostile_py:proc_mem" "${py_run[@]}"
  py && attack py-stop_parent "made a system call the sandbox forbids: kill(pid 1, " \
    --python "$hostile_py:stop_parent" "${py_run[@]}"
  py && attack py-daemon "sampler daemon left 1 process running when its process ended" \
    --python "$hostile_py:daemon" "${py_run[@]}"
  py && gone py-daemon
  py && attack py-write_report "$write_words" \
    --python "$hostile_py:write_report" "${py_run[@]}"
  # a sampler's SIGINT to the harness (hostile_samplers.sh's stand-in for a
  # Ctrl-C, with --sandbox off) is an attack under the sandbox
  attack sigint "made a system call the sandbox forbids: kill(pid 1, Interrupt)" \
    --plugin "$hostile" --sampler interrupt_harness --case "$case" --draws 8000 --batch 1000 \
    --threads 1
else
  echo "SKIPPED: this machine does not allow every layer ($layers): the attacks run only in the fallbacks below"
fi

# ---- the fallbacks: no PID namespace (signals only to itself, its session
# swept), no Landlock (writes stopped by nothing: the attack is said)
export SPECVERIFY_SANDBOX_DENY=pidns
"$sv" verify --suite smoke --draws 2000 >fallback.out 2>&1
grep -q '^sandbox: nodump nopriv seccomp landlock; not in force: pidns (turned off by SPECVERIFY_SANDBOX_DENY; instead: signals only to its own process' fallback.out &&
  pass "fallback header names pidns as not in force" ||
  fail "fallback header: $(grep -m1 '^sandbox' fallback.out)"
attack nopidns-stop_parent "made a system call the sandbox forbids: kill(pid " \
  --plugin "$attacks" --sampler stop_parent "${run[@]}"
attack nopidns-daemon "sampler daemon left 1 process running when its process ended" \
  --plugin "$attacks" --sampler daemon "${run[@]}"
gone nopidns-daemon
py && attack nopidns-py-daemon "sampler daemon left 1 process running when its process ended" \
  --python "$hostile_py:daemon" "${py_run[@]}"
py && gone nopidns-py-daemon
# strict refuses a machine without every layer: exit 3, naming it
expect 3 "--sandbox strict: the sampler's sandbox cannot be set up on this machine: pidns (turned off by SPECVERIFY_SANDBOX_DENY)" \
  verify --suite smoke --sandbox strict
unset SPECVERIFY_SANDBOX_DENY

# ---- what a sampler prints cannot pass for the harness's words
"$sv" verify --plugin "$attacks" --sampler prints_forgery "${run[@]}" >forgery.out 2>forgery.err
rc=$?
if [ $rc -ne 0 ]; then
  fail "prints_forgery: exit $rc, wanted 0 (it samples correctly): $(head -c 400 forgery.err)"
elif grep -q '^6 cases: 6 passed' forgery.out forgery.err; then
  fail "prints_forgery: a forged summary line reached the output"
elif grep -q $'\x1b\|\r' forgery.out forgery.err; then
  fail "prints_forgery: an escape or carriage return reached the output"
elif ! grep -qF 'specverify: sampler prints_forgery printed: \x1b[2J\rPASS' forgery.err; then
  fail "prints_forgery: its output was not relayed, escaped: $(head -c 400 forgery.err)"
else
  pass "prints_forgery: relayed on stderr, escaped and labelled; the run PASSES as it should"
fi

# ---- a plugin's load probe runs its constructors sandboxed too: refused
expect 2 "load_ctor_ptrace.so crashed while loading (Bad system call)" \
  verify --plugin "$(dirname "$hostile")/load_ctor_ptrace.so" --suite smoke

# ---- --sandbox: bad values, and off
expect 2 "--sandbox: 'loose' is not auto, strict or off" verify --suite smoke --sandbox loose
"$sv" verify --suite smoke --draws 2000 --sandbox off >off.out 2>&1
grep -q '^sandbox: off' off.out && pass "--sandbox off is said in the header" ||
  fail "--sandbox off: $(grep -m1 '^sandbox' off.out)"

finish
