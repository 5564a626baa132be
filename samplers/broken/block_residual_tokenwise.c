/* block_residual_tokenwise.c: BROKEN ON PURPOSE (block verification).
 *
 * Class: block verification with the token-wise rule's residual. The
 * accepted count n is the block rule's (the last i whose eta_i < h_i), but
 * the last token is drawn from the chain's norm(max(p_{n+1} - q_{n+1}, 0))
 * instead of norm(max(w_n p_{n+1} - q_{n+1}, 0)): after a block whose joint
 * weight w_n < 1, the target's own mass at the next position is
 * under-weighted.
 * Where it shipped: vllm-ascend issue 7807 (2026): its block verify reused
 * the token-wise acceptance criteria and drew the recovered token from the
 * same distribution whether block verify was on or not (fixed in PR 7808).
 * Caught by: fit at the positions after a block with w_n < 1 (position 2
 * and on); the first position's residual is the chain's, rightly. */
#include "sv_registry.h"
#include "rules.h"

static int verify(void *state, const sv_batch *bt)
{
    return sv_block_verify(state, bt, SV_BLOCK_TOKENWISE_RESIDUAL);
}

const sv_sampler sv_broken_block_residual_tokenwise = {
    "block_residual_tokenwise", "broken: block verification with the chain's residual",
    SV_MEM_HOST, sv_rule_init, verify, sv_rule_destroy, 0,
    SV_LAYOUT_BIT(SV_LAYOUT_PADDED) | SV_LAYOUT_BIT(SV_LAYOUT_PACKED), SV_RULE_BLOCK};
