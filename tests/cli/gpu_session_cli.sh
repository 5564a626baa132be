#!/usr/bin/env bash
# gpu_session_cli.sh SOURCE_DIR SCRATCH_DIR: ci/gpu-session's deadline and
# README, with stand-in parts (no GPU needed): a part that passes, one that
# fails, one stopped at its limit, and one left without time are each said
# so in README.md, the session's status is 1, a second run adds its own
# section and keeps the first; ci/gpu-session itself, on a machine without
# a GPU, says so and exits 3 (issue 40).
src=$1 dir=$2
. "$src/tests/cli/cli_lib.sh"
rm -rf "$dir" && mkdir -p "$dir" || exit 2
. "$src/ci/gpu-session-lib.sh"

readme=$dir/README.md
has() { grep -qF -- "$2" "$1" && pass "README: $2" || fail "README lacks '$2': $(cat "$1")"; }

# 5 s for the session, a part not started with under 4 s left: the sleeper
# stopped at 2 s leaves under 4 whatever the machine's load
export SESSION_MIN_LEFT=4
session_begin "$dir" 5
session_step passes 30 true
session_step fails 30 sh -c 'echo broken; exit 4'
session_step hangs 2 sleep 30
session_step late 30 true
session_note "gpu tests that did not finish in 60 s: none"
session_readme "Stand_In_GPU" "abc1234" "bash ci/gpu-session"
session_status && fail "status 0 with a failed part" || pass "status 1"
has "$readme" "# What ran on the GPU, and what did not"
has "$readme" "## bash ci/gpu-session at abc1234 on Stand_In_GPU"
has "$readme" "| passes | "
# 5, or 4 where bash's whole-second SECONDS ticked between the two lines
grep -qE '^\| passes \| [45] \| [0-9]+ \| ran \|$' "$readme" && pass "a part's limit cut to the session's 5 s" ||
  fail "passes: $(grep passes "$readme")"
has "$readme" "| failed (exit 4): see session-fails.log |"
grep -q broken "$dir/session-fails.log" && pass "the part's output in its log" || fail "session-fails.log"
has "$readme" "| hangs | 2 | "
has "$readme" "did not finish: stopped at its limit of 2 s"
grep -qE '^\| late \| 30 \| - \| not run: -?[0-9]+ s of the session.s 5 s were left \|$' "$readme" &&
  pass "a part without time: not run, said" || fail "late: $(grep late "$readme")"
has "$readme" "- gpu tests that did not finish in 60 s: none"

# a second run into the same folder: its own section, the first kept
session_begin "$dir" 100
session_step passes 30 true
session_readme "Stand_In_GPU" "abc1234" "bash ci/gpu-session"
session_status && pass "status 0 when every part ran" || fail "status 1 for a clean run"
[ "$(grep -c '^## ' "$readme")" = 2 ] && pass "two runs, two sections" || fail "$(grep '^## ' "$readme")"
[ "$(grep -c '^# ' "$readme")" = 1 ] && pass "one title" || fail "titles: $(grep '^# ' "$readme")"

# the script on this machine: no GPU, exit 3, nothing written
out=$(cd "$dir" && PATH=/usr/bin:/bin bash "$src/ci/gpu-session" "$dir/none" 2>&1)
rc=$?
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  pass "a GPU is here: ci/gpu-session's refusal not checked"
elif [ $rc -eq 3 ] && [[ $out == *"no GPU here"* ]] && [ ! -e "$dir/none" ]; then
  pass "no GPU: exit 3, said, nothing written"
else
  fail "no GPU: exit $rc: $out"
fi
finish
