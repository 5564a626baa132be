"""What a downstream project copies (README.md's first screen): a sampler
verified in pytest, whole or a test per case through the pytest plugin.
numpy_chain stands for your sampler (a module-level callable); the smoke
suite stands for README's ci, whose draws take a numpy sampler an hour."""

import pytest

import specverify
from numpy_chain import numpy_chain


def test_my_sampler_is_lossless():
    specverify.verify(numpy_chain, suite="smoke").assert_passed()


@pytest.mark.parametrize("case", specverify.cases("smoke"))  # a test per case: -k tinytail
def test_my_sampler_is_lossless_per_case(specverify_verify, case):
    specverify_verify(numpy_chain, case)
