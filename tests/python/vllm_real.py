"""vLLM v1's own ``rejection_sample`` through the adapter, on the GPU, from
the vLLM source in $SV_VLLM_DIR (the folder holding its ``vllm`` package:
a checkout, or ci/gpu-pack's copy of its Python files). vLLM's Triton
kernels need torch 2 with CUDA and Triton in the interpreter that runs it.
Imported only by tests/gpu/vllm_gpu.sh; nothing of vLLM's is copied here."""

import os
import sys

sys.path.insert(0, os.environ["SV_VLLM_DIR"])

from vllm.v1.sample.rejection_sampler import rejection_sample  # noqa: E402

import specverify.adapters.vllm as vllm_adapter  # noqa: E402

vllm_real = vllm_adapter.sampler(rejection_sample, name="vllm_rejection_sample",
                                 device="cuda")
