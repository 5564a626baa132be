"""pytest set-up for specverify's own Python tests: the samplers beside
these files importable, and the specverify package the build's (CTest gives
SV_BUILD_PYTHON), else an installed one (pip install ., ci/venv), else
build/python's."""

import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
BUILD = os.environ.get("SV_BUILD_PYTHON")
if not BUILD and importlib.util.find_spec("specverify") is None:
    BUILD = os.path.join(HERE, "..", "..", "build", "python")
if BUILD:
    sys.path.insert(0, os.path.abspath(BUILD))
