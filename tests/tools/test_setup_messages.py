"""setup.py's words when the build cannot start: `pip install .` on a
machine without CMake, or with a library CMake cannot find, must end with
what to install (the Debian packages the C harness builds against), not a
Python traceback. The cmake() helper runs here against a PATH with no cmake
and against a stand-in cmake that fails as a missing GSL makes it fail; the
bdist_wheel check with the wheel package hidden (`pip install
--no-build-isolation` in a venv without it) and with it as it is."""

import ast
import importlib.util
import os
import stat
import subprocess
import sys
import tempfile

SETUP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "setup.py")
WANT = ("sudo apt-get install build-essential cmake pkg-config libgsl-dev libhdf5-dev "
        "librandom123-dev libinih-dev libcjson-dev libseccomp-dev libcap-ng-dev")


def setup_helper(name):
    """setup.py's function name, with BUILD_PACKAGES, alone (running
    setup.py builds)."""
    tree = ast.parse(open(SETUP).read())
    keep = [n for n in tree.body
            if (isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "BUILD_PACKAGES")
            or (isinstance(n, ast.FunctionDef) and n.name == name)]
    ns = {"subprocess": subprocess, "importlib": importlib}
    exec(compile(ast.Module(body=keep, type_ignores=[]), SETUP, "exec"), ns)
    return ns[name]


def cmake_helper():
    return setup_helper("cmake")


def wheel_refusal(hidden):
    """wheel_command_missing()'s words with the modules named hidden (None
    in sys.modules: an import of them fails), then as before."""
    missing = setup_helper("wheel_command_missing")
    saved = {m: sys.modules.get(m, False) for m in hidden}
    for m in hidden:
        sys.modules[m] = None
    try:
        return missing()
    finally:
        for m, was in saved.items():
            if was is False:
                del sys.modules[m]
            else:
                sys.modules[m] = was


def refusal(path):
    """cmake()'s SystemExit text with PATH set to path, or None."""
    cmake, saved = cmake_helper(), os.environ.get("PATH", "")
    os.environ["PATH"] = path
    try:
        cmake("-S", ".", "-B", "build-wheel/cmake")
    except SystemExit as e:
        return str(e)
    finally:
        os.environ["PATH"] = saved
    return None


def main():
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        fake = os.path.join(tmp, "cmake")
        with open(fake, "w") as f:
            f.write("#!/bin/sh\necho 'Could NOT find GSL' >&2\nexit 1\n")
        os.chmod(fake, stat.S_IRWXU)
        for what, path, words in [
                ("no cmake on PATH", os.path.join(tmp, "empty"), "no cmake on PATH"),
                ("a configure that fails", tmp + ":/bin:/usr/bin",
                 "cmake -S . -B build-wheel/cmake failed (exit 1")]:
            said = refusal(path)
            ok = said is not None and words in said and WANT in said
            print("%s: %s: %s" % ("ok" if ok else "FAIL", what, said))
            failures += not ok
    # a --no-build-isolation build where the environment has no bdist_wheel
    # (a pyenv venv: setuptools < 70.1 and no wheel) says what to install;
    # where it has one (Debian's python3-wheel, setuptools >= 70.1), nothing
    said = wheel_refusal(["wheel", "wheel.bdist_wheel", "setuptools.command.bdist_wheel"])
    ok = said is not None and "has no bdist_wheel command" in said and "pip install wheel" in said
    print("%s: no bdist_wheel command: %s" % ("ok" if ok else "FAIL", said))
    failures += not ok
    have = (importlib.util.find_spec("wheel") is not None
            or importlib.util.find_spec("setuptools.command.bdist_wheel") is not None)
    said = wheel_refusal([])
    ok = (said is None) == have
    print("%s: bdist_wheel %s: %s" % ("ok" if ok else "FAIL", "at hand" if have else "not here",
                                      said))
    failures += not ok
    # and each package the message names is one ci/setup installs
    with open(os.path.join(os.path.dirname(SETUP), "ci", "setup")) as f:
        listed = set(w for line in f for w in line.split("#")[0].split())
    missing = [p for p in WANT.split()[3:] if p not in listed]
    print("%s: ci/setup installs every package named%s" % ("FAIL" if missing else "ok",
                                                          ": not " + " ".join(missing)
                                                          if missing else ""))
    failures += bool(missing)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
