#!/bin/bash
# mutants_cli.sh SPECVERIFY OUTDIR: `specverify mutants` on the smoke suite
# writes its table as Markdown and HDF5, exits 0 when every variant but the
# two hard ones is caught, and refuses bad input with exit 2.
set -u
sv=$1 out=$2
fail=0
check() { if ! eval "$1"; then echo "FAIL: $2"; fail=1; else echo "PASS: $2"; fi; }

rm -rf "$out" && mkdir -p "$out"
"$sv" mutants --suite smoke --out "$out" > "$out/stdout" 2> "$out/stderr"
rc=$?
check '[ $rc -eq 0 ]' "mutants --suite smoke exits 0 (got $rc)"
check '[ -s "$out/mutants-smoke.md" ] && [ -s "$out/mutants-smoke.h5" ]' "writes mutants-smoke.md and .h5"
check '[ "$(grep -c "| CAUGHT |" "$out/mutants-smoke.md")" -eq 11 ]' "11 variants CAUGHT in the Markdown table"
check '[ "$(grep -c "MISSED (hard)" "$out/mutants-smoke.md")" -eq 2 ]' "the two hard variants MISSED (hard) without --full"
check 'head -c 8 "$out/mutants-smoke.h5" | od -An -c | grep -q "H   D   F"' "the .h5 file is HDF5"

"$sv" mutants --variants nope --out "$out" > /dev/null 2> "$out/err"
rc=$?
check '[ $rc -eq 2 ] && grep -q "nope" "$out/err"' "an unknown variant is refused with exit 2, naming it (got $rc: $(cat "$out/err"))"
"$sv" verify --power nope > /dev/null 2> "$out/err"
rc=$?
check '[ $rc -eq 2 ] && grep -q "nope" "$out/err"' "verify --power of an unknown variant: exit 2 (got $rc)"
"$sv" verify --case binary:p=0,q=1 --power accept_zero_target > "$out/power" 2>&1
rc=$?
check '[ $rc -eq 0 ] && grep -q "2.32e+08" "$out/power"' "verify --power accept_zero_target: 2.32e+08 draws = ln(1e6) 2^24"
exit $fail
