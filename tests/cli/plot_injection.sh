#!/usr/bin/env bash
# plot_injection.sh: every plotting command fed hostile strings where a
# file, a user or a plugin puts them: a bench file's name, its device and
# sampler names (plot, compare --plot), the output folder, a recording's
# name (sweep --recorded, whose title holds it). Each string would run
# `touch PWNED` if it reached a shell or escaped its gnuplot quotes; no
# PWNED may appear anywhere, and every plot must be drawn. Exit 77
# (skipped) without gnuplot: what is tested is what gnuplot makes of them.
# usage: plot_injection.sh SPECVERIFY FORGE_H5 SOURCE_DIR SCRATCH_DIR
set -u
sv=$1
forge=$2
src=$3
dir=$4
if ! command -v gnuplot >/dev/null; then
  echo "SKIP: gnuplot is not installed (bash ci/setup installs it)"
  exit 77
fi
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir" || exit 1
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# the hostile strings (no '/': each is a file name too; no ',' or ':',
# which a recorded case spec refuses)
hostile=(
  "q' ; system('touch PWNED') ; print '"  # a single quote, then gnuplot's system()
  'd" . system("touch PWNED") . "'        # double quotes
  'b`touch PWNED`q'                       # backquotes, which "..." would run
  $'n\nsystem(\'touch PWNED\')\nprint \'x' # newlines: a script line of its own
  "e\\'; system('touch PWNED'); print '\\" # backslashes, one last
  's;touch PWNED;y'                       # ';' for a shell (system() ran it)
  '$(touch PWNED) @x'                     # a shell's $(), a gnuplot macro
  '|touch PWNED;x'                        # an output to a pipe
  '<touch PWNED;echo 1 2;x'               # a data file from a pipe
)

pwned() {
  find "$dir" -name 'PWNED*' | grep -q . || return 1
  find "$dir" -name 'PWNED*' -delete
}
drawn() { # FOLDER FILES...: each plot there, not empty
  local folder=$1
  shift
  for f in "$@"; do
    [ -s "$folder/$f" ] || return 1
  done
}

# a small recording to copy under hostile names
"$sv" record ngram --corpus "$src/tests/cli/record_corpus.txt" --V 64 --K 3 --steps 4 --order 3 \
  --draft-order 2 --draft-fraction 0.5 --block 40 --held-out 0.2 --out rec.h5 >/dev/null 2>&1 ||
  fail "record ngram: exit $?"

# each string alone in each place, the rest plain, so that no earlier
# refusal hides a later injection
for i in "${!hostile[@]}"; do
  h=${hostile[$i]}
  shown=$(printf '%q' "$h")
  st=${h//$'\n'/_} # plots of FILE.h5 are FILE-..., a control character made '_'
  mkdir -p "c$i"
  # a bench file's device and sampler names: plot, compare --plot
  "$forge" bench "c$i/dev.h5" "$h" "$h" || { fail "forge_h5 bench $shown"; continue; }
  out=$("$sv" plot "c$i/dev.h5" 2>&1) || fail "plot (device, sampler $shown): exit $? ($out)"
  pwned && fail "plot (device, sampler $shown) ran a command"
  drawn "c$i" dev-latency_vs_B.png dev-latency_vs_V.svg ||
    fail "plot (device, sampler $shown) drew nothing: $out"
  out=$("$sv" compare "c$i/dev.h5" "c$i/dev.h5" --plot "c$i/cmp" 2>&1) ||
    fail "compare --plot (device, sampler $shown): exit $? ($out)"
  pwned && fail "compare --plot (device, sampler $shown) ran a command"
  drawn "c$i/cmp" compare.png compare.svg ||
    fail "compare --plot (device, sampler $shown) drew nothing: $out"

  # the bench file's name, the output folder's
  "$forge" bench "c$i/$h.h5" "NVIDIA H100" cuda_fused || { fail "forge_h5 bench $shown"; continue; }
  out=$("$sv" plot "c$i/$h.h5" 2>&1) || fail "plot $shown: exit $? ($out)"
  pwned && fail "plot $shown ran a command"
  drawn "c$i" "$st-latency_vs_B.png" "$st-latency_vs_V.svg" || fail "plot $shown drew nothing: $out"
  out=$("$sv" plot "c$i/$h.h5" --out "c$i/out $h" 2>&1) || fail "plot --out $shown: exit $? ($out)"
  pwned && fail "plot --out $shown ran a command"
  drawn "c$i/out $h" "$st-latency_vs_B.svg" "$st-latency_vs_V.png" ||
    fail "plot --out $shown drew nothing: $out"
  out=$("$sv" compare "c$i/$h.h5" "c$i/$h.h5" --plot "c$i/cmp$h" 2>&1) ||
    fail "compare --plot $shown: exit $? ($out)"
  pwned && fail "compare --plot $shown ran a command"
  drawn "c$i/cmp$h" compare.png compare.svg || fail "compare --plot $shown drew nothing: $out"

  # a recording's name (the sweep's title holds it), the sweep's folder
  cp rec.h5 "c$i/r$h.h5"
  out=$("$sv" sweep --recorded "c$i/r$h.h5" --K 1,2 --draws 400 --out "c$i/sweep" 2>&1) ||
    fail "sweep --recorded $shown: exit $? ($out)"
  pwned && fail "sweep --recorded $shown ran a command"
  drawn "c$i/sweep" tokens_vs_K.png speedup_vs_K.svg accepted_lengths.png ||
    fail "sweep --recorded $shown drew nothing: $out"
  out=$("$sv" sweep --recorded rec.h5 --K 1,2 --draws 400 --out "c$i/sweep$h" 2>&1) ||
    fail "sweep --out $shown: exit $? ($out)"
  pwned && fail "sweep --out $shown ran a command"
  drawn "c$i/sweep$h" tokens_vs_K.svg speedup_vs_K.png accepted_lengths.svg ||
    fail "sweep --out $shown drew nothing: $out"
done
echo "$failures failed"
[ "$failures" -eq 0 ]
