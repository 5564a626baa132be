#!/usr/bin/env bash
# cli_errors.sh: exit codes and messages of the command line.
# usage: cli_errors.sh SPECVERIFY SCRATCH_DIR EXAMPLE_PLUGIN BAD_VERSION_PLUGIN
set -u
sv=$1
dir=$2
plugin=$3
bad_plugin=$4
mkdir -p "$dir"
failures=0
total=0

# expect CODE WORDS ARGS...: the exit code is CODE and stderr+stdout contain WORDS
expect() {
  local code=$1 words=$2
  shift 2
  local out
  total=$((total + 1))
  out=$("$sv" "$@" 2>&1)
  local rc=$?
  if [ "$rc" -ne "$code" ] || ! grep -qF -- "$words" <<<"$out"; then
    echo "FAIL: specverify $* -> exit $rc (wanted $code), output: ${out:0:300} (wanted '$words')"
    failures=$((failures + 1))
  else
    echo "PASS: specverify $* -> $code"
  fi
}

expect 2 "usage: specverify COMMAND"
expect 2 "unknown command 'frobnicate'" frobnicate
expect 0 "usage: specverify COMMAND" --help
expect 0 "specverify 0." --version
expect 0 "ref" list
expect 0 "direct" list
expect 0 "markov:V=64,K=4 1000000" list --suite ci
expect 2 "list: unknown suite 'nope'" list --suite nope
expect 0 "usage: specverify verify" verify --help
expect 2 "unknown option '--bogus'" verify --bogus
expect 2 "--seed needs a value" verify --seed
expect 2 "--draws: 0 is out of range" verify --draws 0
expect 2 "--draws: 'abc' is not a whole number" verify --draws abc
expect 2 "--alpha: 1.5 is outside (0, 1)" verify --alpha 1.5
expect 2 "--alpha: 0 is outside (0, 1)" verify --alpha 0
expect 2 "--threads: 0 is out of range" verify --threads 0
expect 2 "--batch: 1e9 is out of range" verify --batch 1e9
expect 2 "give --suite or --case, not both" verify --suite ci --case zipf
expect 2 "unknown sampler 'nope'" verify --sampler nope
expect 2 "unknown suite 'nope'" verify --suite nope
expect 2 "unknown family 'nope'" verify --case nope
expect 2 "V=1 is out of range" verify --case zipf:V=1
expect 2 "unknown parameter 'foo'" verify --case zipf:foo=1
expect 2 "no such file" verify --plugin /nonexistent/plugin.so
expect 2 "unexpected argument 'extra'" verify extra
expect 2 "cannot write there" verify --case zipf:V=50,K=2 --draws 1000 --json "$dir/missing/r.json"
expect 0 "1 passed" verify --case zipf:V=50,K=2 --draws 20000
expect 1 "accepts no drafts" verify --sampler direct --case zipf:V=50,K=2 --draws 20000

expect 0 "sampler example_race" verify --plugin "$plugin" --case zipf:V=50,K=2 --draws 20000
expect 0 "example_race" list --plugin "$plugin"
expect 2 "built against sampler contract version 42" verify --plugin "$bad_plugin"

# bench: usage errors are caught before any device is looked for
expect 0 "usage: specverify bench" bench --help
expect 2 "--B: 0 is out of range" bench --B 0
expect 2 "--K: 17 is out of range" bench --K 17
expect 2 "--accept-rate: 1.5 is outside [0, 1]" bench --accept-rate 1.5
expect 2 "--input: 'logits-f32' is not a mode this build has" bench --input logits-f32
expect 2 "--cold and --hot: give one of them" bench --cold --hot
expect 2 "--V: 'x' is not a whole number" bench --V 1000,x
expect 2 "unknown option '--frob'" bench --frob

echo "$((total - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
