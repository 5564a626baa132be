#!/usr/bin/env bash
# run_cli.sh: specverify run on experiment files: runs in file order with
# outputs under --out-root (folders made), a failing verification gives
# exit 1 and the later runs still run, --only and --dry-run, and every bad
# file gets exit 2 with FILE:LINE and nothing run; the shipped experiments
# parse.
# usage: run_cli.sh SPECVERIFY SOURCE_DIR SCRATCH_DIR
set -u
sv=$1
src=$2
dir=$3
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir" || exit 1
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

cat >good.ini <<'INI'
; a comment
[experiment]
description = two small runs

[run pass]
command = verify
case = seedlab:V=64,K=2
draws = 20000
json = a/b/pass.json

[run sweep]
command = sweep
case = logits:V=100,K=2
T = 0.5,1
draws = 2000
out = sw
INI
out=$("$sv" run good.ini --out-root res 2>&1) || fail "good.ini: exit $? ($out)"
[ -s res/a/b/pass.json ] || fail "no res/a/b/pass.json (folders not made?)"
[ -s res/sw/sweep.h5 ] && [ -s res/sw/sweep.md ] || fail "no sweep outputs in res/sw"
grep -q "== run pass (1 of 2): specverify verify --case seedlab:V=64,K=2 --draws 20000 --json res/a/b/pass.json" \
  <<<"$out" || fail "the run's command line is not printed: $out"

cat >fails.ini <<'INI'
[run broken]
command = verify
case = seedlab:V=1000,K=5
sampler = resample_from_p
draws = 200000

[run after]
command = list
INI
out=$("$sv" run fails.ini 2>&1)
rc=$?
[ $rc -eq 1 ] || fail "a failing verification: exit $rc, want 1"
grep -q "== run after" <<<"$out" || fail "the run after a failed verification did not run"

out=$("$sv" run good.ini --only sweep --dry-run 2>&1) || fail "--only --dry-run: exit $?"
grep -q "== run sweep" <<<"$out" && ! grep -q "== run pass" <<<"$out" || fail "--only: $out"
[ ! -e out ] || fail "--dry-run wrote out/"

bad() { # bad NAME EXPECTED_MESSAGE: the file NAME.ini must fail with exit 2
  local out rc
  out=$("$sv" run "$1.ini" 2>&1)
  rc=$?
  [ $rc -eq 2 ] || fail "$1.ini: exit $rc, want 2 ($out)"
  grep -qF -- "$2" <<<"$out" || fail "$1.ini: message '$out' lacks '$2'"
  grep -q "== run" <<<"$out" && fail "$1.ini: something ran"
}
printf '[run a]\ncommand = verify\nno equals sign here\n' >syntax.ini
bad syntax "syntax.ini:3: syntax error"
printf '[run a]\ncommand = frobnicate\n' >command.ini
bad command "command.ini:2: [run a]: unknown command 'frobnicate'"
printf '[run a]\ncase = seedlab:V=64,K=2\ncommand = verify\n' >order.ini
bad order "order.ini:2: [run a]: 'case' before 'command ='"
printf '[runs a]\ncommand = verify\n' >section.ini
bad section "section.ini:2: section [runs a]"
printf '[run a]\ncommand = list\n[run b]\ncommand = list\n[run a]\ncase = x\n' >twice.ini
bad twice "twice.ini:6: [run a] appears twice"
printf '[experiment]\ndescription = nothing\n' >empty.ini
bad empty "empty.ini: no [run NAME] section"
printf '[run a]\ncommand = list\ncase = %0300d\n' 0 >long.ini
bad long "long.ini:3: line longer than"
bad missing "cannot open missing.ini"
out=$("$sv" run good.ini --only nope 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "no \[run nope\]" <<<"$out" || fail "--only nope: exit $rc ($out)"
# a run that is bad usage stops the experiment with its status
printf '[run a]\ncommand = verify\nflavour = 3\n[run b]\ncommand = list\n' >usage.ini
out=$("$sv" run usage.ini 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "unknown option '--flavour'" <<<"$out" && ! grep -q "== run b" <<<"$out" \
  || fail "a run with bad usage: exit $rc ($out)"

# issue 23: every run's flags are checked with the command's own table before
# anything runs, --dry-run included: the bad flag of the second run stops the
# first from running, naming FILE:LINE and the flag
printf '[run a]\ncommand = list\n[run b]\ncommand = verify\ndraws = 5\nflavour = 3\n' >flag.ini
for dry in "" --dry-run; do
  out=$("$sv" run flag.ini $dry 2>&1); rc=$?
  [ $rc -eq 2 ] && grep -qF "flag.ini:6: [run b]: verify: unknown option '--flavour'" <<<"$out" &&
    ! grep -q "== run" <<<"$out" || fail "a bad flag in the second run ($dry): exit $rc ($out)"
done
# ... and every run's values by its own command (specverify preflight)
# before the first run starts: a value the command refuses in the last run
# stops the experiment with exit 2 before the first has written anything,
# naming the run, with the command's own words; --check checks them all
# and runs nothing
first='[run first]\ncommand = verify\ncase = seedlab:V=64,K=2\ndraws = 20000\njson = first.json\n'
late_bad() { # late_bad NAME 'LAST RUN' EXPECTED: LAST RUN refused after run "first"
  printf "$first[run last]\n%s\n" "$2" >"$1.ini"
  local out rc
  out=$("$sv" run "$1.ini" --out-root late 2>&1); rc=$?
  [ $rc -eq 2 ] && grep -qF -- "$3" <<<"$out" &&
    grep -qF "$1.ini: [run last]: specverify" <<<"$out" && grep -q "nothing ran" <<<"$out" &&
    ! grep -q "== run" <<<"$out" && [ ! -e late/first.json ] ||
    fail "$1.ini: a bad value in the last run: exit $rc ($out)"
}
late_bad late_T $'command = sweep\ncase = greedy:V=100,K=2\nT = 0,1\ndraws = 100' \
  "the point greedy:V=100,K=2,T=1: case greedy: T=1 is out of range"
late_bad late_suite $'command = verify\nsuite = cii' "unknown suite 'cii'"
late_bad late_case $'command = verify\ncase = zipf:V=100,K=2,T=0.5' \
  "case zipf: unknown parameter 'T'"
late_bad late_recording $'command = verify\nrecorded = none.h5' "none.h5"
late_bad late_calibrate $'command = calibrate\nsuite = smok' "unknown suite 'smok'"
late_bad late_list $'command = list\nsuite = nope' "unknown suite 'nope'"
late_bad late_mutants $'command = mutants\nvariants = no_such_variant' "no_such_variant"
late_bad late_budget $'command = verify\nsuite = ci\nbudget = 3' "give --budget 17 or more"
# a CUDA sampler without a device: exit 3 before anything runs (with one: 0;
# a build without CUDA, the sanitizers', has no CUDA sampler to name)
if "$sv" list | grep -qE '^  cuda_fused +cuda '; then
  printf "$first[run last]\ncommand = verify\nsampler = cuda_fused\nsuite = smoke\n" >late_gpu.ini
  out=$("$sv" run late_gpu.ini --out-root late --check 2>&1); rc=$?
  [ $rc -eq 0 ] || { [ $rc -eq 3 ] && grep -q "sampler cuda_fused needs a CUDA device" <<<"$out" &&
    grep -qF "late_gpu.ini: [run last]: specverify verify cannot run here" <<<"$out"; } ||
    fail "late_gpu.ini --check: exit $rc ($out)"
else
  echo "skipped: a CUDA sampler's preflight (this build has no CUDA samplers)"
fi
printf "$first" >check.ini
out=$("$sv" run check.ini --out-root chk --check 2>&1); rc=$?
[ $rc -eq 0 ] && grep -qF "check.ini: every run's arguments checked; nothing ran" <<<"$out" &&
  ! grep -q "== run" <<<"$out" && [ ! -e chk/first.json ] ||
  fail "--check on a good file: exit $rc ($out)"
out=$("$sv" run check.ini --check --dry-run 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "not both" <<<"$out" || fail "--check --dry-run: exit $rc ($out)"
# the command itself: nothing on stdout, nothing written, exit 0; a refusal 2
out=$("$sv" preflight verify --suite smoke --json pf.json 2>/dev/null); rc=$?
[ $rc -eq 0 ] && [ -z "$out" ] && [ ! -e pf.json ] ||
  fail "preflight verify --suite smoke: exit $rc, stdout '$out'"
for args in "" "run check.ini" "verify --suite cii"; do
  # shellcheck disable=SC2086 # words
  "$sv" preflight $args >/dev/null 2>&1; rc=$?
  [ $rc -eq 2 ] || fail "preflight $args: exit $rc, want 2"
done

printf '[run a]\ncommand = verify\nno-rerun = yes\n' >value.ini
bad value "value.ini:3: [run a]: verify: --no-rerun takes no value"
printf '[run a]\ncommand = verify\njson =\n' >novalue.ini
bad novalue "novalue.ini:3: [run a]: verify: --json needs a value"
printf '[run a]\ncommand = compare\nargs = a.h5 b.h5 --plot /tmp/x\n' >argsflag.ini
bad argsflag "argsflag.ini:3: [run a]: args = a.h5 b.h5 --plot /tmp/x: '--plot' is a flag"
# outputs stay inside --out-root: no '..', no absolute path (an abbreviated
# key is its flag), and an empty --out-root is no root at all
printf '[run a]\ncommand = verify\ncase = binary\njson = a/../../escaped.json\n' >dotdot.ini
bad dotdot "dotdot.ini:4: [run a]: json = a/../../escaped.json: a '..'"
printf '[run a]\ncommand = mutants\nsuite = smoke\nvariants = resample_from_p\nout = %s/abs\n' \
  "$PWD" >absolute.ini
bad absolute "absolute.ini:5: [run a]: out = $PWD/abs: an absolute path"
printf '[run a]\ncommand = verify\ncase = binary\ndraws = 100\nju = %s/x.xml\n' "$PWD" >abbrev.ini
bad abbrev "abbrev.ini:5: [run a]: junit = $PWD/x.xml: an absolute path"
printf '[run a]\ncommand = verify\ncase = binary\ndraws = 100\njson = r.json\n' >root.ini
out=$("$sv" run root.ini --out-root '' --dry-run 2>&1); rc=$? # a regression writes nothing
[ $rc -eq 2 ] && grep -q "run: --out-root: the path is empty" <<<"$out" && [ ! -e /r.json ] ||
  fail "--out-root '': exit $rc ($out)"
out=$("$sv" run root.ini --out-root r1 --out-root r2 --dry-run 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "run: --out-root given twice ('r1', then 'r2')" <<<"$out" ||
  fail "--out-root twice: exit $rc ($out)"
[ ! -e escaped.json ] && [ ! -e ../escaped.json ] || fail "an output escaped --out-root"
# ... and where it really leads: a folder (or a file not made yet) under the
# root that links outside it took the output outside; refused, naming the
# path and its real place, before anything runs, --dry-run included
mkdir -p lr/root elsewhere
ln -s ../../elsewhere lr/root/link
ln -s ../../elsewhere/dangling.json lr/root/d.json
printf '[run a]\ncommand = verify\ncase = binary\ndraws = 100\njson = link/sub/r.json\n' >link.ini
printf '[run a]\ncommand = verify\ncase = binary\ndraws = 100\njson = d.json\n' >dangling.ini
for f in link dangling; do
  for dry in "" --dry-run; do
    out=$("$sv" run $f.ini --out-root lr/root $dry 2>&1); rc=$?
    want="leads to $PWD/elsewhere/$([ $f = link ] && echo sub/r.json || echo dangling.json), outside --out-root lr/root ($PWD/lr/root)"
    [ $rc -eq 2 ] && grep -qF -- "$want" <<<"$out" && ! grep -q "== run" <<<"$out" ||
      fail "$f.ini through a link out of --out-root ($dry): exit $rc ($out)"
  done
done
[ -z "$(ls elsewhere)" ] || fail "an output escaped --out-root through a link: $(ls elsewhere)"
printf '[run a]\ncommand = verify\ncase = binary\ndraws = 100\njson = new/r.json\n' >inside.ini
ln -s lr/root rootlink # a root that is itself a link is the root
out=$("$sv" run inside.ini --out-root rootlink/ 2>&1) && [ -s lr/root/new/r.json ] ||
  fail "an output inside a linked --out-root: exit $? ($out)"
# files read are relative to the experiment file's folder, not the working one
mkdir -p exp/recordings
cp "$src/distributions/recordings/ngram-fortunes.h5" exp/recordings/fortunes.h5
printf '[run a]\ncommand = verify\nrecorded = recordings/fortunes.h5\nsteps = 0\ndraws = 2000\n' \
  >exp/rel.ini
printf '[run a]\ncommand = verify\ncase = %s\ndraws = 2000\n' \
  "recorded:file=recordings/fortunes.h5,step=0" >exp/relcase.ini
for f in rel relcase; do
  out=$("$sv" run "exp/$f.ini" 2>&1) || fail "$f.ini run from another folder: exit $? ($out)"
  grep -q "exp/recordings/fortunes.h5" <<<"$out" || fail "$f.ini: the input not under exp/: $out"
done
out=$(cd / && "$sv" run "$src/experiments/acceptance-vs-temperature.ini" --only ngram-fortunes-T \
  --dry-run 2>&1) || fail "acceptance-vs-temperature.ini from /: exit $?"
rec=$(grep -o -- "--recorded [^ ]*" <<<"$out" | cut -d' ' -f2)
[ -f "$rec" ] || fail "acceptance-vs-temperature.ini names a recording that is not there: '$rec'"

for f in "$src"/experiments/*.ini; do
  "$sv" run "$f" --dry-run >/dev/null 2>&1 || fail "$f does not parse"
  # every run's values too; gpu-latency's bench runs need a device (exit 3 without)
  out=$("$sv" run "$f" --check --out-root shipped 2>&1); rc=$?
  [ $rc -eq 0 ] || { [ $rc -eq 3 ] && [[ $f == */gpu-latency.ini ]] && grep -q "CUDA" <<<"$out"; } ||
    fail "$f --check: exit $rc ($out)"
done
echo "$failures failed"
[ "$failures" -eq 0 ]
