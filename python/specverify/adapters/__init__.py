"""Adapters from the call conventions of samplers people ship to specverify's
batch: ``vllm`` (vLLM's rejection_sample), ``flashinfer`` (FlashInfer's
chain_speculative_sampling) and ``sglang`` (SGLang's tree kernel,
tree_speculative_sampling_target_only). Each is a documented example to edit."""
