#!/bin/bash
# mutants_cli.sh SPECVERIFY OUTDIR: `specverify mutants` on the smoke suite
# writes its table as Markdown and HDF5, exits 0 when every variant it can
# catch but the hard ones is caught (smoke has no case built for the
# float-rounding ones), lists the GPU's variant as not run when there is no
# device (exit 3 if it was named), and refuses bad input with exit 2.
set -u
sv=$1 out=$2
fail=0
check() { if ! eval "$1"; then echo "FAIL: $2"; fail=1; else echo "PASS: $2"; fi; }

rm -rf "$out" && mkdir -p "$out"
# no CUDA device, even on a GPU machine: the GPU's variant is then listed as not run
export CUDA_VISIBLE_DEVICES=
# every variant: issue 25's argmax_when_mixed, top_p_from_first and
# greedy_sampled_when_mixed are bugs of logits input, which mutants gives
# them on the logits suite's V = 1000 cases
variants=resample_from_p,residual_unnormalized,residual_swapped,ratio_inverted,no_chain_stop
variants=$variants,bonus_wrong_row,residual_epsilon_floor,uniform_reused
variants=$variants,draft_temperature_mismatch,float16_ratio,accept_zero_target,counts_off_by_one
variants=$variants,shared_stream,packed_offset,draft_stride_from_target,outputs_swapped
variants=$variants,seed_ignored,argmax_when_mixed,top_p_from_first,greedy_sampled_when_mixed
variants=$variants,oov_float_rounding,race_float32_truncated
"$sv" mutants --suite smoke --variants "$variants" --out "$out" > "$out/stdout" 2> "$out/stderr"
rc=$?
check '[ $rc -eq 0 ]' "mutants --suite smoke exits 0 (got $rc)"
check '[ -s "$out/mutants-smoke.md" ] && [ -s "$out/mutants-smoke.h5" ]' "writes mutants-smoke.md and .h5"
# oov_float_rounding: smoke's rows reach it by luck, 3% of runs (verify --power)
oov=$(grep -c "^| oov_float_rounding | .* | CAUGHT |$" "$out/mutants-smoke.md")
check '[ "$(grep -c "| CAUGHT |" "$out/mutants-smoke.md")" -eq $((18 + oov)) ]' "18 variants CAUGHT in the Markdown table (+ $oov)"
check '[ "$(grep -c "MISSED (hard)" "$out/mutants-smoke.md")" -eq $((4 - oov)) ]' "the four hard variants MISSED (hard) without --full (- $oov)"
check 'grep -q "^| race_float32_truncated | .* | MISSED (hard) |$" "$out/mutants-smoke.md"' \
  "race_float32_truncated MISSED (hard): smoke has no mass below 2^-24"
# the probes' columns: seed_ignored is caught by seed sensitivity alone
check 'grep -q "^| seed_ignored | 1.000 | [^|]* | [^|]* | [^|]* | [^|]* | [^|]* | [^|]* | \*[0-9.e+-]* | n/a | - | CAUGHT |" "$out/mutants-smoke.md"' \
  "seed_ignored: CAUGHT by the seed column ($(grep "^| seed_ignored" "$out/mutants-smoke.md"))"
check 'head -c 8 "$out/mutants-smoke.h5" | od -An -c | grep -q "H   D   F"' "the .h5 file is HDF5"

if "$sv" list | grep -q '^ *cuda_fused_shared_uniform .*broken'; then # a build with CUDA
  # every variant: the GPU's cannot be named without a device (exit 3 below)
  "$sv" mutants --suite smoke --out "$out/all" > "$out/stdout" 2> "$out/stderr"
  check 'grep -q "^not run: cuda_fused_shared_uniform (needs a CUDA device: " "$out/stdout"' \
    "the GPU variant is listed as not run, with the reason ($(grep -i "not run" "$out/stdout"))"
  check 'grep -q "^Not run: cuda_fused_shared_uniform (needs a CUDA device" "$out/all/mutants-smoke.md"' \
    "the Markdown says the GPU variant did not run"
  "$sv" mutants --suite smoke --variants cuda_fused_shared_uniform --out "$out" > /dev/null 2> "$out/err"
  rc=$?
  check '[ $rc -eq 3 ] && grep -q "cuda_fused_shared_uniform needs a CUDA device" "$out/err"' \
    "naming the GPU variant with no device: exit 3, saying why (got $rc: $(cat "$out/err"))"
else
  echo "SKIP: the GPU variant checks (a build without CUDA)"
fi

"$sv" mutants --variants nope --out "$out" > /dev/null 2> "$out/err"
rc=$?
check '[ $rc -eq 2 ] && grep -q "nope" "$out/err"' "an unknown variant is refused with exit 2, naming it (got $rc: $(cat "$out/err"))"
# issue 23: an empty list (an unset variable) or an empty item is refused,
# never read as "every variant" or "none", and nothing is written
for list in '' ',' 'resample_from_p,' 'resample_from_p,,shared_stream'; do
  mkdir -p "$out/empty" && cd "$out/empty" || exit 1
  "$sv" mutants --suite smoke --variants "$list" > /dev/null 2> "$out/err"
  rc=$?
  cd - > /dev/null || exit 1
  check '[ $rc -eq 2 ] && grep -Eq "the list is empty|has an empty item" "$out/err" &&
    [ -z "$(ls -A "$out/empty")" ]' \
    "--variants '$list': exit 2, nothing written (got $rc: $(cat "$out/err"))"
done
# without --out the table goes to the current folder, not a results/ there
mkdir -p "$out/here" && cd "$out/here" || exit 1
"$sv" mutants --suite smoke --variants resample_from_p > "$out/stdout" 2> "$out/err"
rc=$?
cd - > /dev/null || exit 1
check '[ $rc -eq 0 ] && [ -s "$out/here/mutants-smoke.md" ] && [ -s "$out/here/mutants-smoke.h5" ] &&
  [ ! -e "$out/here/results" ] && grep -q "wrote mutants-smoke.md, mutants-smoke.h5 and mutants-smoke.json" "$out/stdout"' \
  "no --out: the table in the current folder (got $rc: $(ls "$out/here"); $(cat "$out/err"))"

"$sv" verify --power nope > /dev/null 2> "$out/err"
rc=$?
check '[ $rc -eq 2 ] && grep -q "nope" "$out/err"' "verify --power of an unknown variant: exit 2 (got $rc)"
"$sv" verify --case binary:p=0,q=1 --power accept_zero_target > "$out/power" 2>&1
rc=$?
check '[ $rc -eq 0 ] && grep -q "2.32e+08" "$out/power"' "verify --power accept_zero_target: 2.32e+08 draws = ln(1e6) 2^24"
exit $fail
