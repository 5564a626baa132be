"""Adapter: a function with the signature of SGLang's
``sgl_kernel.tree_speculative_sampling_target_only`` as a specverify tree
sampler (rule "tree_target_only"). Written from SGLang's public signature
(sgl-kernel's speculative.py and speculative_sampling.cuh), no code copied;
edit it to match the version you test.

    tree_speculative_sampling_target_only(
        predicts,              # [bs * N] int32, written: a token per tree row
        accept_index,          # [bs][S] int32, written: the accepted path's rows
        accept_token_num,      # [bs] int32, written: drafts accepted
        candidates,            # [bs][N] int64: node tokens, node 0 the root
        retrive_index,         # [bs][N] int64: node -> its row of predicts
        retrive_next_token,    # [bs][N] int64: first child, -1 for none
        retrive_next_sibling,  # [bs][N] int64: next sibling, -1 for none
        uniform_samples,                     # [bs][N] float32: node i's coin
        uniform_samples_for_final_sampling,  # [bs] float32
        target_probs,          # [bs][N][V] float32: row i the target after node i
        draft_probs,           # [bs][N][V] float32, zeros (older versions only)
        threshold_single=1.0, threshold_acc=1.0, deterministic=True)

N = K + 1 (the root and up to K nodes) and S = K + 1 (a path of up to K
drafts after the root), so no tree of the batch is cut. Newer sgl-kernels
allocate ``draft_probs`` themselves: it is passed only to a function whose
signature names it. Thresholds 1.0 are the exact rule.

From the batch: candidates[b][1 + k] = draft_tokens of node k+1, the
children lists from ``batch.parent_matrix()`` (nodes come after their
parents and siblings in drafting order, so one pass links them),
retrive_index[b][i] = b * N + i, target_probs the padded target rows
(those past a sequence's nodes, NaN in the packed layout, are never
read): ``batch.sglang_view()``. The coins are the harness's uniforms on
torch.rand's float32 grid (``like="torch.float32"``: 0 included, as
SGLang's caller draws them), node i's at (position i, PURPOSE_ACCEPT) and
the final one at (0, PURPOSE_FINAL): a sequence's numbers depend only on
its seed and index.

Back to the contract: n = accept_token_num[b]; y_k = predicts[accept_index[b][k - 1]]
for k = 1..n+1 (the kernel writes each accepted node's token at its
parent's row and the final draw at the last accepted row); the path is
accept_index[b][1..n] - b * N.

    import sgl_kernel
    import specverify.adapters.sglang as sg
    sgl_tree = sg.sampler(sgl_kernel.tree_speculative_sampling_target_only)  # module level

then ``specverify.verify(sgl_tree, suite="smoke", siblings="distinct")``:
SGLang's drafter takes the top-k children of a node, distinct tokens; with
iid siblings a repeated token's mass is counted once per copy by a kernel
that sums over siblings.
"""

import inspect

import specverify
from specverify._views import tree_links  # noqa: F401 (the adapter's, tests import it here)


def contract_outputs(args, K):
    """(tokens, accepted, path) [B][K+1], [B], [B][K+1] from the kernel's
    outputs in args, as a tree sampler returns them."""
    import torch

    n = args["accept_token_num"].to(torch.int64)
    rows = args["accept_index"].to(torch.int64)
    B, N = rows.shape
    dev = rows.device
    slot = torch.arange(N, device=dev)[None, :]
    emitted = slot <= n[:, None]
    y = args["predicts"].to(torch.int64)[rows.clamp(0, B * N - 1)]
    tokens = torch.where(emitted, y, torch.full_like(y, -1))
    nodes = rows[:, 1:] - torch.arange(B, device=dev)[:, None] * N
    path = torch.full((B, K + 1), -1, dtype=torch.int64, device=dev)
    path[:, :N - 1] = torch.where(slot[:, 1:] <= n[:, None], nodes, torch.full_like(nodes, -1))
    return tokens.contiguous(), n, path


def sampler(tree_speculative_sampling_target_only, name=None, device="cuda", max_batch=None,
            max_bytes=None):
    """The specverify sampler that calls the kernel the SGLang way. Bind it
    to a module-level name: that name is how the sampler's own process
    finds it."""
    kernel = tree_speculative_sampling_target_only
    takes_draft = "draft_probs" in inspect.signature(kernel).parameters

    def call(batch):
        args = batch.sglang_view()
        if not takes_draft:
            del args["draft_probs"]
        kernel(**args, threshold_single=1.0, threshold_acc=1.0, deterministic=True)
        return contract_outputs(args, batch.K)

    # found, by the sampler's own process, under the name it is bound to in the
    # module that made it (specverify's _run.sampler_spec)
    call.__name__ = call.__qualname__ = name or kernel.__name__
    call.__module__ = kernel.__module__
    call.__doc__ = "SGLang-style tree_speculative_sampling_target_only: %s" % (
        (kernel.__doc__ or kernel.__name__).strip().split("\n")[0])
    return specverify.sampler(call, name=name, tensors="torch", layouts=("padded", "packed"),
                              device=device, max_batch=max_batch, max_bytes=max_bytes,
                              rule="tree_target_only")
