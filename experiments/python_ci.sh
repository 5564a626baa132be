#!/usr/bin/env bash
# experiments/python_ci.sh [BUILD] [OUT]: the Python samplers of tests/python
# (the numpy one, the vLLM-style torch one) on the ci suite at the suite's
# own draws, as CI cannot afford to (it runs them at 20,000 a case), each
# into OUT/python-ci-NAME.txt and .json, headed by the machine, the commit,
# the date and the command.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
out=${2:-$here/results}
machine="$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1), $(nproc) cores, $(uname -sr)"
for spec in numpy_chain.py:numpy_chain vllm_style.py:vllm_ok; do
  name=${spec#*:}
  cmd=(verify --python "tests/python/$spec" --suite ci --json "${out#"$here"/}/python-ci-$name.json")
  {
    echo "machine: $machine; commit $(git -C "$here" rev-parse --short HEAD); $(date -u +%Y-%m-%d)"
    echo "command: specverify ${cmd[*]}"
    echo
    (cd "$here" && "$build/specverify" "${cmd[@]}" 2>/dev/null)
    echo "exit status $?"
  } >"$out/python-ci-$name.txt"
  tail -4 "$out/python-ci-$name.txt"
done
