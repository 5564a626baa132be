"""setup.py's words when the build cannot start: `pip install .` on a
machine without CMake, or with a library CMake cannot find, must end with
what to install (the Debian packages the C harness builds against), not a
Python traceback. The cmake() helper runs here against a PATH with no cmake
and against a stand-in cmake that fails as a missing GSL makes it fail."""

import ast
import os
import stat
import subprocess
import sys
import tempfile

SETUP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "setup.py")
WANT = ("sudo apt-get install build-essential cmake pkg-config libgsl-dev libhdf5-dev "
        "librandom123-dev libinih-dev libcjson-dev libseccomp-dev libcap-ng-dev")


def cmake_helper():
    """setup.py's cmake() and BUILD_PACKAGES alone (running setup.py builds)."""
    tree = ast.parse(open(SETUP).read())
    keep = [n for n in tree.body
            if (isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "BUILD_PACKAGES")
            or (isinstance(n, ast.FunctionDef) and n.name == "cmake")]
    ns = {"subprocess": subprocess}
    exec(compile(ast.Module(body=keep, type_ignores=[]), SETUP, "exec"), ns)
    return ns["cmake"]


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
