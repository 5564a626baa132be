#!/usr/bin/env bash
# cli_errors.sh: exit codes and messages of the command line.
# usage: cli_errors.sh SPECVERIFY SCRATCH_DIR EXAMPLE_PLUGIN BAD_VERSION_PLUGIN SEEDLESS_PLUGIN
set -u
sv=$1
dir=$2
plugin=$3
bad_plugin=$4
seedless=$5
mkdir -p "$dir"
failures=0
total=0

# expect CODE WORDS ARGS...: the exit code is CODE and stderr+stdout contain WORDS
expect() {
  local code=$1 words=$2
  shift 2
  local out
  total=$((total + 1))
  out=$("$sv" "$@" 2>&1)
  local rc=$?
  if [ "$rc" -ne "$code" ] || ! grep -qF -- "$words" <<<"$out"; then
    echo "FAIL: specverify $* -> exit $rc (wanted $code), output: ${out:0:300} (wanted '$words')"
    failures=$((failures + 1))
  else
    echo "PASS: specverify $* -> $code"
  fi
}

expect 2 "usage: specverify COMMAND"
expect 2 "unknown command 'frobnicate'" frobnicate
expect 0 "usage: specverify COMMAND" --help
expect 0 "specverify 0." --version
expect 0 "ref" list
expect 0 "direct" list
expect 0 "markov:V=64,K=4 1000000" list --suite ci
expect 2 "list: unknown suite 'nope'" list --suite nope
expect 2 "verify: --measure gives a lossy rule no verdicts, so it takes no --junit" verify --sampler ref_typical --measure --junit "$dir/m.xml"
expect 0 "usage: specverify verify" verify --help
expect 2 "unknown option '--bogus'" verify --bogus
expect 2 "--seed needs a value" verify --seed
expect 2 "--draws: 0 is out of range" verify --draws 0
expect 2 "--draws: 'abc' is not a whole number" verify --draws abc
expect 2 "--alpha: 1.5 is outside (0, 1)" verify --alpha 1.5
expect 2 "--alpha: 0 is outside (0, 1)" verify --alpha 0
expect 2 "--threads: 0 is out of range" verify --threads 0
expect 2 "--batch: 1e9 is out of range" verify --batch 1e9
expect 2 "give --suite or --case, not both" verify --suite ci --case zipf
expect 2 "unknown sampler 'nope'" verify --sampler nope
expect 2 "unknown suite 'nope'" verify --suite nope
expect 2 "unknown family 'nope'" verify --case nope
expect 2 "V=1 is out of range" verify --case zipf:V=1
expect 2 "unknown parameter 'foo'" verify --case zipf:foo=1
expect 2 "no such file" verify --plugin /nonexistent/plugin.so
expect 2 "unexpected argument 'extra'" verify extra
expect 2 "cannot write there" verify --case zipf:V=50,K=2 --draws 1000 --json "$dir/missing/r.json"
expect 0 "1 passed" verify --case zipf:V=50,K=2 --draws 20000
expect 1 "accepts no drafts" verify --sampler direct --case zipf:V=50,K=2 --draws 20000

expect 0 "sampler example_race" verify --plugin "$plugin" --case zipf:V=50,K=2 --draws 20000
expect 0 "example_race" list --plugin "$plugin"
expect 2 "built against sampler contract version 42" verify --plugin "$bad_plugin"
expect 2 "sampler name 'example_race' is already taken" verify --plugin "$plugin" --plugin "$plugin"

# bench: usage errors are caught before any device is looked for
expect 0 "usage: specverify bench" bench --help
expect 2 "--B: 0 is out of range" bench --B 0
expect 2 "--K: 17 is out of range" bench --K 17
expect 2 "--accept-rate: 1.5 is outside [0, 1]" bench --accept-rate 1.5
expect 2 "--input: 'logits-f16' is not an input mode (probs, logits-f32, logits-bf16)" bench --input logits-f16
expect 2 "--input: 'logits' is not an input mode" verify --input logits
expect 2 "verify: sampler ref does not take logits-f32 input (it takes probs)" verify --sampler ref --input logits-f32
expect 2 "has no logits for logits input: it is not made from logits" verify --sampler ref_logits --input logits-bf16 --suite smoke
expect 2 "its drafter samples at T2, not T" verify --sampler ref_logits --input logits-f32 --case peaked:V=100,K=2
expect 2 "$dir/none.h5: cannot read the recording" \
  bench --input logits-f32 --recorded "$dir/none.h5"
expect 2 "--T applies to logits input (--input logits-f32 or logits-bf16) or to a recording" \
  bench --T 0.7
expect 2 "--top-p: 0 is outside [1e-09, 1]" bench --input logits-f32 --top-p 0
expect 2 "--top-k: '1.5' is not a whole number" bench --input logits-bf16 --top-k 1.5
expect 2 "--T: -1 is outside [0, 100]" bench --input logits-f32 --T -1
expect 2 "--cold and --hot: give one of them" bench --cold --hot
expect 2 "--V: 'x' is not a whole number" bench --V 1000,x
expect 2 "unknown option '--frob'" bench --frob

# ---- issue 7: every command's bad input names what and where (exit 2)
expect 2 "case zipf: K=0 is out of range [1, 16]" verify --case zipf:K=0
expect 2 "case zipf: K=17 is out of range [1, 16]" verify --case zipf:K=17
expect 2 "case zipf: K=-1 is out of range [1, 16]" verify --case zipf:K=-1
expect 2 "case zipf: V=0 is out of range [2," verify --case zipf:V=0
expect 2 "case logits: T=-1 is out of range [0, 100]" verify --case logits:T=-1
expect 2 "case logits: T='nan' is not a number" verify --case logits:T=nan
expect 2 "case zipf: 'V' is not key=value" verify --case zipf:V
expect 2 "case zipf: V='x' is not a number" verify --case zipf:V=x
expect 2 "verify: --draws needs a value" verify --draws
expect 2 "--draws: -5 is out of range" verify --draws -5
expect 2 "--alpha: 'nan' is not a number" verify --alpha nan
expect 2 "verify: give --suite or --case, not both" verify --case zipf --suite smoke
expect 2 "list: unknown option '--bogus'" list --bogus
expect 2 "calibrate: unknown option '--bogus'" calibrate --bogus
expect 2 "calibrate: --runs needs a value" calibrate --runs
expect 2 "--runs: 1 is out of range [2, 1000000]" calibrate --runs 1
expect 2 "--alpha: 2 is outside (0, 1)" calibrate --alpha 2
expect 2 "calibrate: unknown sampler 'nope'" calibrate --sampler nope
# a sampler whose runs fail far above the stated rate (seed sensitivity here) is a
# finding of the sampler, exit 1, not a calibration
expect 1 "FAILS: 3 of 3 runs failed" calibrate --sampler seed_ignored --runs 3 --suite smoke
expect 2 "calibrate: unknown suite 'nope'" calibrate --suite nope
# issue 23: a sampler on a fixed seed is named as such, not "NOT CALIBRATED";
# --plugin without --sampler calibrates the plugin's one sampler, as verify does
expect 1 "identical p-values in 3 runs: the sampler's randomness ignores the seed" \
  calibrate --plugin "$seedless" --sampler seedless --runs 3 --threads 2
expect 1 "calibrate: sampler seedless, suite smoke" calibrate --plugin "$seedless" --runs 2 \
  --threads 2
expect 2 "calibrate: the plugins offer 2 samplers; choose one with --sampler" \
  calibrate --plugin "$plugin" --plugin "$seedless" --runs 2
expect 2 "mutants: unknown option '--bogus'" mutants --bogus
expect 2 "mutants: unknown suite 'nope'" mutants --suite nope
expect 2 "--alpha: 0 is outside (0, 1)" mutants --alpha 0
expect 2 "--power: 1 is outside (0, 1)" mutants --power 1
expect 2 "unknown option '--bogus' (see 'specverify sweep --help')" sweep --bogus
expect 2 "--T: 'x' is not a number" sweep --case logits --T x
expect 2 "--T: 0:1:0: the point count must be 1 to 64" sweep --case logits --T 0:1:0
expect 2 "--T: 0:1:99999999999999999999: the point count must be 1 to 64" sweep --case logits --T 0:1:99999999999999999999
expect 2 "--K: 0 is outside [1, 16]" sweep --case logits --K 0
expect 2 "--K: '' has no values" sweep --case logits --K ''
expect 2 "--c: -1 is outside [0, 100]" sweep --case logits --c -1
expect 2 "--draws: 0 is out of range" sweep --case logits --draws 0
expect 2 "--sampler: unknown sampler 'nope'" sweep --case logits --sampler nope
expect 2 "--B: 'x' is not a number" sweep --case logits --B 1,x --target-us 1 --sampler-us 1
expect 2 "--B needs a value" bench --B
expect 2 "--K: 0 is out of range [1, 16]" bench --K 0
expect 2 "--V: 1 is out of range [2, 1048576]" bench --V 1
expect 2 "--sampler: ref runs on the host; bench times CUDA samplers" bench --sampler ref
expect 2 "--time-limit: 0 is outside (0, 3600)" bench --time-limit 0
expect 2 "run: cannot open $dir/none.ini" run "$dir/none.ini"
expect 2 "run: unknown option '--bogus' (see 'specverify run --help')" run --bogus
expect 2 "run: --only needs a value" run --only
# getopt_long's other refusals, said the same way by every command
expect 2 "verify: '--s' is ambiguous: --sampler, --suite, --seed" verify --s ref
expect 2 "mutants: --full takes no value, got '--full=1'" mutants --full=1
expect 2 "verify: unknown option '-z'" verify --draws 5 -zq
expect 2 "plot: -o needs a value (see 'specverify plot --help')" plot -o
expect 2 "record ngram: unknown option '--bogus' (see 'specverify record ngram --help')" \
  record ngram --bogus
expect 2 "sweep: unexpected argument 'extra'" sweep extra
expect 2 "plot: unknown option '--bogus'" plot --bogus
expect 2 "compare: unknown option '--bogus'" compare --bogus
expect 2 "compare: --plot needs a value" compare a.h5 --plot
expect 2 "mutants: --variants needs a value" mutants --variants
expect 2 "--T: -1 is outside [0, 100]" sweep --case logits --T -1
# issue 23: one syntax for every number (decimal or 1e6, nothing around it),
# numbers beyond a double are out of range, whole bounds print as integers,
# and an empty list item is refused by position, not dropped
expect 2 "--draws: 1e400 is out of range [1, 1099511627776]" verify --draws 1e400
expect 2 "--alpha: 1e400 is out of range (0, 1)" verify --alpha 1e400
expect 2 "--alpha: 1e-320 is out of range: nearer 0 than a double holds" verify --alpha 1e-320
expect 2 "--draws: '5 ' is not a whole number" verify --draws '5 '
expect 2 "--draws: ' 5' is not a whole number" verify --draws ' 5'
expect 2 "--draws: '0x10' is not a whole number" verify --draws 0x10
expect 2 "--alpha: '0x1p-4' is not a number" verify --alpha 0x1p-4
expect 2 "--alpha: ' 0.5' is not a number" verify --alpha ' 0.5'
expect 2 "--B: 20000000 is outside [1, 16777216]" sweep --case logits --B 20000000 \
  --target-us 100 --sampler-us 10
expect 2 "--T: '1,,2': item 2 is empty" sweep --case logits --T 1,,2
expect 2 "--T: '1,2,': item 3 is empty" sweep --case logits --T 1,2,
expect 2 "--K: ',2': item 1 is empty" sweep --case logits --K ,2
expect 2 "--T: range 0:1e400:3 must lie in [0, 100]" sweep --case logits --T 0:1e400:3
expect 2 "--T: ' 0:1:3' is not FROM:TO:N" sweep --case logits --T ' 0:1:3'
# a point the case cannot be: refused before the first draw (1e9 draws a
# point would take hours), nothing written to --out
expect 2 "sweep: the point zipf:V=50,K=2,T=0.5: case zipf: unknown parameter 'T'" \
  sweep --case zipf:V=50,K=2 --T 0.5,1 --draws 1000000000 --out "$dir/sweep-refused"
expect 2 "sweep: the point greedy:V=50,K=2,T=1: case greedy: T=1 is out of range [0, 0]" \
  sweep --case greedy:V=50,K=2 --T 0,1 --draws 1000000000 --out "$dir/sweep-refused"
expect 2 "sweep: markov:V=64,K=1 is a Markov pair, whose rows change every step" \
  sweep --case markov:V=64,K=4 --K 1,2 --draws 1000000000 --out "$dir/sweep-refused"
expect 2 "sweep: K = 4 is deeper than the tree 3x2x1 (depth 3) of sampler ref_tree" \
  sweep --sampler ref,ref_tree --case logits:V=50,K=2 --K 1,4 --draws 1000000000 \
  --out "$dir/sweep-refused"
[ ! -e "$dir/sweep-refused/sweep.h5" ] ||
  { echo "FAIL: a refused sweep wrote $dir/sweep-refused/sweep.h5"; failures=$((failures + 1)); }
expect 2 "case zipf: V=1e400 is out of range [2, 1048576]" verify --case zipf:V=1e400
expect 2 "case zipf: V=' 50' is not a number" verify --case 'zipf:V= 50'
expect 2 "case zipf: 'V=50,,K=2': item 2 is empty" verify --case zipf:V=50,,K=2
expect 2 "case zipf: 'V=50,': item 2 is empty" verify --case zipf:V=50,
# issue 23: keys out of their family's range, or past V, are refused
expect 2 "case markov: support=65 is out of range [0, 64] with V=64" \
  verify --case markov:V=64,support=65
expect 2 "case logits: T2=-0.5 is out of range [0, 100] or -1" verify --case logits:T2=-0.5
expect 2 "case logits: topk=101 is out of range [0, 100] with V=100" \
  verify --case logits:V=100,topk=101
expect 2 "case tail: head=20 is out of range [1, 19] with V=20" verify --case tail:V=20,head=20
expect 2 "$dir/none.h5: not an HDF5 file" plot "$dir/none.h5"

# ---- sizes: B x (K+1) x V beyond memory gets the bytes asked, before any device
expect 2 "bench: the largest input: B x (K+1) x V = 1048576 x 17 x 1048576 target floats and B x K x V draft floats take 145135534866432 bytes" \
  bench --B 1,1048576 --K 2,16 --V 1048576
# a Markov case builds every stream's rows: 262144 streams x 33 rows x 4096 floats
# is 132 GiB, more than the machines this runs on (skipped where it would fit)
memory_kib=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo 2>/dev/null || echo 0)
if [ "${memory_kib:-0}" -lt 138000000 ]; then
  expect 2 "case markov:V=4096,K=16,streams=1048576: batches of 262144 streams on 1 thread: B x (K+1) x V = 262144 x 17 x 4096 target floats and B x K x V draft floats take 141733920768 bytes" \
    verify --case markov:V=4096,K=16,streams=1048576 --batch 1048576 --threads 1 --draws 1
else
  echo "SKIP: the Markov size check: this machine has $memory_kib KiB, the rows would fit"
fi

# ---- output paths that cannot be written: exit 2 before any sampling
mkdir -p "$dir/folder" "$dir/mutants-out/mutants-smoke.md"
echo "a file" >"$dir/file"
expect 2 "$dir/folder: cannot write there: it is a folder" verify --case zipf:V=50,K=2 --json "$dir/folder"
expect 2 "$dir/file/r.xml: cannot write there: Not a directory" verify --case zipf:V=50,K=2 --junit "$dir/file/r.xml"
expect 2 "--out: cannot create the folder $dir/file/sweep: Not a directory" \
  sweep --case logits:V=50,K=2 --draws 100 --out "$dir/file/sweep"
expect 2 "mutants: cannot create the output folder $dir/file/m: Not a directory" \
  mutants --suite smoke --out "$dir/file/m"
expect 2 "$dir/mutants-out/mutants-smoke.md: cannot write there: it is a folder" \
  mutants --suite smoke --out "$dir/mutants-out"
expect 2 "$dir/file/b.h5: cannot write there: Not a directory" bench --out "$dir/file/b.h5"
expect 2 "$dir/folder: cannot write there: it is a folder" bench --out "$dir/folder"

# ---- output flags (issue 23): one file named twice (however spelt), an empty
# path, a flag given twice: exit 2 before any work (1e9 draws would take hours)
mkdir -p "$dir/sub"
: >"$dir/same.json"
ln -sf same.json "$dir/same-link.json"
rm -f "$dir/new.json" "$dir/new2.json"
big=(verify --case zipf:V=50,K=2 --draws 1000000000)
expect 2 "verify: --json $dir/same.json and --junit $dir/same.json are the same file" \
  "${big[@]}" --json "$dir/same.json" --junit "$dir/same.json"
expect 2 "are the same file" "${big[@]}" --json "$dir/same-link.json" --junit "$dir/./same.json"
expect 2 "are the same file" "${big[@]}" --json "$dir/sub/../new.json" --junit "$dir/new.json"
expect 2 "are the same file" "${big[@]}" --json "$dir//new2.json" --junit "$dir/new2.json"
[ ! -s "$dir/same.json" ] && [ ! -e "$dir/new.json" ] && [ -L "$dir/same-link.json" ] ||
  { echo "FAIL: a refused run wrote a report"; failures=$((failures + 1)); }
expect 2 "verify: --json: the path is empty" "${big[@]}" --json ''
expect 2 "verify: --junit: the path is empty" "${big[@]}" --junit ''
expect 2 "verify: --json given twice ('$dir/a.json', then '$dir/b.json')" \
  "${big[@]}" --json "$dir/a.json" --json "$dir/b.json"
expect 2 "verify: --junit given twice" "${big[@]}" --junit "$dir/a.xml" --junit "$dir/a.xml"
expect 2 "sweep: --out: the path is empty" sweep --case logits:V=50,K=2 --draws 1000 --out ''
expect 2 "sweep: --out given twice" sweep --case logits:V=50,K=2 --out "$dir/s1" --out "$dir/s2"
expect 2 "bench: --out: the path is empty" bench --out ''
expect 2 "bench: --out given twice" bench --out "$dir/b1.h5" --out "$dir/b2.h5"
expect 2 "mutants: --out: the path is empty" mutants --suite smoke --out ''
expect 2 "mutants: --out given twice" mutants --suite smoke --out "$dir/m1" --out "$dir/m2"
expect 2 "compare: --plot: the path is empty" compare a.h5 b.h5 --plot ''
expect 2 "compare: --plot given twice" compare a.h5 b.h5 --plot "$dir/p1" --plot "$dir/p2"
expect 2 "record ngram: --out: the path is empty" record ngram --corpus "$dir/file" --out ''
expect 2 "record ngram: --out given twice" record ngram --corpus "$dir/file" --out a.h5 --out b.h5
[ ! -e "$dir/s1" ] && [ ! -e "$dir/m1" ] && [ ! -e "$dir/p1" ] && [ ! -e a.h5 ] ||
  { echo "FAIL: a refused output flag left a folder or a file"; failures=$((failures + 1)); }

# ---- environment: a CUDA sampler without a usable GPU says why (exit 3);
# with --device-staging too, in mixed batches as in uniform ones (issue 40:
# mixed ones are no longer refused), where a host sampler is refused (2)
expect 2 "--device-staging: sampler ref runs on the host" \
  verify --sampler ref --device-staging --case binary --draws 1000
for extra in "" "--device-staging --batches mixed" "--device-staging --batches uniform"; do
  read -ra more <<<"$extra"
  what="verify --sampler cuda_fused${extra:+ $extra}"
  out=$("$sv" verify --sampler cuda_fused "${more[@]}" --case binary --draws 1000 2>&1)
  rc=$?
  total=$((total + 1))
  if [ $rc -eq 0 ]; then
    echo "SKIP: $what ran: this machine has a GPU"
  elif [ $rc -eq 3 ] && grep -Eq "sampler cuda_fused needs a CUDA device: .+|unknown sampler 'cuda_fused'" <<<"$out"; then
    echo "PASS: $what without a GPU -> 3"
  elif [ $rc -eq 2 ] && grep -q "unknown sampler 'cuda_fused'" <<<"$out"; then
    echo "PASS: $what in a build without CUDA -> 2 (not built)"
  else
    echo "FAIL: $what -> exit $rc: $out"
    failures=$((failures + 1))
  fi
done

# bench in a logits mode: a sampler without that input is bad usage (2) in a
# CUDA build; a build without CUDA says so (3), after the argument checks
out=$("$sv" bench --input logits-f32 --sampler cuda_naive 2>&1)
rc=$?
total=$((total + 1))
if [ $rc -eq 2 ] && grep -qF "sampler cuda_naive does not take logits-f32 input" <<<"$out"; then
  echo "PASS: bench --input logits-f32 --sampler cuda_naive -> 2"
elif [ $rc -eq 3 ] && grep -qF "built without it" <<<"$out"; then
  echo "PASS: bench --input logits-f32 --sampler cuda_naive in a build without CUDA -> 3"
else
  echo "FAIL: bench --input logits-f32 --sampler cuda_naive -> exit $rc: $out"
  failures=$((failures + 1))
fi
# good logits arguments get as far as the device: 3 without a GPU or without CUDA
out=$("$sv" bench --input logits-bf16 --T 0.7 --top-k 50 --top-p 0.9 --B 1 --V 1000 \
  --time-limit 0.01 2>&1)
rc=$?
total=$((total + 1))
if [ $rc -eq 0 ]; then
  echo "SKIP: bench --input logits-bf16 ran: this machine has a GPU"
elif [ $rc -eq 3 ] && grep -Eq "bench needs a CUDA device: .+|built without it" <<<"$out"; then
  echo "PASS: bench --input logits-bf16 without a GPU -> 3"
else
  echo "FAIL: bench --input logits-bf16 -> exit $rc: $out"
  failures=$((failures + 1))
fi

# cuda_fused's knobs in the environment: a value not known is bad input (2)
# before any command runs or writes, whichever sampler it names; help still answers
expect_env() {
  local assignment=$1 words=$2
  shift 2
  local out
  total=$((total + 1))
  out=$(env "$assignment" "$sv" "$@" 2>&1)
  local rc=$?
  if [ "$rc" -ne 2 ] || ! grep -qF -- "$words" <<<"$out"; then
    echo "FAIL: $assignment specverify $* -> exit $rc (wanted 2), output: ${out:0:300}"
    failures=$((failures + 1))
  else
    echo "PASS: $assignment specverify $* -> 2"
  fi
}
expect_env SV_FUSED_DEPTH=3 "environment variable SV_FUSED_DEPTH='3' is not 1 or 2" \
  verify --case zipf:V=50,K=2 --draws 1000 --json "$dir/env.json"
[ -e "$dir/env.json" ] && { echo "FAIL: a bad SV_FUSED_DEPTH still wrote env.json"; failures=$((failures + 1)); }
expect_env SV_FUSED_SPLITS=many "SV_FUSED_SPLITS='many' is not an integer from 1 to 65535" bench
expect_env SV_FUSED_SPLITS=0 "SV_FUSED_SPLITS='0' is not an integer from 1 to 65535" list
expect_env SV_FUSED_PRUNE=off "SV_FUSED_PRUNE='off' is not 0 or 1" mutants
expect_env SV_FUSED_EARLY=yes "SV_FUSED_EARLY='yes' is not 0 or 1" sweep
expect_env "SV_FUSED_PRUNE= 1" "SV_FUSED_PRUNE=' 1' is not 0 or 1" list
expect_env SV_FUSED_DEPTH=+2 "SV_FUSED_DEPTH='+2' is not 1 or 2" list
total=$((total + 1))
if SV_FUSED_DEPTH=9 "$sv" --help | grep -q "SV_FUSED_DEPTH=1|2"; then
  echo "PASS: --help with a bad SV_FUSED_DEPTH still answers, and names the knobs"
else
  echo "FAIL: --help with SV_FUSED_DEPTH=9 did not answer or does not name the knobs"
  failures=$((failures + 1))
fi

# issue 23, 24: the tour (once README) and the example plugin give the include folder that
# CMake installs the header to. (That the pages --help texts point to exist
# is the doc_check test's: tools/check_docs.py.)
src=$(cd "$(dirname "$0")/../.." && pwd)
total=$((total + 1))
readme_inc=$(grep -o -- '-I[^ ]*specverify' "$src/docs/tour.md" | sort -u)
example_inc=$(grep -o -- '-I[^ ]*specverify' "$src/samplers/examples/race_plugin.c" | sort -u)
if grep -q 'DESTINATION include/specverify)' "$src/cmake/install.cmake" &&
  [ "$readme_inc" = "-I/usr/local/include/specverify" ] && [ "$example_inc" = "$readme_inc" ]; then
  echo "PASS: docs/tour.md and the example plugin include the installed header alike ($readme_inc)"
else
  echo "FAIL: include folders differ: docs/tour.md '$readme_inc', race_plugin.c '$example_inc'" \
    "(cmake --install puts sv_sampler.h in PREFIX/include/specverify, PREFIX /usr/local)"
  failures=$((failures + 1))
fi

echo "$((total - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
