#!/usr/bin/env bash
# progress_cli.sh SPECVERIFY SCRATCH_DIR: what a run says on stderr while it
# runs, where stderr is a log file (CI), not a terminal: plain progress lines
# every SV_PROGRESS_SECONDS, and a notice at once when a SUSPECT case is
# re-run, saying which check, why, with which seed and how many draws.
set -u
sv=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir"
fail=0
check() { if ! eval "$1"; then echo "FAIL: $2"; fail=1; else echo "PASS: $2"; fi; }

# a run of about a second with a line every 0.1 s: plain lines, no \r
SV_PROGRESS_SECONDS=0.1 "$sv" verify --case zipf:V=4000,K=4 --draws 400000 --threads 1 \
  --no-rerun > "$dir/out" 2> "$dir/err"
rc=$?
check '[ $rc -eq 0 ]' "verify with SV_PROGRESS_SECONDS=0.1 exits 0 (got $rc: $(head -c 300 "$dir/err"))"
line='^\[1/1\] zipf:V=4000,K=4: [0-9]+/400000 draws \([0-9]+%\), [0-9.]+( M)? draws/s, (time left unknown|.* left)$'
check 'grep -Eq "$line" "$dir/err"' "a plain progress line in the log (got: $(head -c 300 "$dir/err"))"
check '! grep -q $'"'"'\r'"'"' "$dir/err"' "no carriage returns in the log"

# the default, 30 s: a short run's log stays empty; 0 turns the lines off
"$sv" verify --case zipf:V=50,K=2 --draws 20000 > /dev/null 2> "$dir/err"
check '[ ! -s "$dir/err" ]' "a short run prints nothing by default (got: $(head -c 200 "$dir/err"))"
SV_PROGRESS_SECONDS=0 "$sv" verify --case zipf:V=4000,K=4 --draws 100000 --threads 1 \
  > /dev/null 2> "$dir/err"
check '[ ! -s "$dir/err" ]' "SV_PROGRESS_SECONDS=0: no progress lines (got: $(head -c 200 "$dir/err"))"
SV_PROGRESS_SECONDS=soon "$sv" verify --case zipf:V=50,K=2 > /dev/null 2> "$dir/err"
rc=$?
check '[ $rc -eq 2 ] && grep -qF "SV_PROGRESS_SECONDS='"'"'soon'"'"' is not 0" "$dir/err"' \
  "a malformed SV_PROGRESS_SECONDS: exit 2 before any work (got $rc: $(cat "$dir/err"))"

# seed 104 of this small case in uniform batches is a fluke SUSPECT of ref (position 2's G test,
# p = 0.00084): the notice comes first, before the re-run, not with the report
"$sv" verify --case zipf:V=20,K=2 --draws 3000 --seed 104 --threads 1 --batches uniform > "$dir/both" 2>&1
rc=$?
notice="specverify: zipf:V=20,K=2 is SUSPECT on seed 104 (position 2 G: p = 0.000836 < 0.001); re-running it with seed 5149949291087212246 and 12000 draws (4x)"
check '[ $rc -eq 0 ]' "the fluke passes on its re-run (exit $rc)"
check 'head -n 1 "$dir/both" | grep -qF "$notice"' "the re-run notice comes first (got: $(head -n 2 "$dir/both"))"
"$sv" verify --case zipf:V=20,K=2 --draws 3000 --seed 104 --threads 1 --no-rerun \
  > /dev/null 2> "$dir/err"
check '! grep -q "re-running" "$dir/err"' "--no-rerun: no notice"

exit $fail
