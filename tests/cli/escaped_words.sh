#!/usr/bin/env bash
# escaped_words.sh: words from a sampler, a file or a user reach no report raw
# (issue 36). A sampler's message (C, from plugin_forged_words.c; Python, an
# exception from forged_words.py), a bench file's names and a user's
# arguments are built to forge a summary line (a newline, then what a passing
# run prints), erase the FAIL line (ESC [2J, CR) and break a JUnit file. In
# every format, the text on stdout and stderr, --json, --junit, a merged
# shard run and compare's Markdown, they must appear escaped: no line equals
# the forged summary, no ESC, CR or VT byte anywhere, the JSON and the XML
# parse and hold the escaped words, a Markdown row keeps its cells.
# usage: escaped_words.sh SPECVERIFY SCRATCH_DIR FORGED_PLUGIN TEST_COMPARE [PYTHON_SAMPLERS]
set -u
sv=$1
dir=$2
plugin=$3
maker=$4
python=${5:-}
rm -rf "$dir"
mkdir -p "$dir"
. "$(dirname "$0")/cli_lib.sh"
cd "$dir" || exit 1

summary='1 cases: 1 passed, 0 suspect, 0 failed.'
# what the harness shows of the plugin's words (FORGED in plugin_forged_words.c)
escaped='bad\n1 cases: 1 passed, 0 suspect, 0 failed.\x1b[2J\rX\x0b</failure>|\xe2\x80\xa8\xc2\x9b\xff\\n'
# and of the Python sampler's (FORGED in forged_words.py: a str has no byte 0xff)
escaped_py=${escaped/'\xff'/}
run=(--case zipf:V=50,K=2 --draws 4000 --batch 1000 --threads 1)

# clean WHAT FILE...: no line starts with the forged summary, no ESC, CR or VT byte
clean() {
  local what=$1
  shift
  if grep -q -- "^1 cases: 1 passed" "$@"; then
    fail "$what: a line is the forged summary: $(grep -n -- "^1 cases: 1 passed" "$@" | head -3)"
  elif LC_ALL=C grep -q $'[\x1b\r\v]' "$@"; then
    fail "$what: a raw ESC, CR or VT byte: $(LC_ALL=C grep -n $'[\x1b\r\v]' "$@" | cat -A | head -3)"
  else
    pass "$what: no forged line, no raw control byte"
  fi
}

# holds WHAT WORDS FILE: FILE says WORDS, verbatim
holds() {
  if grep -qF -- "$2" "$3"; then
    pass "$1: holds the escaped words"
  else
    fail "$1: '$2' not in $3: $(head -c 600 "$3" | cat -A)"
  fi
}

# json_junit NAME WORDS: NAME.json parses and a finding holds WORDS; NAME.xml
# parses (xml.etree) and a <failure> holds WORDS
json_junit() {
  local out
  out=$(/usr/bin/python3 - "$1" "$2" <<'PY' 2>&1
import json, sys
import xml.etree.ElementTree as ET
name, words = sys.argv[1], sys.argv[2]
report = json.load(open(name + ".json"))
findings = [f for c in report["cases"] for r in c["runs"] for f in r.get("findings", [])]
assert any(words in f for f in findings), ("json", findings)
failures = [e.text or "" for e in ET.parse(name + ".xml").iter("failure")]
assert any(words in f for f in failures), ("junit", failures)
print("ok")
PY
  )
  [ "$out" = ok ] && pass "$1: JSON and JUnit parse and hold the escaped words" ||
    fail "$1: JSON or JUnit: $out"
}

# verify_forged NAME WORDS ARGS...: a run of a forged sampler through every
# format of verify: exit 1, words escaped everywhere
verify_forged() {
  local name=$1 words=$2
  shift 2
  "$sv" verify "$@" "${run[@]}" --json "$name.json" --junit "$name.xml" \
    >"$name.out" 2>"$name.err"
  local rc=$?
  [ $rc -eq 1 ] && pass "$name: exit 1" || fail "$name: exit $rc, wanted 1: $(head -c 400 "$name.err")"
  clean "$name: text, JSON and JUnit" "$name.out" "$name.err" "$name.json" "$name.xml"
  holds "$name: the FAIL line" "$words" "$name.out"
  json_junit "$name" "$words"
}

# a C sampler's message, in verify and in init; its description in the header
verify_forged forged_verify "returned status 4 (EINTERNAL): $escaped" \
  --plugin "$plugin" --sampler forged_verify
holds "forged_verify: the description" "sampler forged_verify (test: $escaped)" forged_verify.out
verify_forged forged_init "$escaped" --plugin "$plugin" --sampler forged_init

# a Python sampler's exception
if [ -n "$python" ]; then
  verify_forged forged_python "ValueError: $escaped_py" --python "$python:forged"
fi

# shards: the notes a shard file keeps come back from merge escaped once
for i in 1 2; do
  "$sv" verify --plugin "$plugin" --sampler forged_verify "${run[@]}" --shard $i/2 \
    --json merged.json --junit merged.xml >"shard$i.out" 2>&1
done
"$sv" merge shard-1-of-2.h5 shard-2-of-2.h5 >merged.out 2>merged.err
rc=$?
[ $rc -eq 1 ] && pass "merge: exit 1" || fail "merge: exit $rc, wanted 1: $(head -c 400 merged.err)"
clean "merge" merged.out merged.err merged.json merged.xml
holds "merge: the FAIL line, escaped once" "returned status 4 (EINTERNAL): $escaped" merged.out
json_junit merged "$escaped"

# a bench file's names, in compare's Markdown table
"$maker" . >/dev/null || fail "test_compare could not write the bench files"
"$sv" compare base.h5 forged.h5 >compare.md 2>compare.err
rc=$?
[ $rc -eq 0 ] && pass "compare: exit 0" || fail "compare: exit $rc: $(head -c 400 compare.err)"
clean "compare's Markdown" compare.md compare.err
holds "compare: the device" 'forged.h5 on GPU\n1 cases: 1 passed, 0 suspect, 0 failed.\x1b[2J\rX|\xff' compare.md
holds "compare: the sampler's cell" '| x\n1 cases: 1 passed\|\x1b[2J\r B=1 ' compare.md
# every row of the table has its 6 cells: a name's '|' is quoted, not a border
bad_rows=$(grep '^| ' compare.md | sed 's/\\|//g' | awk -F'|' 'NF != 8' | head -3)
[ -z "$bad_rows" ] && pass "compare: every Markdown row keeps 6 cells" ||
  fail "compare: rows with other than 6 cells: $bad_rows"

# a user's arguments, echoed in an error
"$sv" verify --plugin $'no\n1 cases: 1 passed, 0 suspect, 0 failed.\x1b[2J\r.so' \
  >user.out 2>user.err
rc=$?
[ $rc -eq 2 ] && pass "a bad plugin path: exit 2" || fail "a bad plugin path: exit $rc, wanted 2"
clean "a bad plugin path's error" user.out user.err
holds "a bad plugin path's error" 'no\n1 cases: 1 passed, 0 suspect, 0 failed.\x1b[2J\r.so' user.err

# an experiment file's description and arguments, echoed by run
printf '[experiment]\ndescription = forged \x1b[2J\r%s\n[run a]\ncommand = verify\ncase = zipf:V=50,K=2\njson = r\x1b[2J.json\n' \
  "$summary" >forged.ini
"$sv" run forged.ini --dry-run >run.out 2>run.err
rc=$?
[ $rc -eq 0 ] && pass "run --dry-run: exit 0" || fail "run --dry-run: exit $rc: $(head -c 400 run.err)"
clean "run's echo" run.out run.err
holds "run's description" "forged \\x1b[2J\\r$summary" run.out
holds "run's command" 'r\x1b[2J.json' run.out

# list: a plugin's description, escaped as in every other output
"$sv" list --plugin "$plugin" >list.out 2>&1
clean "list --plugin" list.out
holds "list --plugin" "test: ${escaped}" list.out
finish
