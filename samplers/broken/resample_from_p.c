/* resample_from_p.c: broken variant — on rejection, resample from p itself.
 *
 * Bug class: wrong residual (the correction step forgotten).
 * Effect: at a position reached with draft q, the emitted token is
 *     out = a + (1 - alpha) p   instead of   a + (1 - alpha) r = p,
 * with a = min(p, q), alpha = sum a, r = max(p - q, 0) / (1 - alpha). Mass
 * moves towards tokens where both p and q are large: out - p = a - alpha p.
 * Zero when q = p or q and p are disjoint (alpha = 0).
 * Where: plausible in any hand-written kernel that reuses the bonus path
 * (plain sampling from p) for the rejection path; a classic first attempt.
 */
#include "chain.h"

static int32_t residual(const sv_step *s, int32_t n, double u)
{
    return sv_chain_draw_p(s, n, u); /* BUG: should be norm(max(p - q, 0)) */
}

static const sv_chain_hooks hooks = {.residual = residual};
SV_CHAIN_SAMPLER(sv_broken_resample_from_p, "resample_from_p",
                 "broken: on rejection draws from p, not the residual", hooks);
