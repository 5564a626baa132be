"""specverify.adapters.flashinfer: a sampler with FlashInfer's
chain_speculative_sampling signature (tests/python/flashinfer_style.py, one
K and one generator a call) passes the smoke suite in mixed batches, with
no seeded requests (one call per number of drafts) and, at 20,000 draws a
case, with the mixed seeding (a seeded request is a call of its own, so
slow), seed 1, family-wise false-alarm rate 1e-6. FlashInfer's own function,
where it is installed with a GPU, the same way; else skipped, saying why."""

import pytest

import specverify

torch = pytest.importorskip("torch")

from flashinfer_style import fi_style  # noqa: E402


def test_flashinfer_style_passes_smoke():
    specverify.verify(fi_style, suite="smoke", seeding="none", echo=False).assert_passed()
    specverify.verify(fi_style, suite="smoke", draws=20_000, echo=False).assert_passed()


def test_flashinfer_itself():
    sampling = pytest.importorskip("flashinfer.sampling",
                                   reason="FlashInfer's Python package is not installed")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    import flashinfer_real

    assert flashinfer_real.chain is sampling.chain_speculative_sampling
    specverify.verify(flashinfer_real.fi_real, suite="ci", echo=False).assert_passed()
