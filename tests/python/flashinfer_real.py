"""FlashInfer's own chain_speculative_sampling through the adapter, on the
GPU (imported only where FlashInfer is installed: test_flashinfer_style.py)."""

from flashinfer.sampling import chain_speculative_sampling as chain

import specverify.adapters.flashinfer as fi_adapter

fi_real = fi_adapter.sampler(chain, name="flashinfer_python", device="cuda")
