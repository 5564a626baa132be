/* exact_match_argmax.c: BROKEN ON PURPOSE (exact-match verification).
 *
 * Class: a draft-probability-free verifier that compares each draft with
 * the target's argmax at the draft positions, for a request that samples;
 * only the bonus token honours the request's temperature. Every emitted
 * draft position is the target's mode, not a draw from it.
 * Where it shipped: ROCm/ATOM PR 2318 (2026), a mixed batch verified with
 * argmax at every position while only the bonus honoured temperature; the
 * same condition (every position must sample the target with the request's
 * own parameters and fresh noise) is what mlx-swift-lm PR 459 (2026) fixed.
 * Caught by: fit at position 1 on any case whose p_1 is not one-hot (y_1
 * is argmax p_1 or, when that matched, the draft: a point mass). */
#include "sv_registry.h"
#include "rules.h"

static int verify(void *state, const sv_batch *bt)
{
    return sv_exact_verify(state, bt, SV_EXACT_ARGMAX_AT_DRAFTS);
}

const sv_sampler sv_broken_exact_match_argmax = {
    "exact_match_argmax", "broken: exact match against the target's argmax at draft positions",
    SV_MEM_HOST, sv_rule_init, verify, sv_rule_destroy, 0,
    SV_LAYOUT_BIT(SV_LAYOUT_PADDED) | SV_LAYOUT_BIT(SV_LAYOUT_PACKED), SV_RULE_EXACT_MATCH};
