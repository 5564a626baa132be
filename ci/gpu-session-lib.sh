# ci/gpu-session-lib.sh: a device call's parts under one deadline, and the
# README of what ran (sourced by ci/gpu-session; tests/cli/gpu_session_cli.sh
# drives it with stand-in parts). Each part runs under `timeout`, its output
# in OUT/session-NAME.log; its row says ran, failed (exit N), did not finish
# (stopped at its limit) or not run (the session's time was spent).

# session_begin OUT SECONDS: the session ends SECONDS from now
session_begin() {
  SESSION_OUT=$1
  SESSION_END=$((SECONDS + $2))
  SESSION_TOTAL=$2
  SESSION_ROWS=()
  SESSION_NOTES=()
  SESSION_BAD=0
  SESSION_START=$(date -u +%Y-%m-%dT%H:%M:%SZ)
}

# session_step NAME LIMIT COMMAND...: COMMAND under min(LIMIT, what is left),
# not run when less than SESSION_MIN_LEFT (default 20) seconds are left
session_step() {
  local name=$1 want=$2
  shift 2
  local left=$((SESSION_END - SECONDS))
  if [ "$left" -lt "${SESSION_MIN_LEFT:-20}" ]; then
    SESSION_ROWS+=("$name|$want|-|not run: ${left} s of the session's ${SESSION_TOTAL} s were left")
    echo "session: $name: not run (${left} s left)"
    SESSION_BAD=1
    return 0
  fi
  local lim=$((want < left ? want : left)) t0=$SECONDS rc=0 result
  echo "session: $name (limit $lim s): $*"
  timeout -k 10 "$lim" "$@" >"$SESSION_OUT/session-$name.log" 2>&1 || rc=$?
  case $rc in
    0) result="ran" ;;
    124 | 137) result="did not finish: stopped at its limit of $lim s"; SESSION_BAD=1 ;;
    *) result="failed (exit $rc): see session-$name.log"; SESSION_BAD=1 ;;
  esac
  SESSION_ROWS+=("$name|$lim|$((SECONDS - t0))|$result")
  echo "session: $name: $result, $((SECONDS - t0)) s"
}

# session_note TEXT: a line under the table
session_note() {
  SESSION_NOTES+=("$1")
  echo "session: $1"
}

# session_readme DEVICE COMMIT COMMAND: the README in OUT, a section a run (a
# second run into the same folder adds its own, the first one's kept)
session_readme() {
  local readme=$SESSION_OUT/README.md row name lim took result
  {
    if [ -s "$readme" ]; then echo; else echo "# What ran on the GPU, and what did not"; echo; fi
    echo "## $3 at $2 on $1 ($SESSION_START)"
    echo
    echo "One device call, ${SESSION_TOTAL} s for the whole, each part of ci/gpu under"
    echo "its own limit (docs/gpu.md#outstanding-gpu-work); each part's files and"
    echo "logs are here (session-PART.log, and ci/gpu's own: docs/gpu.md#cigpu)."
    echo
    echo "| part | limit (s) | took (s) | result |"
    echo "|---|---:|---:|---|"
    for row in "${SESSION_ROWS[@]}"; do
      IFS='|' read -r name lim took result <<<"$row"
      echo "| $name | $lim | $took | $result |"
    done
    if [ ${#SESSION_NOTES[@]} -gt 0 ]; then
      echo
      printf -- '- %s\n' "${SESSION_NOTES[@]}"
    fi
  } >>"$readme"
  echo "session: $readme"
}

# session_status: 0 when every part ran and passed, else 1
session_status() {
  return $SESSION_BAD
}
