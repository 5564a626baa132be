"""The vLLM-style torch sampler on a GPU (device="cuda": the batch's tensors
copied to the device, its tokens taken back from there): the smoke suite
and the ci suite's cases at 20,000 draws (test_vllm_style.py says what that
N detects), seed 1, family-wise false-alarm rate 1e-6. Skipped, saying why,
where torch sees no CUDA device (CI; the lent GPU machines run it)."""

import pytest

import specverify

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("SKIPPED: torch %s sees no CUDA device (torch.cuda.is_available() is False)"
                % torch.__version__, allow_module_level=True)

from vllm_style import vllm_cuda  # noqa: E402


def test_vllm_style_on_the_gpu_passes():
    specverify.verify(vllm_cuda, suite="smoke", echo=False).assert_passed()
    specverify.verify(vllm_cuda, suite="ci", draws=20_000, echo=False).assert_passed()
