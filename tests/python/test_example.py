"""What a downstream project copies: three lines verify a sampler in pytest.
numpy_chain stands for your sampler (a module-level callable)."""

import specverify
from numpy_chain import numpy_chain


def test_my_sampler_is_lossless():
    specverify.verify(numpy_chain, suite="smoke").assert_passed()
