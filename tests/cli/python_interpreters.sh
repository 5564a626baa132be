#!/usr/bin/env bash
# python_interpreters.sh: a Python sampler runs under the interpreter the
# user names, not one the build tied specverify to (issue 37). The plugin
# links no libpython; a second CPython (pyenv's, installed outside Debian,
# given Debian's numpy on PYTHONPATH; else a venv of Debian's) runs the
# smoke suite, and the report names it; bad interpreters are refused with
# exit 2, none on PATH is exit 3; a sampler's SyntaxError names its file
# and line.
# usage: python_interpreters.sh SPECVERIFY SCRATCH_DIR SV_PYTHON_PLUGIN SOURCE_DIR
set -u
sv=$1
dir=$2
plugin=$3
src=$4
rm -rf "$dir"
mkdir -p "$dir"
. "$(dirname "$0")/cli_lib.sh"
cd "$dir" || exit 1
sampler="$src/tests/python/numpy_chain.py:numpy_chain"

# the plugin links no Python: any interpreter can be the sampler's
if ldd "$plugin" | grep -q libpython; then
  fail "sv_python.so links libpython: $(ldd "$plugin" | grep libpython)"
else
  pass "sv_python.so links no libpython"
fi

# an interpreter other than the build's: pyenv's where there is one, of
# Debian's minor version (Debian's numpy is built for it)
other=
minor=$(/usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
for p in /root/.pyenv/versions/"$minor".*/bin/python3 /usr/local/bin/python"$minor"; do
  [ -x "$p" ] && [ "$(readlink -f "$p")" != "$(readlink -f /usr/bin/python3)" ] && other=$p && break
done
if [ -z "$other" ]; then
  echo "no second CPython on this machine: a venv of /usr/bin/python3 stands in"
  /usr/bin/python3 -m venv --without-pip venv && other=$PWD/venv/bin/python3
fi
PYTHONPATH=/usr/lib/python3/dist-packages "$sv" verify --python "$sampler" --suite smoke \
  --python-exe "$other" --json other.json >other.out 2>other.err
rc=$?
version=$(PYTHONPATH=/usr/lib/python3/dist-packages "$other" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')
if [ $rc -ne 0 ]; then
  fail "--python-exe $other: exit $rc: $(tail -3 other.err)"
elif ! grep -qF "python: $other (Python $version)" other.out; then
  fail "--python-exe $other: the header does not name it: $(grep -m1 '^python' other.out)"
elif ! /usr/bin/python3 -c 'import json,sys; p=json.load(open("other.json"))["python"]; sys.exit((p["executable"], p["version"]) != (sys.argv[1], sys.argv[2]) or "start" not in p)' "$other" "$version"; then
  fail "--python-exe $other: the JSON's python is not it"
else
  pass "the smoke suite passes under $other (Python $version), named in the text and JSON"
fi
# the same through SPECVERIFY_PYTHON
PYTHONPATH=/usr/lib/python3/dist-packages SPECVERIFY_PYTHON=$other "$sv" verify --python "$sampler" \
  --case zipf:V=50,K=2 --draws 4000 >env.out 2>&1 && grep -qF "python: $other" env.out &&
  pass "SPECVERIFY_PYTHON chooses the interpreter" ||
  fail "SPECVERIFY_PYTHON=$other: $(grep -m2 -e '^python' -e specverify: env.out)"

# bad interpreters: exit 2, named; none on PATH: exit 3
expect 2 "--python-exe $dir/none: not an executable file (want a Python 3.9 or later that imports numpy)" \
  verify --python "$sampler" --suite smoke --python-exe "$dir/none"
printf '#!/bin/sh\necho "Python 2.7.18"\nexit 1\n' >fake_python && chmod +x fake_python
expect 2 "--python-exe $dir/fake_python: Python 2.7.18" \
  verify --python "$sampler" --suite smoke --python-exe "$dir/fake_python"
expect 2 "verify: --python-exe without --python" verify --suite smoke --python-exe /usr/bin/python3
mkdir -p empty_path
out=$(env -u SPECVERIFY_PYTHON PATH="$dir/empty_path" "$sv" verify --python "$sampler" --suite smoke 2>&1)
rc=$?
[ $rc -eq 3 ] && grep -qF "no python3 on PATH imports numpy; give --python-exe PATH" <<<"$out" &&
  pass "no python3 with numpy on PATH: exit 3, said" || fail "empty PATH: exit $rc: ${out:0:300}"

# any CPython from 3.9 on: the glue parses under each one here (numpy aside);
# an older one is refused, named
for p in /root/.pyenv/versions/3.*/bin/python3; do
  [ -x "$p" ] || continue
  v=$("$p" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  if "$p" -c 'import sys; sys.exit(sys.version_info < (3, 9))'; then
    out=$(cd "$src/python/specverify" && "$p" -c 'import ast, glob, sys
for f in sorted(glob.glob("*.py")) + sorted(glob.glob("adapters/*.py")):
    ast.parse(open(f).read(), f, feature_version=(3, 9))' 2>&1) &&
      pass "the package parses as Python 3.9 under Python $v" || fail "Python $v: ${out:0:300}"
  else
    expect 2 "Python $v: specverify needs 3.9 or later" \
      verify --python "$sampler" --suite smoke --python-exe "$p"
  fi
done

# a SyntaxError in the sampler's file: bad input, its file and line named
printf 'import specverify\n\ndef broken(batch):\n    return batch.(\n' >broken.py
expect 2 "(broken.py:4)" verify --python "$dir/broken.py:broken" --suite smoke
finish
