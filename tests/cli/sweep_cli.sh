#!/usr/bin/env bash
# sweep_cli.sh: specverify sweep end to end. Measured acceptance must agree
# with the analytic alpha_k = sum min(p_k, q_k) within its Wilson interval on
# three case families; the intervals are at level 1 - 1e-6, so with fewer than
# 100 positions here a correct sampler fails this test with probability below
# 1e-4 (fixed seed: the outcome is the same on every run). The outputs are
# written, an interrupted sweep resumes to the same result, and bad input
# gets exit 2.
# usage: sweep_cli.sh SPECVERIFY SCRATCH_DIR
set -u
sv=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir"
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

for c in "logits:V=1000,K=4 --T 0.2,0.7,1.5" "onehot:V=500,K=3 --T 0.5:1.5:3" \
         "zipf:V=1000,K=2 --K 1,2,4" "identical:V=100,K=3" "disjoint:V=100,K=2"; do
  name=${c%% *}
  out="$dir/${name%%:*}"
  # shellcheck disable=SC2086
  if ! "$sv" sweep --case $c --draws 200000 --level 0.999999 --out "$out" >"$out.txt" 2>&1; then
    fail "sweep --case $c: exit $?"
    continue
  fi
  if grep -q '| NO |' "$out.txt"; then
    fail "sweep --case $c: measured acceptance outside its interval:"
    grep '| NO |' "$out.txt"
  fi
  [ -s "$out/sweep.h5" ] && [ -s "$out/sweep.md" ] || fail "sweep --case $c wrote no sweep.h5/.md"
done
# closed forms: p = q accepts everything (E = K + 1), disjoint nothing (E = 1)
grep -q '^| - | 3 | 4.0000 | 4.0000 |' "$dir/identical.txt" || fail "identical: E is not 4"
grep -q '^| - | 2 | 1.0000 | 1.0000 |' "$dir/disjoint.txt" || fail "disjoint: E is not 1"
# the speedup column at c = 0 is E itself; three T x one K in the logits sweep
[ "$(grep -c '^| [0-9.]* | 4 | ' "$dir/logits/sweep.md")" -ge 3 ] || fail "logits: missing points"

# plots: PNG and SVG from gnuplot where it is installed; without it the data,
# the script and a message saying how to install it
if command -v gnuplot >/dev/null; then
  for plot in acceptance_vs_T tokens_vs_K speedup_vs_K accepted_lengths; do
    for ext in png svg; do
      [ -s "$dir/logits/$plot.$ext" ] || fail "logits: no $plot.$ext"
    done
  done
  # without --T too: the titles say "the case's T", which once broke the
  # script's quoting, so that no plot was drawn and the sweep still exited 0
  for plot in tokens_vs_K speedup_vs_K accepted_lengths; do
    for ext in png svg; do
      [ -s "$dir/zipf/$plot.$ext" ] || fail "zipf (no --T): no $plot.$ext"
    done
  done
fi
msg=$(PATH=/nonexistent "$sv" sweep --case logits:V=100,K=2 --T 0.5,1 --draws 1000 \
      --out "$dir/nognuplot" 2>&1)
rc=$?
[ $rc -eq 0 ] || fail "sweep without gnuplot: exit $rc"
grep -qF "apt-get install gnuplot-nox" <<<"$msg" || fail "sweep without gnuplot said: $msg"
[ -s "$dir/nognuplot/plot.gp" ] && [ -s "$dir/nognuplot/acceptance.dat" ] \
  || fail "sweep without gnuplot wrote no script or data"

# resume: a sweep interrupted (killed part-way, wherever that falls) and then
# resumed gives the same tables as one run straight through; so does one
# whose first points came from a shorter run
args=(--case logits:V=300,K=3 --T 0.3,0.8,1.5 --K 1,3 --draws 100000 --threads 1)
"$sv" sweep "${args[@]}" --out "$dir/straight" >/dev/null 2>&1 || fail "straight sweep failed"
"$sv" sweep "${args[@]}" --out "$dir/killed" >/dev/null 2>&1 &
pid=$!
sleep 0.4
kill -KILL "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
"$sv" sweep "${args[@]}" --out "$dir/killed" --resume >/dev/null 2>&1 || fail "resume failed"
cmp -s "$dir/straight/sweep.md" "$dir/killed/sweep.md" || fail "resumed sweep.md differs"
cmp -s "$dir/straight/tokens.dat" "$dir/killed/tokens.dat" || fail "resumed tokens.dat differs"
# killed after sweep.h5 took the last point but before sweep.md did: the
# resume takes every point from the earlier run and still rewrites sweep.md
rm -rf "$dir/stale" && cp -r "$dir/straight" "$dir/stale"
echo "Partial: 5 of 6 points so far." >> "$dir/stale/sweep.md"
"$sv" sweep "${args[@]}" --out "$dir/stale" --resume >/dev/null 2>&1 || fail "stale resume failed"
cmp -s "$dir/straight/sweep.md" "$dir/stale/sweep.md" || fail "a stale sweep.md was left as it was"
"$sv" sweep --case logits:V=300,K=3 --T 0.3,0.8 --K 1,3 --draws 100000 --threads 1 \
  --out "$dir/prefix" >/dev/null 2>&1
out=$("$sv" sweep "${args[@]}" --out "$dir/prefix" --resume 2>&1)
[ "$(grep -c 'from the earlier run' <<<"$out")" -eq 4 ] || fail "resume did not take 4 points"
cmp -s "$dir/straight/sweep.md" "$dir/prefix/sweep.md" || fail "prefix-resumed sweep.md differs"

expect2() {
  local words=$1
  shift
  local out
  out=$("$sv" sweep "$@" 2>&1)
  local rc=$?
  if [ $rc -ne 2 ] || ! grep -qF -- "$words" <<<"$out"; then
    fail "sweep $* -> exit $rc, '$out' (wanted 2 and '$words')"
  fi
}
expect2 "sweep needs --case SPEC"
expect2 "unknown parameter 'T'" --case zipf:V=100,K=2 --T 1
expect2 "is a Markov pair" --case markov:V=64,K=2
expect2 "--T: range 1:0:3 must lie in" --case logits --T 1:0:3
expect2 "--K: 2.5 is not a whole number" --case logits --K 2.5
expect2 "--level: 1 is outside (0, 1)" --case logits --level 1
expect2 "unknown option '--frob'" --frob
expect2 "--resume needs --out DIR" --case logits --resume
expect2 "has draws '100000', this sweep '999'" "${args[@]:0:6}" --draws 999 --out "$dir/prefix" --resume

# the batch axis: with no sampler time the batched speedup is the plain one
# (identical rows: E = K + 1 = 3, so 3 at c = 0 and 3 / 2 at c = 0.5), with
# the sampler as slow as the target it is E / 2; bad cost options get exit 2
out=$("$sv" sweep --case identical:V=50,K=2 --K 2 --draws 2000 --c 0,0.5 --B 1,64 \
      --target-us 100 --sampler-us 0 2>&1) || fail "sweep --B: exit $?"
grep -q "^| - | 2 | 64 | 100 | 0 | 3.000 | 1.500 |$" <<<"$out" \
  || fail "batched speedup with s = 0 is not E / (K c + 1): $out"
out=$("$sv" sweep --case identical:V=50,K=2 --K 2 --draws 2000 --c 0 --B 1,64 \
      --target-us 100 --sampler-us 100 2>&1) || fail "sweep --B, s = t: exit $?"
grep -q "^| - | 2 | 64 | 100 | 100 | 1.500 |$" <<<"$out" \
  || fail "batched speedup with s = t is not E / 2: $out"
expect2 "--B needs --target-us and one of --latency or --sampler-us" --case logits --B 1
expect2 "--target-us 0: the target's time must be positive" --case logits --B 1 \
  --target-us 0 --sampler-us 1
expect2 "not an HDF5 file" --case logits --B 1 --target-us 1 --latency nowhere.h5

# issue 27: rules side by side. identical rows (p = q, V = 50, K = 2): the
# chain and block rules accept every draft, E = 3 exactly; exact match's
# E = 1 + a + a^2 with a = sum p^2 (analytic, and measured near it)
out=$("$sv" sweep --case identical:V=50,K=2 --draws 4000 --sampler ref,ref_exact,ref_block \
      --out "$dir/rules" 2>&1) || fail "sweep --sampler LIST: exit $?"
row=$(grep "^| - | 2 | 3.0000 \[3.0000, 3.0000\] | 3.0000 | " <<<"$out")
[ -n "$row" ] || fail "side-by-side table: no chain row with E = 3: $out"
grep -q "| 3.0000 \[3.0000, 3.0000\] | - | 1.000x \[1.000, 1.000\] |$" <<<"$row" || fail "block: E = 3, no analytic: $row"
[ -f "$dir/rules/rules.md" ] && [ -f "$dir/rules/ref_exact/sweep.md" ] \
  || fail "sweep --sampler LIST --out: rules.md and a folder per sampler"
# a lossy rule's sweep says how far from p: typical acceptance on identical
# rows loses acceptance and moves position 1 off p (TV well above 0)
out=$("$sv" sweep --case identical:V=50,K=2 --draws 20000 --sampler ref_typical 2>&1) \
  || fail "sweep --sampler ref_typical: exit $?"
tv=$(grep -E "^\| - \| 2 \| 1 \| [0-9.]+ \| \[" <<<"$out" | awk -F'|' '{print $5}')
[ -n "$tv" ] && awk -v t="$tv" 'BEGIN { exit !(t > 0.05) }' \
  || fail "typical sweep: no distance table with TV > 0.05 at position 1: $out"
# sweep.h5 keeps the distances: a resumed sweep shows the same TV, not '-'
"$sv" sweep --case identical:V=50,K=2 --draws 20000 --sampler ref_typical \
  --out "$dir/typical" >/dev/null 2>&1 || fail "sweep --sampler ref_typical --out: exit $?"
out=$("$sv" sweep --case identical:V=50,K=2 --draws 20000 --sampler ref_typical \
      --out "$dir/typical" --resume 2>&1) || fail "sweep ref_typical --resume: exit $?"
tv2=$(grep -E "^\| - \| 2 \| 1 \| [0-9.]+ \| \[" <<<"$out" | awk -F'|' '{print $5}')
grep -q "from the earlier run" <<<"$out" && [ -n "$tv2" ] && [ "$tv2" = "$tv" ] \
  || fail "typical sweep resumed: TV at position 1 '$tv2', wanted '$tv' from sweep.h5: $out"
expect2 "--sampler: 'ref' is listed twice" --case logits --sampler ref,ref
expect2 "--sampler: unknown sampler 'nope'" --case logits --sampler ref,nope

echo "$failures failed"
[ "$failures" -eq 0 ]
