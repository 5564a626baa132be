#!/usr/bin/env bash
# record_cli.sh: specverify record ngram end to end on the small text shipped
# beside this script: the file reads back through sv_recorded (attributes,
# dimensions, rows that are log-probabilities), the vocabulary file, the
# same seed gives the same steps and another seed other drafts, and bad
# usage or a bad corpus gets exit 2 with a message naming what and where,
# leaving no file behind.
# usage: record_cli.sh SPECVERIFY TEST_NGRAM SOURCE_DIR SCRATCH_DIR
set -u
sv=$1
check=$2
corpus=$3/tests/cli/record_corpus.txt
dir=$4
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir" || exit 1
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

args=(--corpus "$corpus" --V 64 --K 3 --steps 24 --order 3 --draft-order 2
      --draft-fraction 0.5 --block 40 --held-out 0.2)
out=$("$sv" record ngram "${args[@]}" --out a.h5 2>&1) || fail "record: exit $? ($out)"
echo "$out"
echo "$out" | grep -q "alpha at T=1 by position" || fail "no alpha line"
[ -f a.h5 ] && ! compgen -G "a.h5.tmp*" >/dev/null || fail "a.h5 missing or a.h5.tmp.* left"
[ "$(wc -l <a.vocab)" = 64 ] || fail "a.vocab has $(wc -l <a.vocab) lines, not 64"
[ "$(sed -n 1p a.vocab)" = "<unk>" ] && [ "$(sed -n 2p a.vocab)" = "</s>" ] ||
  fail "a.vocab does not start with <unk>, </s>"
grep -qx "the" a.vocab || fail "'the' is not in a.vocab"
res=$("$check" --recording a.h5 24 3 64 float16 2>&1) || fail "a.h5 does not check: $res"
echo "$res"
digest_a=$(echo "$res" | sed -n 's/^digest: //p')

# the same seed: the same steps; another seed: other drafts
"$sv" record ngram "${args[@]}" --out b.h5 >/dev/null 2>&1 || fail "record b.h5"
digest_b=$("$check" --recording b.h5 24 3 64 float16 2>&1 | sed -n 's/^digest: //p')
[ -n "$digest_a" ] && [ "$digest_a" = "$digest_b" ] || fail "same seed, digests $digest_a $digest_b"
"$sv" record ngram "${args[@]}" --seed 2 --dtype float32 --out c.h5 >/dev/null 2>&1 ||
  fail "record c.h5"
res=$("$check" --recording c.h5 24 3 64 float32 2>&1) || fail "c.h5 (float32) does not check: $res"
digest_c=$(echo "$res" | sed -n 's/^digest: //p')
[ "$digest_a" != "$digest_c" ] || fail "seed 2 and float32 give the same digest"

# --help answers every option
help=$("$sv" record ngram --help) || fail "--help: exit $?"
for o in --corpus --out --source --V --K --steps --order --draft-order --draft-fraction \
         --discount --held-out --block --context --dtype --seed; do
  echo "$help" | grep -q -- "$o " || fail "--help does not explain $o"
done
"$sv" record --help | grep -q ngram || fail "record --help does not list ngram"

# errors: exit 2, the message names what and where, nothing written
expect2() { # expect2 PATTERN ARGS...: exit 2 and PATTERN in the message
  local pattern=$1
  shift
  local msg rc
  msg=$("$sv" "$1" "$2" --out bad.h5 "${@:3}" 2>&1)
  rc=$?
  [ "$rc" = 2 ] || fail "$* : exit $rc, expected 2 ($msg)"
  echo "$msg" | grep -q -- "$pattern" || fail "$* : message '$msg' lacks '$pattern'"
  [ ! -e bad.h5 ] && ! compgen -G "bad.h5.tmp*" >/dev/null && [ ! -e bad.vocab ] ||
    fail "$* : left a file"
}
expect2 "no-such-file.txt: No such file or directory" record ngram --corpus no-such-file.txt
mkdir -p unreadable && chmod 000 unreadable
if [ "$(id -u)" != 0 ]; then
  expect2 "unreadable: Permission denied" record ngram --corpus unreadable
fi
mkdir -p empty
expect2 "empty: a folder with no text files" record ngram --corpus empty
printf '%% \n%%\n' >blank.txt
expect2 "blank.txt: no words in it" record ngram --corpus blank.txt
expect2 "too small for a vocabulary of 4096" record ngram --corpus "$corpus" --block 40
expect2 "too small for --steps 5000" record ngram "${args[@]}" --steps 5000
expect2 "none held out" record ngram --corpus "$corpus" --V 64 --block 100000
expect2 "--corpus PATH is required" record ngram --V 64
expect2 "--V: 2 is out of range" record ngram --corpus "$corpus" --V 2
expect2 "--K: 17 is out of range" record ngram --corpus "$corpus" --K 17
expect2 "--K: 'four' is not a whole number" record ngram --corpus "$corpus" --K four
expect2 "--order: 7 is out of range" record ngram --corpus "$corpus" --order 7
expect2 "--draft-fraction: 0 is outside" record ngram --corpus "$corpus" --draft-fraction 0
expect2 "--held-out: 0.6 is outside" record ngram --corpus "$corpus" --held-out 0.6
expect2 "--discount: 1 is outside" record ngram --corpus "$corpus" --discount 1
expect2 "--dtype: 'int8' is not" record ngram --corpus "$corpus" --dtype int8
expect2 "unknown option '--bogus'" record ngram --corpus "$corpus" --bogus
expect2 "--steps needs a value" record ngram --corpus "$corpus" --steps
expect2 "unknown source 'markov'" record markov
chmod 755 unreadable

if [ $failures -eq 0 ]; then
  echo "PASS: record ngram"
  exit 0
fi
echo "$failures failures"
exit 1
