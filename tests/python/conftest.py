"""pytest set-up for specverify's own Python tests: the package and the
samplers beside these files importable, the CLI the build's."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# CTest passes the build's python/ folder; by hand, build/ is the default
BUILD = os.environ.get("SV_BUILD_PYTHON") or os.path.join(HERE, "..", "..", "build", "python")
sys.path.insert(0, os.path.abspath(BUILD))
