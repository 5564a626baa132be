"""The build step behind pyproject.toml: CMake builds the CLI and the Python
sampler plugin, `cmake --install` stages them with the package, and the
staged files go into the wheel in one layout (site-packages/specverify,
with the CLI and the plugins in specverify/_bin).

    SPECVERIFY_BUILD_DIR=DIR  reuse that configured build folder (CI's build/)
                              instead of configuring build-wheel/cmake
    CMAKE_ARGS="-D..."        more arguments when configuring build-wheel/cmake
"""

import glob
import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

ROOT = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(ROOT, "build-wheel"), exist_ok=True)  # egg_base below


def cmake_version():
    """project(specverify VERSION X.Y.Z) in CMakeLists.txt."""
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        m = re.search(r"project\(\s*specverify\s+VERSION\s+([0-9.]+)", f.read())
    if not m:
        raise RuntimeError("CMakeLists.txt: no project(specverify VERSION ...)")
    return m.group(1)


# what the C harness builds against, as Debian and Ubuntu name it (ci/setup
# installs these and the test tools)
BUILD_PACKAGES = ("build-essential cmake pkg-config libgsl-dev libhdf5-dev librandom123-dev "
                  "libinih-dev libcjson-dev libseccomp-dev libcap-ng-dev")


def cmake(*args):
    print("specverify build: cmake " + " ".join(args), flush=True)
    try:
        subprocess.run(["cmake", *args], check=True)
    except FileNotFoundError:
        raise SystemExit("specverify build: no cmake on PATH. The C harness builds with CMake "
                         "and a C compiler against a few libraries; on Debian or Ubuntu: "
                         "sudo apt-get install " + BUILD_PACKAGES) from None
    except subprocess.CalledProcessError as e:
        raise SystemExit("specverify build: cmake %s failed (exit %d; CMake's words above "
                         "say what). A library not found is the usual cause; on Debian or "
                         "Ubuntu: sudo apt-get install %s (nvcc is optional: without it the "
                         "CUDA samplers are left out)" % (" ".join(args), e.returncode,
                                                         BUILD_PACKAGES)) from None


def wheel_command_missing():
    """Why pip cannot make a wheel with this environment's setuptools, or
    None. setuptools before 70.1 takes bdist_wheel from the wheel package;
    `pip install --no-build-isolation .` uses what the environment has, and
    a venv of a Python other than Debian's (pyenv's, conda's) often lacks
    it, where setuptools' own words would be "invalid command 'bdist_wheel'"."""
    def found(module):
        try:
            return importlib.util.find_spec(module) is not None
        except ImportError:  # its package is not there
            return False

    if found("setuptools.command.bdist_wheel") or found("wheel.bdist_wheel"):
        return None
    import setuptools
    return ("specverify build: this environment's setuptools %s has no bdist_wheel command "
            "and the wheel package is not installed, so pip cannot build the wheel. "
            "`pip install --no-build-isolation` builds with the environment's own "
            "setuptools and wheel: install wheel into it (`pip install wheel`; offline, in a "
            "venv of Debian's python3 made with --system-site-packages: "
            "sudo apt-get install python3-wheel), or leave out --no-build-isolation where "
            "pip can reach a package index" % setuptools.__version__)


def build_and_stage(stage):
    """Builds the CLI and sv_python in the build folder; installs into stage."""
    given = os.environ.get("SPECVERIFY_BUILD_DIR")
    build = os.path.abspath(given or os.path.join(ROOT, "build-wheel", "cmake"))
    if not (given and os.path.isfile(os.path.join(build, "CMakeCache.txt"))):
        cmake("-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
              *shlex.split(os.environ.get("CMAKE_ARGS", "")))
    targets = ["specverify"]
    listed = subprocess.run(["cmake", "--build", build, "--target", "help"],
                            capture_output=True, text=True).stdout
    if re.search(r"\bsv_python\b", listed):
        targets.append("sv_python")
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
    cmake("--build", build, "-j", jobs, "--target", *targets)
    shutil.rmtree(stage, ignore_errors=True)
    # the install's RUNPATH (link directories, no build paths) and files
    cmake("--install", build, "--prefix", stage)


class BuildWithCMake(build_py):
    """The package as CMake installs it (its _paths.py written there), and
    the CLI with its plugins in specverify/_bin, where _paths.py and the
    CLI's python_args.c look first."""

    def run(self):
        stage = os.path.join(os.path.abspath(self.build_lib), "..", "specverify-stage")
        build_and_stage(stage)
        dest = os.path.join(self.build_lib, "specverify")
        shutil.rmtree(dest, ignore_errors=True)
        packages = glob.glob(os.path.join(stage, "lib", "python3*", "dist-packages", "specverify"))
        if len(packages) != 1:
            raise RuntimeError("cmake --install put no one specverify package in %s" % stage)
        shutil.copytree(packages[0], dest, ignore=shutil.ignore_patterns("__pycache__"))
        bundled = os.path.join(dest, "_bin")
        os.makedirs(bundled)
        shutil.copy2(os.path.join(stage, "bin", "specverify"), bundled)
        for plugin in glob.glob(os.path.join(stage, "lib", "specverify", "*.so")):
            shutil.copy2(plugin, bundled)


class BinaryDistribution(Distribution):
    """A platform wheel: the package carries compiled programs."""

    def has_ext_modules(self):
        return True


# pip's metadata step (dist_info) needs bdist_wheel too: say it before
if {"dist_info", "bdist_wheel", "editable_wheel"} & set(sys.argv[1:]):
    why = wheel_command_missing()
    if why:
        raise SystemExit(why)

setup(
    version=cmake_version(),
    packages=["specverify", "specverify.adapters"],
    package_dir={"specverify": "python/specverify"},
    cmdclass={"build_py": BuildWithCMake},
    distclass=BinaryDistribution,
    # setuptools' own folders beside CMake's, not in build/ (CI's CMake build)
    options={"build": {"build_base": os.path.join("build-wheel", "setuptools")},
             "egg_info": {"egg_base": "build-wheel"}},
)
