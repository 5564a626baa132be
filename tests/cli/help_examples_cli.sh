#!/usr/bin/env bash
# help_examples_cli.sh SPECVERIFY SOURCE_DIR SCRATCH_DIR: every command that
# `specverify --help` lists (and the top-level help, and `record ngram`) ends
# its --help with an Examples section, and every example there works as
# written (issue 39): each is run, from a folder where the repository's
# results/, experiments/ and tests/ are at hand, and must exit 0; bench's need
# a GPU, so here they only parse (the line with --help appended exits 0).
set -u
sv=$1 src=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir"
. "$(dirname "$0")/cli_lib.sh"
cd "$dir" || exit 1
for d in results experiments tests; do ln -s "$src/$d" "$d"; done

# the commands the top-level help lists, between "commands:" and a blank line
mapfile -t commands < <("$sv" --help | sed -n '/^commands:/,/^$/p' |
  sed -nE 's/^  ([a-z]+)  .*/\1/p' | grep -vx help)
[ ${#commands[@]} -ge 11 ] && pass "specverify --help lists ${#commands[@]} commands" ||
  fail "specverify --help lists only: ${commands[*]}"

# examples HELP_TEXT: the example command lines of its Examples section, a
# line ending in a backslash joined to the next
examples() {
  sed -n '/^Examples:$/,$p' <<<"$1" | tail -n +2 | sed -e ':a' -e '/\\$/N; s/\\\n */ /; ta' |
    sed -nE 's/^  (specverify .*)$/\1/p'
}

check_help() { # WORDS...: the help of `specverify WORDS --help`
  local help
  help=$("$sv" "$@" --help 2>&1)
  local name="specverify${*:+ $*} --help"
  if ! grep -qx "Examples:" <<<"$help"; then
    fail "$name has no Examples section"
    return
  fi
  # the section ends the text: after it only example lines (and their continuations)
  local after
  after=$(sed -n '/^Examples:$/,$p' <<<"$help" | tail -n +2 | grep -vE '^  specverify |^      ')
  [ -z "$after" ] && pass "$name ends with its Examples" ||
    fail "$name: text after the examples: $after"
  local n=0 line
  while IFS= read -r line; do
    n=$((n + 1))
    local words
    read -ra words <<<"$line"
    local out rc
    if [ "${words[1]}" = bench ]; then # a GPU's: parsed only
      out=$("$sv" "${words[@]:1}" --help 2>&1)
    else
      out=$("$sv" "${words[@]:1}" 2>&1 </dev/null)
    fi
    rc=$?
    [ $rc -eq 0 ] && pass "example of $name: $line" ||
      fail "example of $name: $line -> exit $rc: ${out:0:400}"
  done < <(examples "$help")
  [ $n -ge 2 ] && [ $n -le 4 ] && pass "$name: $n examples" ||
    fail "$name: $n examples, wanted 2 to 4"
}

check_help
for c in "${commands[@]}"; do
  check_help "$c"
done
check_help record ngram
finish
