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


def _plugin_installed():
    """True when an installed specverify declares the pytest plugin (its
    entry point loads it; naming it here too would register it twice)."""
    from importlib.metadata import entry_points
    try:
        found = entry_points(group="pytest11")
    except TypeError:  # Python 3.9's entry_points() takes no group
        found = entry_points().get("pytest11", [])
    return any(ep.value == "specverify.pytest_plugin" for ep in found)


# the build tree's package is not installed: its plugin is loaded here
pytest_plugins = [] if _plugin_installed() else ["specverify.pytest_plugin"]
