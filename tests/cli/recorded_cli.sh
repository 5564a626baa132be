#!/usr/bin/env bash
# recorded_cli.sh: the shipped recording of real text through the case
# commands. verify passes ref (and ref_logits on the logits, in bfloat16) and
# fails a broken variant and a deliberate
# temperature mismatch; sweep reproduces the committed acceptance figures
# (results/sweep/ngram-fortunes-T: same seed and draws, so the same numbers)
# and its measured values agree with the analytic ones within intervals at
# level 1 - 1e-6 (4 positions: a correct sampler fails with probability
# below 1e-5; fixed seed, so every run gives the same outcome); bad input
# gets exit 2 with a message that names it.
# usage: recorded_cli.sh SPECVERIFY SOURCE_DIR SCRATCH_DIR
set -u
sv=$1
src=$2
dir=$3
rec="$src/distributions/recordings/ngram-fortunes.h5"
rm -rf "$dir"
mkdir -p "$dir"
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
expect() { # expect CODE TEXT ARGS...: exit code and a fragment of the output
  local code=$1 text=$2
  shift 2
  local out rc
  out=$("$sv" "$@" 2>&1)
  rc=$?
  [ $rc -eq "$code" ] || fail "specverify $*: exit $rc, expected $code: $(tail -3 <<<"$out")"
  grep -qF -- "$text" <<<"$out" || fail "specverify $*: output lacks '$text': $(tail -3 <<<"$out")"
}

expect 0 "3 cases: 3 passed" verify --recorded "$rec" --steps 0:2 --draws 300000
expect 0 "2 cases: 2 passed" verify --recorded "$rec" --steps 7,150 --T 0.7 --top-k 50 \
  --top-p 0.9 --draws 200000
expect 1 "failed" verify --recorded "$rec" --steps 0:2 --draws 300000 --sampler resample_from_p
expect 1 "mismatch_T=2" verify --recorded "$rec" --steps 3 --draws 300000 --mismatch-T 2 --no-rerun
# logits input: the recording's logits, rounded to bfloat16, given to ref_logits
expect 0 "input: logits-bf16" verify --recorded "$rec" --steps 5,6 --T 0.8 --top-k 40 \
  --input logits-bf16 --sampler ref_logits --draws 100000

# the committed figures, reproduced: the T = 1, K = 4 rows of the alpha table
"$sv" sweep --recorded "$rec" --T 1 --K 4 --draws 400000 --out "$dir/sweep" >"$dir/sweep.txt" 2>&1 \
  || fail "sweep --recorded: exit $?"
committed=$(grep '^| 1 | 4 | [1-4] |' "$src/results/sweep/ngram-fortunes-T/sweep.md")
now=$(grep '^| 1 | 4 | [1-4] |' "$dir/sweep.txt")
[ -n "$committed" ] && [ "$committed" = "$now" ] \
  || fail "sweep --recorded T=1 K=4 differs from results/sweep/ngram-fortunes-T: $now"
"$sv" sweep --recorded "$rec" --T 1 --K 4 --draws 400000 --level 0.999999 >"$dir/level.txt" 2>&1 \
  || fail "sweep --recorded --level: exit $?"
[ "$(grep -c '| yes |' "$dir/level.txt")" -eq 4 ] \
  || fail "sweep --recorded: measured and analytic acceptance disagree: $(grep '| NO |' "$dir/level.txt")"

# bad input
expect 2 "missing.h5: cannot read the recording" verify --recorded "$dir/missing.h5"
expect 2 "not an HDF5 file" verify --recorded "$src/README.md"
expect 2 "no group 'nope'" verify --recorded "$rec:nope"
expect 2 "--steps: 200 is out of range [0, 199]" verify --recorded "$rec" --steps 200
expect 2 "need 0 <= FROM <= TO < 200" verify --recorded "$rec" --steps 5:2
expect 2 "--T applies to a recording" verify --T 0.5
expect 2 "--recorded takes the place of --suite" verify --suite smoke --recorded "$rec"
expect 2 "K=5, but the recording has K = 4" verify --recorded "$rec" --steps 0 --K 5 --draws 1000
expect 2 "--top-p" verify --recorded "$rec" --top-p 0
expect 2 "fewer than the recording's 200 steps" sweep --recorded "$rec" --draws 100
expect 2 "give --case or --recorded, not both" sweep --recorded "$rec" --case zipf
expect 2 "--V comes from the recording" bench --recorded "$rec" --V 100
# a recording in a logits mode: its arguments pass, and it gets as far as the
# device: 3 without a GPU or without CUDA, 0 with one
out=$("$sv" bench --recorded "$rec" --input logits-bf16 --T 0.7 --top-p 0.9 --B 2 \
  --time-limit 0.01 2>&1)
rc=$?
if [ $rc -eq 0 ]; then
  echo "bench --recorded --input logits-bf16 ran on a GPU"
elif [ $rc -ne 3 ] || ! grep -Eq "bench needs a CUDA device: .+|built without it" <<<"$out"; then
  fail "bench --recorded --input logits-bf16: exit $rc, expected 3 without a GPU: $out"
fi
expect 2 "with ',' or '='" verify --recorded "$dir/a,b.h5"

# -inf logits: tokens masked out, as serving stacks mask the vocabulary (p = 0),
# verified through the pipeline and in logits input; a row of nothing but -inf
# and a +inf are refused, naming file, dataset and row. The files are edited
# with h5py (Debian: python3-h5py); where no python3 has it this part says so.
py=""
for c in python3 /usr/bin/python3; do
  if command -v "$c" >/dev/null && "$c" -c "import h5py, numpy" 2>/dev/null; then py=$c; break; fi
done
if [ -n "$py" ]; then
  cp "$rec" "$dir/masked.h5" && cp "$rec" "$dir/allmasked.h5" && cp "$rec" "$dir/plusinf.h5"
  "$py" - "$dir" <<'PY' || fail "could not edit the recordings with h5py"
import sys, h5py, numpy as np
d = sys.argv[1]
def edit(name, dataset, at, masks):  # the shipped file stores float16
    with h5py.File(d + "/" + name, "r+") as f:
        t = f[dataset]
        assert t.dtype.kind == "f", t.dtype
        row = t[at]
        row[..., masks] = -np.inf if name != "plusinf.h5" else np.inf
        t[at] = row
edit("masked.h5", "target_logits", 0, slice(0, 40))   # 40 tokens of every row of step 0
edit("allmasked.h5", "target_logits", (3, 2), slice(None))
edit("plusinf.h5", "draft_logits", (4, 1), 9)
PY
  expect 0 "1 cases: 1 passed" verify --recorded "$dir/masked.h5" --steps 0 --draws 300000
  expect 0 "input: logits-bf16" verify --recorded "$dir/masked.h5" --steps 0 --draws 100000 \
    --input logits-bf16 --sampler ref_logits
  expect 2 "allmasked.h5:/target_logits[3][2]: every logit is -inf" \
    verify --recorded "$dir/allmasked.h5" --steps 0 --draws 1000
  expect 2 "plusinf.h5:/draft_logits[4][1][9] = inf: logits must be numbers or -inf" \
    verify --recorded "$dir/plusinf.h5" --steps 0 --draws 1000
else
  echo "recorded_cli: no python3 with h5py and numpy (Debian: python3-h5py): -inf files not made"
fi

if [ $failures -ne 0 ]; then
  echo "recorded_cli: $failures failures"
  exit 1
fi
echo "PASS: recorded_cli"
