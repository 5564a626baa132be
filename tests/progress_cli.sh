#!/usr/bin/env bash
# progress_cli.sh SPECVERIFY SCRATCH_DIR: what a run says on stderr while it
# runs: a notice at once when a SUSPECT case is re-run, saying which check,
# why, with which seed and how many draws.
set -u
sv=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir"
fail=0
check() { if ! eval "$1"; then echo "FAIL: $2"; fail=1; else echo "PASS: $2"; fi; }

# seed 104 of this small case is a fluke SUSPECT of ref (position 2's G test,
# p = 0.00084): the notice comes first, before the re-run, not with the report
"$sv" verify --case zipf:V=20,K=2 --draws 3000 --seed 104 --threads 1 > "$dir/both" 2>&1
rc=$?
notice="specverify: zipf:V=20,K=2 is SUSPECT on seed 104 (position 2 G: p = 0.000836 < 0.001); re-running it with seed 5149949291087212246 and 12000 draws (4x)"
check '[ $rc -eq 0 ]' "the fluke passes on its re-run (exit $rc)"
check 'head -n 1 "$dir/both" | grep -qF "$notice"' "the re-run notice comes first (got: $(head -n 2 "$dir/both"))"
"$sv" verify --case zipf:V=20,K=2 --draws 3000 --seed 104 --threads 1 --no-rerun \
  > /dev/null 2> "$dir/err"
check '! grep -q "re-running" "$dir/err"' "--no-rerun: no notice"

exit $fail
