#!/usr/bin/env bash
# did_you_mean_cli.sh SPECVERIFY: a mistyped case family, suite, sampler,
# command or long option is bad input (exit 2) whose error names what was
# typed and the nearest valid names (issue 39), and a word near nothing gets
# no guess.
set -u
sv=$1
. "$(dirname "$0")/cli_lib.sh"

expect 2 "case 'zpf:V=10': unknown family 'zpf'; did you mean 'zipf'?" verify --case zpf:V=10
expect 2 "verify: unknown suite 'smok' (smoke, ci, full, logits); did you mean 'smoke'?" \
  verify --suite smok
expect 2 "mutants: unknown suite 'cii' (smoke, ci, full); did you mean 'ci'?" mutants --suite cii
expect 2 "verify: unknown sampler 'ref_rce'; did you mean 'ref_race'?" \
  verify --sampler ref_rce --suite smoke
expect 2 "--sampler: unknown sampler 'ref_flaot'; did you mean 'ref_float'?" \
  sweep --sampler ref,ref_flaot --case zipf:V=50,K=2
expect 2 "unknown command 'verfy'; did you mean 'verify'?" verfy
expect 2 "verify: unknown option '--drafs'; did you mean '--draws'?" verify --drafs 10
expect 2 "sweep: unknown option '--levle'; did you mean '--level'?" sweep --levle 0.9
# nothing near: the error as before, no guess
expect 2 "unknown family 'nosuchfamily' (known:" verify --case nosuchfamily:V=10
out=$("$sv" verify --suite xyzzy 2>&1)
grep -q "did you mean" <<<"$out" && fail "a word near nothing got a guess: $out" ||
  pass "a word near nothing: no guess"
finish
