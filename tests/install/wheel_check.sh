#!/usr/bin/env bash
# wheel_check.sh PYTHON SOURCE_DIR BUILD_DIR OUT_DIR: `pip wheel` the source
# (reusing BUILD_DIR's CMake build), install the wheel into a venv of its
# own under OUT_DIR, far from the build, and use it from there alone: the
# version from the dist-info, `python -m specverify` and the `specverify`
# command (output and exit status the CLI's), no build path in the
# programs' run paths, and verify --suite smoke with the reference sampler
# and with a Python sampler that imports the wheel's package.
set -uo pipefail
python=$1 src=$2 build=$3 out=$4
rm -rf "$out"
mkdir -p "$out"
failures=0 passes=0
pass() { echo "PASS: $1"; passes=$((passes + 1)); }
fail() { echo "FAIL: $1"; failures=$((failures + 1)); }

"$python" -c 'import setuptools, wheel, venv, pip' 2>/dev/null || {
  echo "SKIPPED: $python has no pip, setuptools, wheel or venv (python3-pip python3-setuptools python3-wheel python3-venv)"
  exit 77
}
SPECVERIFY_BUILD_DIR=$build "$python" -m pip wheel -q --no-build-isolation --no-deps --no-index \
  "$src" -w "$out/wheel" >"$out/wheel.log" 2>&1 ||
  { tail -20 "$out/wheel.log"; echo "FAIL: pip wheel"; exit 1; }
# --system-site-packages: the sampler's numpy is the system's
"$python" -m venv --system-site-packages "$out/venv" &&
  "$out/venv/bin/pip" install -q --no-index --no-deps "$out"/wheel/specverify-*.whl \
    >"$out/install.log" 2>&1 || { cat "$out/install.log"; echo "FAIL: pip install the wheel"; exit 1; }
vpy=$out/venv/bin/python
cd "$out" || exit 1 # not the source tree: nothing importable by accident

want=$(sed -n 's/^project(specverify VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
got=$("$vpy" -c 'import importlib.metadata as m, specverify
print(m.version("specverify"), specverify.__version__)')
[ -n "$want" ] && [ "$got" = "$want $want" ] &&
  pass "version: dist-info and specverify.__version__ are CMakeLists.txt's $want" ||
  fail "version: dist-info and __version__ say '$got', CMakeLists.txt '$want'"

site=$("$vpy" -c 'import specverify, os; print(os.path.dirname(specverify.__file__))')
[[ $site == "$out/venv/"*/site-packages/specverify ]] &&
  [ "$("$vpy" -c 'import specverify; print(specverify.executable())')" = "$site/_bin/specverify" ] &&
  pass "import specverify: the venv's package, its CLI in specverify/_bin" ||
  fail "import specverify: package at $site"

for cmd in "$vpy -m specverify" "$out/venv/bin/specverify"; do
  v=$($cmd --version 2>&1)
  [ "$v" = "specverify $want" ] && pass "$cmd --version: $v" || fail "$cmd --version says '$v'"
  $cmd verify --suite no_such_suite >/dev/null 2>"$out/bad.err"
  rc=$?
  [ $rc -eq 2 ] && grep -q no_such_suite "$out/bad.err" &&
    pass "$cmd: a bad suite exits 2, naming it" || fail "$cmd: bad suite exit $rc"
done

# run paths: nothing under the build or the source tree ($ORIGIN or system folders)
bad_paths=0
for f in "$site"/_bin/*; do
  rp=$(readelf -d "$f" | sed -n 's/.*(R[UN]*PATH).*\[\(.*\)\]/\1/p')
  [[ $rp == *"$build"* || $rp == *"$src"* ]] && { echo "  $f: run path $rp"; bad_paths=1; }
done
[ $bad_paths -eq 0 ] && pass "run paths of specverify/_bin/*: no build or source path" ||
  fail "a bundled program's run path names the build"

"$out/venv/bin/specverify" verify --suite smoke --threads 2 >"$out/ref.log" 2>&1 &&
  grep -q "6 passed, 0 suspect, 0 failed" "$out/ref.log" &&
  pass "relocated: specverify verify --suite smoke (reference sampler): 6 passed" ||
  { tail -5 "$out/ref.log"; fail "relocated verify --suite smoke"; }

if [ -f "$site/_bin/sv_python.so" ]; then
  # the sampler's specverify must be the wheel's, found from the bundled CLI
  cat >"$out/wheel_sampler.py" <<PY
import os, sys
import specverify
if os.path.dirname(os.path.realpath(specverify.__file__)) != os.path.realpath("$site"):
    raise ImportError("the sampler's specverify is %s, not the wheel's" % specverify.__file__)
sys.path.insert(0, "$src/tests/python")
from numpy_chain import numpy_chain  # noqa: E402,F401
PY
  # the command passes the venv's sys.path on; the bundled CLI alone finds its package
  for cmd in "$out/venv/bin/specverify" "env -u PYTHONPATH $site/_bin/specverify"; do
    $cmd verify --python "$out/wheel_sampler.py:numpy_chain" --suite smoke \
      --threads 2 >"$out/python.log" 2>&1 && grep -q "6 passed, 0 suspect, 0 failed" "$out/python.log" &&
      pass "relocated: $cmd verify --python (the wheel's plugin and package): 6 passed" ||
      { tail -5 "$out/python.log"; fail "relocated $cmd verify --python"; }
  done
else
  echo "SKIPPED: the wheel has no Python sampler plugin (built where no Python 3 with numpy was found)"
fi
echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
