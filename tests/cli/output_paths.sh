#!/usr/bin/env bash
# output_paths.sh: no writer replaces a device, a FIFO or a link (issue 23).
# Every command that writes (verify --json/--junit and its .partial files,
# sweep, bench, mutants, compare --plot, record, plot; calibrate writes no
# file) is pointed at a private null device node (mknod c 1 3), a link to
# it, a FIFO with a reader and a link to a regular file: afterwards the node
# is still a character device, the links still links, the FIFO's reader got
# the text; an HDF5 output on a device is refused with exit 2 before any
# work. A link to /proc/self/fd/1 (what /dev/stdout is) as --json prints the
# report on stdout. A private full device (c 1 7) fills the disk: the
# verdict is still printed and the exit status is the verdict's (1) when a
# verification failed, else 2, with "could not write FILE: No space left on
# device". The machine's own /dev is never named.
# usage: output_paths.sh SPECVERIFY TEST_COMPARE SOURCE_DIR SCRATCH_DIR
set -u
sv=$1
maker=$2
src=$3
dir=$4
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir" || exit 1
. "$(dirname "$0")/cli_lib.sh"

# still_device NAME...: each is still a character device (not a file that replaced it)
still_device() {
  for n in "$@"; do
    [ -c "$n" ] || fail "$n is no longer a character device ($(ls -ld "$n" 2>&1))"
  done
}
still_link() { # still_link NAME TARGET
  [ -L "$1" ] && [ "$(readlink "$1")" = "$2" ] || fail "$1 is no longer a link to $2 ($(ls -ld "$1"))"
}
# run_sv CODE WORDS ARGS...: exit CODE, WORDS in stdout and stderr together
run_sv() {
  local code=$1 words=$2
  shift 2
  local out rc
  out=$("$sv" "$@" 2>&1)
  rc=$?
  if [ "$rc" -ne "$code" ] || ! grep -qF -- "$words" <<<"$out"; then
    fail "specverify $* -> exit $rc (wanted $code), output: ${out:0:400} (wanted '$words')"
  fi
}
"$maker" "$dir" >/dev/null || fail "test_compare could not write the bench files"
corpus=(--corpus "$src/tests/cli/record_corpus.txt" --V 64 --K 3 --steps 24 --order 3
        --draft-order 2 --draft-fraction 0.5 --block 40 --held-out 0.2)

# ---- links to regular files, and FIFOs: no privilege needed -----------------
echo '{}' >real.json
ln -s real.json link.json
ln -s made.xml dangling.xml # a link to a file not there yet: the file is made
run_sv 0 "1 passed" verify --case binary --draws 100 --json link.json --junit dangling.xml
still_link link.json real.json
still_link dangling.xml made.xml
grep -q '"sampler"' real.json || fail "the report did not go to the link's file"
grep -q "<testsuites" made.xml || fail "the dangling link's file was not made"
mkdir keep sw_link
ln -s ../keep/sweep.h5 sw_link/sweep.h5
run_sv 0 "E analytic" sweep --case logits:V=100,K=2 --T 1 --draws 2000 --out sw_link
still_link sw_link/sweep.h5 ../keep/sweep.h5
[ -s keep/sweep.h5 ] || fail "sweep.h5 did not go to the link's file"

mkfifo fifo
exec 3<>fifo # a reader (and a writer held open, so each writer's close is no EOF)
cat <&3 >fifo.out &
reader=$!
run_sv 0 "1 passed" verify --case binary --draws 100 --json fifo
mkdir sw_fifo
ln -s ../fifo sw_fifo/sweep.md
run_sv 0 "E analytic" sweep --case logits:V=100,K=2 --T 1 --draws 2000 --out sw_fifo
run_sv 2 "it is a FIFO, and this output must be a regular file" bench --out fifo
sleep 1
kill "$reader"
wait "$reader" 2>/dev/null
exec 3>&-
[ -p fifo ] || fail "the FIFO was replaced"
grep -q '"sampler"' fifo.out && grep -q "^# specverify sweep" fifo.out ||
  fail "the FIFO's reader did not get the reports: $(head -c 300 fifo.out)"

# /dev/stdout is a link to /proc/self/fd/1: a private one, so the machine's
# own is never at stake; to a pipe and to a file the shell redirected
ln -s /proc/self/fd/1 stdout
out=$("$sv" verify --case binary --draws 100 --json stdout 2>&1) || fail "--json stdout: exit $?"
grep -q "1 cases: 1 passed" <<<"$out" && grep -q '"sampler":' <<<"$out" ||
  fail "--json to stdout (a pipe) did not print the report: ${out:0:300}"
"$sv" verify --case binary --draws 100 --json stdout >redirected.txt 2>/dev/null ||
  fail "--json stdout > FILE: exit $?"
grep -q "1 cases: 1 passed" redirected.txt && grep -q '"sampler":' redirected.txt ||
  fail "--json to stdout (a file) lost the text or the report: $(head -c 300 redirected.txt)"
still_link stdout /proc/self/fd/1

# ---- device nodes: root only ----------------------------------------------
if ! mknod null c 1 3 2>/dev/null || ! mknod full c 1 7 2>/dev/null; then
  echo "$failures failed"
  echo "SKIPPED: the device checks: cannot make device nodes here (uid $(id -u); mknod needs root)"
  [ "$failures" -eq 0 ] && exit 77
  exit 1
fi
ln -s null nlink

# verify: --json, --junit, and the .partial files of an interrupted run
run_sv 0 "1 passed" verify --case binary --draws 100 --json null --junit nlink
"$sv" verify --case seedlab:V=1000,K=5 --draws 1000000000 --json null --junit nlink \
  >int.out 2>int.err &
pid=$!
sleep 2
kill -s INT "$pid"
wait "$pid"
rc=$?
[ $rc -eq 130 ] || fail "interrupted verify: exit $rc, want 130 ($(tail -2 int.err))"
[ ! -e null.partial ] && [ ! -e nlink.partial ] || fail "an interrupted run made NODE.partial"
grep -q "partial results in null and nlink" int.err || fail "interrupted: $(tail -1 int.err)"
still_device null
still_link nlink null

# sweep: sweep.md on the device; sweep.h5 on it is refused before any point
mkdir sw sw_h5
ln -s ../null sw/sweep.md
run_sv 0 "E analytic" sweep --case logits:V=100,K=2 --T 1 --draws 2000 --out sw
mknod sw_h5/sweep.h5 c 1 3
run_sv 2 "it is a character device, and this output must be a regular file" \
  sweep --case logits:V=100,K=2 --T 1 --draws 2000 --out sw_h5
still_device sw_h5/sweep.h5
still_link sw/sweep.md ../null

# bench: HDF5 on a device refused; FILE.md on one is checked and kept (no GPU: exit 3)
run_sv 2 "it is a character device" bench --out null
ln -s null b.md
out=$("$sv" bench --out b.h5 --B 1 --V 1000 --sampler cuda_naive --time-limit 0.1 2>&1)
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 3 ] || fail "bench --out b.h5 (b.md a device): exit $rc ($out)"
still_link b.md null

# mutants: the Markdown table on a device, the HDF5 one refused there
mkdir mu mu_h5
mknod mu/mutants-smoke.md c 1 3
run_sv 0 "CAUGHT" mutants --suite smoke --variants resample_from_p --out mu
[ -f mu/mutants-smoke.h5 ] || fail "mutants wrote no mutants-smoke.h5 beside the device"
ln -s ../null mu_h5/mutants-smoke.h5
run_sv 2 "must be a regular file" mutants --suite smoke --variants resample_from_p --out mu_h5
still_device mu/mutants-smoke.md null
still_link mu_h5/mutants-smoke.h5 ../null

# compare --plot and plot: their data and scripts on devices
mkdir cp pl
mknod cp/compare.dat c 1 3
ln -s ../null cp/compare.gp
run_sv 0 "SLOWER" compare base.h5 slow.h5 --plot cp
mknod pl/base-latency_B.dat c 1 3
ln -s ../null pl/base-plot.gp
out=$("$sv" plot base.h5 --out pl 2>&1) || fail "plot --out pl: exit $? ($out)"
still_device cp/compare.dat pl/base-latency_B.dat
still_link cp/compare.gp ../null
still_link pl/base-plot.gp ../null

# record: the recording on a device refused, its vocabulary on one written
run_sv 2 "must be a regular file" record ngram "${corpus[@]}" --out null
ln -s null rec.vocab
run_sv 0 "alpha at T=1" record ngram "${corpus[@]}" --out rec.h5
still_link rec.vocab null
[ -s rec.h5 ] || fail "record wrote no rec.h5"

# ---- the disk fills: the verdict first, then which file, status by verdict --
out=$("$sv" verify --case binary --draws 100 --json full 2>err.txt)
rc=$?
[ $rc -eq 2 ] && grep -q "1 cases: 1 passed" <<<"$out" &&
  grep -q "could not write full: No space left on device" err.txt ||
  fail "verify --json full (passing): exit $rc, stdout ${out:0:200}, stderr $(cat err.txt)"
out=$("$sv" verify --case seedlab:V=64,K=2 --draws 20000 --sampler resample_from_p \
  --json full --junit real.xml 2>err.txt)
rc=$?
[ $rc -eq 1 ] && grep -q "1 failed" <<<"$out" &&
  grep -q "could not write full: No space left on device" err.txt ||
  fail "verify --json full (failing): exit $rc, want 1; stderr $(cat err.txt)"
grep -q "<testsuites" real.xml || fail "the JUnit report was not written after the JSON failed"
mkdir mu_full sw_full
ln -s ../full mu_full/mutants-smoke.md
out=$("$sv" mutants --suite smoke --variants resample_from_p --out mu_full 2>err.txt)
rc=$?
[ $rc -eq 2 ] && grep -q "CAUGHT" <<<"$out" &&
  grep -q "could not write mu_full/mutants-smoke.md: No space left on device" err.txt ||
  fail "mutants with a full disk: exit $rc, stdout ${out:0:200}, stderr $(cat err.txt)"
ln -s ../full sw_full/sweep.md
out=$("$sv" sweep --case logits:V=100,K=2 --T 0.5,1 --draws 2000 --out sw_full 2>err.txt)
rc=$?
[ $rc -eq 2 ] && [ "$(grep -c "^\[./2\]" err.txt)" -eq 2 ] && grep -q "E analytic" <<<"$out" &&
  grep -q "could not write sw_full/sweep.md: No space left on device" err.txt ||
  fail "sweep with a full disk: exit $rc, stdout ${out:0:200}, stderr $(cat err.txt)"
still_device null full

finish
