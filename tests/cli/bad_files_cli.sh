#!/usr/bin/env bash
# bad_files_cli.sh: result files read back are input: a bench file or a
# sweep file with a number that is NaN, infinite, out of its range or not
# whole (as a damaged or forged file has) gets exit 2 naming the file, the
# dataset, the row and the value, from every command that reads it (compare,
# plot, sweep --latency, sweep --resume), before any use: no NaN ratio
# called SLOWER, no speedup from a zero time. The files are forged by forge_h5.
# And an input that is a FIFO, a directory or a device, given to any command
# that reads a file, gets exit 2 naming it, never a hang.
# usage: bad_files_cli.sh SPECVERIFY FORGE_H5 SCRATCH_DIR
set -u
sv=$1
forge=$2
dir=$3
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir" || exit 1
. "$(dirname "$0")/cli_lib.sh"

# forged FILE DATASET INDEX VALUE: good.h5 with one number replaced
forged() {
  cp good.h5 "$1"
  "$forge" set "$1" "$2" "$3" "$4" || fail "forge_h5 set $*"
}

"$forge" bench good.h5 "NVIDIA H100" cuda_fused || exit 1
latency=(sweep --case logits:V=1000,K=5 --B 1,64 --target-us 20,0.05 --draws 1000)
expect 0 "0 faster, 0 slower, 2 same" compare good.h5 good.h5
expect 0 "speedup" "${latency[@]}" --latency good.h5:cuda_fused

# a NaN median: compare called its ratio SLOWER
forged nan.h5 median_us 1 nan
expect 2 "nan.h5: dataset 'median_us', row 1: nan; expected a finite number > 0" \
  compare good.h5 nan.h5
expect 2 "nan.h5: dataset 'median_us', row 1: nan" plot nan.h5
# a zero or negative median: sweep --latency made a speedup above its own bound
forged zero.h5 median_us 0 0
expect 2 "zero.h5: dataset 'median_us', row 0: 0; expected a finite number > 0" \
  "${latency[@]}" --latency zero.h5:cuda_fused
forged negative.h5 median_us 1 -22
expect 2 "negative.h5: dataset 'median_us', row 1: -22" "${latency[@]}" --latency negative.h5
expect 2 "negative.h5: dataset 'median_us', row 1: -22" compare negative.h5 good.h5

# every other column: its range, finite, whole where it counts
forged b.h5 B 0 1.5
expect 2 "b.h5: dataset 'B', row 0: 1.5; expected a whole number from 1 to 1048576" plot b.h5
forged k.h5 K 1 17
expect 2 "k.h5: dataset 'K', row 1: 17; expected a whole number from 1 to 16" compare good.h5 k.h5
forged v.h5 V 0 -1
expect 2 "v.h5: dataset 'V', row 0: -1" compare good.h5 v.h5
forged accept.h5 accept_target 0 1.5
expect 2 "accept.h5: dataset 'accept_target', row 0: 1.5; expected a finite number from 0 to 1 (or NaN)" \
  compare good.h5 accept.h5
forged measured.h5 accept_measured 1 nan
expect 2 "measured.h5: dataset 'accept_measured', row 1: nan" compare good.h5 measured.h5
forged min.h5 min_us 0 -1
expect 2 "min.h5: dataset 'min_us', row 0: -1" plot min.h5
forged q25.h5 q25_us 1 inf
expect 2 "q25.h5: dataset 'q25_us', row 1: inf" plot q25.h5
forged q75.h5 q75_us 0 0
expect 2 "q75.h5: dataset 'q75_us', row 0: 0" plot q75.h5
forged reps.h5 reps 0 0
expect 2 "reps.h5: dataset 'reps', row 0: 0; expected a whole number from 1 to" compare good.h5 reps.h5
forged noise.h5 noise 1 -0.5
expect 2 "noise.h5: dataset 'noise', row 1: -0.5; expected a finite number >= 0" \
  compare good.h5 noise.h5
forged floor.h5 floor_bytes 0 nan
expect 2 "floor.h5: dataset 'floor_bytes', row 0: nan" compare good.h5 floor.h5
forged gbps.h5 floor_gbps 0 -inf
expect 2 "gbps.h5: dataset 'floor_gbps', row 0: -inf" compare good.h5 gbps.h5
forged share.h5 copy_fraction 1 nan
expect 2 "share.h5: dataset 'copy_fraction', row 1: nan" compare good.h5 share.h5
forged cold.h5 cold 0 2
expect 2 "cold.h5: dataset 'cold', row 0: 2; expected a whole number from 0 to 1" plot cold.h5
forged graph.h5 graph 1 0.5
expect 2 "graph.h5: dataset 'graph', row 1: 0.5" plot graph.h5
forged verify.h5 through_verify 0 -1
expect 2 "verify.h5: dataset 'through_verify', row 0: -1" plot verify.h5
forged copies.h5 cold_copies 1 0
expect 2 "copies.h5: dataset 'cold_copies', row 1: 0; expected a whole number from 1 to 4096" \
  compare good.h5 copies.h5
# the attributes read as numbers
cp good.h5 copy_gbps.h5
"$forge" attr copy_gbps.h5 copy_gbps nan || fail "forge_h5 attr copy_gbps"
expect 2 "copy_gbps.h5: attribute 'copy_gbps' is 'nan'; expected a finite number > 0" plot copy_gbps.h5
cp good.h5 sm.h5
"$forge" attr sm.h5 sm_count 12abc || fail "forge_h5 attr sm_count"
expect 2 "sm.h5: attribute 'sm_count' is '12abc'; expected a whole number from 0 to" plot sm.h5

# sweep --resume reads DIR/sweep.h5 back: a forged one is refused before any point
sweep=(sweep --case zipf:V=50,K=2 --K 1,2 --draws 1000)
expect 0 "" "${sweep[@]}" --out s
resume() { # NAME DATASET INDEX VALUE: s/ copied to NAME/, one number forged
  rm -rf "$1"
  cp -r s "$1"
  "$forge" set "$1/sweep.h5" "$2" "$3" "$4" || fail "forge_h5 set $*"
}
expect 0 "from the earlier run" "${sweep[@]}" --out s --resume
resume sT T 0 -1
expect 2 "sT/sweep.h5: dataset 'T', row 0: -1; expected a finite number from 0 to 100 (or NaN)" \
  "${sweep[@]}" --out sT --resume
resume sK K 1 2.5
expect 2 "sK/sweep.h5: dataset 'K', row 1: 2.5; expected a whole number from 1 to 16" \
  "${sweep[@]}" --out sK --resume
resume sE tokens_analytic 0 inf
expect 2 "sE/sweep.h5: dataset 'tokens_analytic', row 0: inf" "${sweep[@]}" --out sE --resume
resume sE2 tokens_analytic 0 2.5
expect 2 "sE2/sweep.h5: dataset 'tokens_analytic', row 0: 2.5; expected from 1 to K + 1 = 2" \
  "${sweep[@]}" --out sE2 --resume
resume sA alpha_analytic 0 1.5
expect 2 "sA/sweep.h5: dataset 'alpha_analytic', row 0, column 0: 1.5" \
  "${sweep[@]}" --out sA --resume
resume sA2 alpha_analytic 17 nan # row 1 (K = 2), position 2
expect 2 "sA2/sweep.h5: dataset 'alpha_analytic', row 1, column 1: nan; expected a probability" \
  "${sweep[@]}" --out sA2 --resume
resume sL accepted_lengths 0 -3
expect 2 "sL/sweep.h5: dataset 'accepted_lengths', row 0, column 0: -3" \
  "${sweep[@]}" --out sL --resume
resume sL2 accepted_lengths 18 1e6 # row 1, one accepted
expect 2 "sL2/sweep.h5: dataset 'accepted_lengths', row 1: the counts of 0 to K = 2 accepted sum to" \
  "${sweep[@]}" --out sL2 --resume

# an input that is no regular file is refused, exit 2, naming it and what it
# is, by every command that reads one: a FIFO blocked the reader forever
# (each run under timeout 20, so a hang fails here instead of hanging CI)
soon() { # CODE WORDS ARGS...: expect, cut at 20 s
  local real=$sv
  sv=timeout
  expect "$1" "$2" 20 "$real" "${@:3}"
  sv=$real
}
mkfifo fifo || fail "mkfifo"
mkdir -p folder sfifo sfolder
mkfifo sfifo/sweep.h5 && mkdir sfolder/sweep.h5 || fail "mkfifo or mkdir under s*/"
python=$(dirname "$sv")/sv_python.so
expect 0 "shard 1 of 2" verify --case zipf:V=50,K=2 --draws 2000 --shard 1/2 --shard-file shard1.h5
for input in fifo:FIFO folder:directory /dev/zero:"character device"; do
  f=${input%%:*} is="is a ${input#*:}, not a regular file"
  soon 2 "$f: $is" merge "$f"
  soon 2 "$f: $is" merge shard1.h5 "$f"
  soon 2 "$f: $is" verify --recorded "$f" --draws 1000
  soon 2 "$f: $is" verify --case "recorded:file=$f,step=0" --draws 1000
  soon 2 "$f: $is" run "$f"
  soon 2 "$f: $is" compare good.h5 "$f"
  soon 2 "$f: $is" plot "$f"
  soon 2 "$f: $is" "${latency[@]}" --latency "$f"
  soon 2 "plugin $f: $is" verify --plugin "$f" --suite smoke
  [ -e "$python" ] && soon 2 "$(readlink -f "$f"): $is" verify --python "$(readlink -f "$f"):f" \
    --suite smoke
  [ "$f" = folder ] || soon 2 "$f: $is" record ngram --corpus "$f" --out corpus.h5
done
# sweep --resume's sweep.h5 is its output too: refused as one, never read
soon 2 "sfifo/sweep.h5: cannot write there: it is a FIFO" "${sweep[@]}" --out sfifo --resume
soon 2 "sfolder/sweep.h5: cannot write there: it is a folder" "${sweep[@]}" --out sfolder --resume
finish
