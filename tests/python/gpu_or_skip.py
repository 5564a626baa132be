"""Runs pytest on the files given where torch sees a CUDA device; else says
why and exits 77, which CTest reports as skipped (not passed)."""

import sys

try:
    import torch
except ImportError:
    print("SKIPPED: %s: no torch (python3-torch)" % sys.argv[1])
    sys.exit(77)
if not torch.cuda.is_available():
    print("SKIPPED: %s: torch %s sees no CUDA device" % (sys.argv[1], torch.__version__))
    sys.exit(77)

import pytest  # noqa: E402

sys.exit(pytest.main(["-q", "-p", "no:cacheprovider"] + sys.argv[2:]))
