"""Adapters from the call conventions of samplers people ship to specverify's
batch: ``vllm`` (vLLM's rejection_sample) and ``flashinfer`` (FlashInfer's
chain_speculative_sampling). Each is a documented example to edit."""
