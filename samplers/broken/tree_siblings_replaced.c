/* tree_siblings_replaced.c: BROKEN ON PURPOSE (tree verification).
 *
 * Class: siblings drawn with replacement (independently) but verified as
 * if drawn without: after a rejected sibling the verifier removes its token
 * from the draft row and renormalizes, so the next sibling is tested
 * against a distribution it was not drawn from. The target is then not
 * reproduced: too much mass goes to tokens the drafter favours.
 * Where: no public report names a shipped instance; it is the mix-up the
 * two published sibling laws invite (SpecInfer's multi-step speculative
 * sampling draws siblings independently and keeps the draft row; Jeon et
 * al. 2024's recursive speculative decoding draws them without replacement
 * and updates it), as when one's verifier is paired with the other's drafter.
 * Caught by: fit at depth 1 and the length law given the tree, on any case
 * with a root of two or more children where a rejection is likely. */
#include "sv_registry.h"
#include "rules.h"

static int verify(void *state, const sv_batch *bt)
{
    return sv_tree_verify(state, bt, SV_TREE_SIBLINGS_AS_DISTINCT);
}

const sv_sampler sv_broken_tree_siblings_replaced = {
    "tree_siblings_replaced", "broken: siblings drawn independently, verified as drawn distinct",
    SV_MEM_HOST, sv_tree_init, verify, sv_tree_destroy, 0,
    SV_LAYOUT_BIT(SV_LAYOUT_PADDED) | SV_LAYOUT_BIT(SV_LAYOUT_PACKED), SV_RULE_TREE};
