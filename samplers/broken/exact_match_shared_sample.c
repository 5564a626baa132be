/* exact_match_shared_sample.c: BROKEN ON PURPOSE (exact-match verification).
 *
 * Class: one target sample's noise reused across positions. Each position's
 * draw y_k = F_k^{-1}(u) uses the same uniform u, so each y_k alone is
 * distributed as p_k, but reaching position k + 1 means y_1 .. y_k matched
 * the drafts, which pins u to an interval: the next draw comes from a slice
 * of p_{k+1}, not all of it.
 * Where it shipped: the exact-match verifiers that draw "one target sample"
 * per step and read every position's token from it (the condition ROCm/ATOM
 * PR 2318 and mlx-swift-lm PR 459, 2026, state: fresh noise per position).
 * Caught by: fit at positions 2 and on, and the accepted length. */
#include "sv_registry.h"
#include "rules.h"

static int verify(void *state, const sv_batch *bt)
{
    return sv_exact_verify(state, bt, SV_EXACT_ONE_SAMPLE);
}

const sv_sampler sv_broken_exact_match_shared_sample = {
    "exact_match_shared_sample", "broken: exact match, one uniform for every position's draw",
    SV_MEM_HOST, sv_rule_init, verify, sv_rule_destroy, 0,
    SV_LAYOUT_BIT(SV_LAYOUT_PADDED) | SV_LAYOUT_BIT(SV_LAYOUT_PACKED), SV_RULE_EXACT_MATCH};
