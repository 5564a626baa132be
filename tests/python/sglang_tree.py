"""A torch tree sampler written the way SGLang's target-only tree kernel
works (its public signature and rule; our own code, vectorised over the
batch where the kernel runs a block per request), and the same with a
planted sibling bug. Both go through specverify.adapters.sglang.

The rule: from the root, with node u's coin c (uniform_samples[b][u]),
walk u's children in sibling order adding each child's target mass
p_u(x) to an accumulator; the first child whose running sum passes c is
accepted (the accumulator starts again from 0 at it, with its own coin),
a child passed over has its target mass marked in draft_probs. When no
child passes, the token comes from relu(p_u - draft_probs_u), the target
less the children passed over, with the final coin. Together: one draw
from p_u by a CDF that lists the children first. The test is strict
(c < sum): a child of zero mass is never accepted (SGLang's <= accepted
one on a coin of exactly 0, issue 35771).

tree_sampling_acc_not_reset keeps the accumulator across an acceptance:
at depth 2 and on the first child is tested against its parent's running
sum plus its own mass, so it is accepted far more often than p says.
"""

import torch

import specverify.adapters.sglang as sglang_adapter


def _tree_sampling(predicts, accept_index, accept_token_num, candidates, retrive_index,
                   retrive_next_token, retrive_next_sibling, uniform_samples,
                   uniform_samples_for_final_sampling, target_probs, draft_probs,
                   reset_after_accept):
    bs, N = candidates.shape
    S = accept_index.shape[1]
    rows = torch.arange(bs)
    cur = torch.zeros(bs, dtype=torch.int64)            # the last accepted node (its row)
    coin = uniform_samples[:, 0].clone()
    acc = torch.zeros(bs, dtype=torch.float32)
    accepted = torch.zeros(bs, dtype=torch.int64)
    last_row = retrive_index[:, 0].clone()
    accept_index[:, 0] = last_row.to(torch.int32)
    going = torch.ones(bs, dtype=torch.bool)            # still descending
    for _ in range(1, S):
        child = torch.where(going, retrive_next_token[rows, cur], torch.full_like(cur, -1))
        took = torch.zeros(bs, dtype=torch.bool)
        if reset_after_accept:
            acc = torch.zeros(bs, dtype=torch.float32)
        while True:  # the sibling loop, every request at its own sibling
            looking = child >= 0
            if not looking.any():
                break
            c = child.clamp(min=0)
            token = candidates[rows, c]
            mass = target_probs[rows, cur, token]
            acc = torch.where(looking, acc + mass, acc)
            hit = looking & (coin < acc)
            miss = looking & ~hit
            # passed over: its mass leaves the final draw's row
            draft_probs[rows[miss], cur[miss], token[miss]] = mass[miss]
            if hit.any():
                b = rows[hit]
                predicts[last_row[b]] = token[hit].to(predicts.dtype)
                accepted[b] += 1
                accept_index[b, accepted[b]] = retrive_index[b, c[hit]].to(torch.int32)
                last_row[b] = retrive_index[b, c[hit]]
                cur[b] = c[hit]
                coin[b] = uniform_samples[b, c[hit]]
                took |= hit
            child = torch.where(miss, retrive_next_sibling[rows, c], torch.full_like(child, -1))
        going = took
        if not going.any():
            break
    accept_token_num[:] = accepted.to(accept_token_num.dtype)
    residual = (target_probs[rows, cur] - draft_probs[rows, cur]).clamp(min=0).to(torch.float64)
    run = torch.cumsum(residual, dim=1)
    u = uniform_samples_for_final_sampling.to(torch.float64) * run[:, -1]
    pick = torch.searchsorted(run, u[:, None], right=True)[:, 0]
    # rounding may leave u at the very top: the last token of mass
    top = (residual > 0).to(torch.int64).cumsum(dim=1).argmax(dim=1)
    pick = torch.minimum(pick, top)
    predicts[last_row] = pick.to(predicts.dtype)


def tree_speculative_sampling_target_only(predicts, accept_index, accept_token_num, candidates,
                                          retrive_index, retrive_next_token,
                                          retrive_next_sibling, uniform_samples,
                                          uniform_samples_for_final_sampling, target_probs,
                                          draft_probs, threshold_single=1.0, threshold_acc=1.0,
                                          deterministic=True):
    """SGLang-style target-only tree verification in torch (exact thresholds)."""
    _tree_sampling(predicts, accept_index, accept_token_num, candidates, retrive_index,
                   retrive_next_token, retrive_next_sibling, uniform_samples,
                   uniform_samples_for_final_sampling, target_probs, draft_probs, True)


def tree_sampling_acc_not_reset(predicts, accept_index, accept_token_num, candidates,
                                retrive_index, retrive_next_token, retrive_next_sibling,
                                uniform_samples, uniform_samples_for_final_sampling,
                                target_probs, draft_probs, threshold_single=1.0,
                                threshold_acc=1.0, deterministic=True):
    """The same with the sibling accumulator kept across an acceptance (BUG)."""
    _tree_sampling(predicts, accept_index, accept_token_num, candidates, retrive_index,
                   retrive_next_token, retrive_next_sibling, uniform_samples,
                   uniform_samples_for_final_sampling, target_probs, draft_probs, False)


sglang_tree = sglang_adapter.sampler(tree_speculative_sampling_target_only, name="sglang_tree",
                                     device="cpu")
sglang_tree_acc_not_reset = sglang_adapter.sampler(tree_sampling_acc_not_reset,
                                                   name="sglang_tree_acc_not_reset",
                                                   device="cpu")
