#!/usr/bin/env bash
# install_check.sh BUILD_DIR SOURCE_DIR OUT_DIR: `cmake --install` into a
# prefix of its own, then use nothing but that prefix: the example plugin
# built by a CMake project through find_package(specverify) and by cc with
# pkg-config, both verified by the installed CLI; the installed Python
# package and plugin, from their installed places.
set -uo pipefail
build=$1 src=$2 out=$3
rm -rf "$out"
mkdir -p "$out"
prefix=$out/prefix
failures=0 passes=0
pass() { echo "PASS: $1"; passes=$((passes + 1)); }
fail() { echo "FAIL: $1"; failures=$((failures + 1)); }

cmake --install "$build" --prefix "$prefix" >"$out/install.log" 2>&1 ||
  { cat "$out/install.log"; echo "FAIL: cmake --install"; exit 1; }
sv=$prefix/bin/specverify
[ -x "$sv" ] && [ -f "$prefix/include/specverify/sv_sampler.h" ] &&
  pass "installed: bin/specverify, include/specverify/sv_sampler.h" || fail "installed files"

# CMake: find_package from the prefix alone (the source tree is not on any path)
cmake -S "$src/tests/install/consumer" -B "$out/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
  >"$out/consumer.log" 2>&1 && cmake --build "$out/consumer" >>"$out/consumer.log" 2>&1 &&
  [ "$(cat "$out/consumer/specverify_executable.txt")" = "$prefix/bin/specverify" ] &&
  pass "find_package(specverify): specverify::sampler builds the example plugin" ||
  { cat "$out/consumer.log"; fail "find_package(specverify)"; }

# pkg-config: the same plugin by hand
PKG_CONFIG_PATH=$prefix/lib/pkgconfig
export PKG_CONFIG_PATH
cflags=$(pkg-config --cflags specverify) && [ "$(pkg-config --modversion specverify)" = 0.1.0 ] &&
  cc -shared -fPIC -O2 $cflags "$prefix/share/specverify/examples/race_plugin.c" \
    -o "$out/race_pc.so" -lm && pass "pkg-config specverify: $cflags" || fail "pkg-config build"

for lib in "$out/consumer/race_cmake.so" "$out/race_pc.so"; do
  "$sv" verify --plugin "$lib" --suite smoke --threads 2 >"$out/verify.log" 2>&1 &&
    pass "installed specverify verifies $(basename "$lib"): smoke, exit 0" ||
    { tail -5 "$out/verify.log"; fail "verify --plugin $(basename "$lib")"; }
done

# Python: the installed plugin and package, found from the installed CLI
if [ -f "$prefix/lib/specverify/sv_python.so" ]; then
  "$sv" verify --python "$src/tests/python/numpy_chain.py:numpy_chain" --suite smoke \
    --threads 2 >"$out/python.log" 2>&1 &&
    pass "installed specverify --python (its plugin and package from the prefix)" ||
    { tail -5 "$out/python.log"; fail "installed --python"; }
  site=$(ls -d "$prefix"/lib/python3*/dist-packages)
  got=$(cd "$out" && PYTHONPATH=$site /usr/bin/python3 -c \
    'import specverify; print(specverify.executable(), specverify.__file__)')
  [[ $got == "$prefix/bin/specverify $site/specverify/__init__.py" ]] &&
    pass "installed package: import specverify finds the installed CLI" ||
    fail "installed package says: $got"
else
  echo "SKIPPED: Python samplers were not built (no Python 3 with numpy at configure time)"
fi
echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
