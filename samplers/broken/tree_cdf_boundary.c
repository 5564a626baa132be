/* tree_cdf_boundary.c: BROKEN ON PURPOSE (target-only tree verification).
 *
 * Class: a CDF bucket test that is not half-open. The coin is a float32
 * in [0, 1) (torch.rand's), and a child is accepted when coin <= the
 * cumulative target mass of the children so far: at coin = 0 a first child
 * of zero target mass (a draft the target's top-k or top-p removed) is
 * accepted, an impossible token.
 * Where it shipped: SGLang's tree_speculative_sampling_target_only
 * (issue 35771, fixed by PR 35798, 2026): "coin <= prob_acc / threshold_acc".
 * Caught by: the contract check (a token of target probability 0 emitted)
 * on the first occurrence, which is rare: per visit of a node whose first
 * child has zero mass, 2^-24. `mutants --full` runs it on a case where every
 * child has zero mass, for the draws the closed form asks (about 2.3e8). */
#include "sv_registry.h"
#include "rules.h"

static int verify(void *state, const sv_batch *bt)
{
    return sv_tree_target_only_verify(state, bt, SV_TREE_CDF_BOUNDARY);
}

const sv_sampler sv_broken_tree_cdf_boundary = {
    "tree_cdf_boundary", "broken: target-only tree test coin <= cumulative mass, float32 coin",
    SV_MEM_HOST, sv_tree_init, verify, sv_tree_destroy, 0,
    SV_LAYOUT_BIT(SV_LAYOUT_PADDED) | SV_LAYOUT_BIT(SV_LAYOUT_PACKED), SV_RULE_TREE_TARGET_ONLY};
