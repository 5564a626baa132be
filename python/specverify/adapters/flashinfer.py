"""Adapter: a function with the signature of FlashInfer's
``flashinfer.sampling.chain_speculative_sampling`` as a specverify sampler.
Written from FlashInfer's public signature (v0.6.17), no code copied; edit
it to match the version you test.

    chain_speculative_sampling(draft_probs,       # [B][K][V] float32
                               draft_token_ids,   # [B][K] int32
                               target_probs,      # [B][K+1][V] float32
                               maybe_output_accepted_token_num=None,       # [B] int32, added to
                               maybe_output_emitted_draft_token_num=None,  # [B] int32, added to
                               deterministic=True, generator=None, seed=None, offset=None)
    -> output_token_ids [B][K+1] int32, -1 after each sequence's last

FlashInfer takes one K per call and one random stream per call (a generator,
or a Philox seed and offset), so the adapter calls it once per number of
drafts in the batch for the unseeded sequences, and once per seeded
sequence with that sequence's own generator (a seeded request's tokens must
not depend on its neighbours). A one-hot drafter's rows are made dense. The calls are ``batch.flashinfer_view()``'s.

    import flashinfer.sampling
    import specverify.adapters.flashinfer as fi
    fi_sampler = fi.sampler(flashinfer.sampling.chain_speculative_sampling)  # module level

then ``specverify.verify(fi_sampler)``; for the kernel alone, without
PyTorch, tools/flashinfer_plugin.sh builds it into a C plugin.
"""

import specverify


def sampler(chain_speculative_sampling, name=None, device="cuda", max_batch=None,
            max_bytes=None):
    """The specverify sampler that calls ``chain_speculative_sampling`` the
    FlashInfer way (probabilities, padded rows). Bind it to a module-level
    name: that name is how the sampler's own process finds it."""
    import torch

    def call(batch):
        out = torch.full((batch.B, batch.K + 1), -1, dtype=torch.int32,
                         device=batch.target.device)
        for c in batch.flashinfer_view():
            y = chain_speculative_sampling(c.draft_probs, c.draft_token_ids, c.target_probs,
                                           deterministic=True, generator=c.generator)
            out[c.seqs, :y.shape[1]] = y.to(torch.int32)
        return out

    # found, by the sampler's own process, under the name it is bound to in the
    # module that made it (specverify's _run.sampler_spec)
    call.__name__ = call.__qualname__ = name or chain_speculative_sampling.__name__
    call.__module__ = chain_speculative_sampling.__module__
    call.__doc__ = "FlashInfer-style chain_speculative_sampling: %s" % (
        (chain_speculative_sampling.__doc__ or chain_speculative_sampling.__name__)
        .strip().split("\n")[0])
    return specverify.sampler(call, name=name, tensors="torch", layouts=("padded",),
                              device=device, max_batch=max_batch, max_bytes=max_bytes)
