/* residual_swapped.c: broken variant — residual weights max(q - p, 0).
 *
 * Bug class: swapped operands (target and draft confused).
 * Effect: the residual is r' = max(q - p, 0) / (1 - alpha) (same mass, since
 * sum max(q - p, 0) = 1 - alpha too), so per position
 *     out = a + (1 - alpha) r' = a + max(q - p, 0) = q:
 * the emitted tokens follow the draft, not the target. A one-hot drafter
 * always re-emits the rejected draft x (weight 1 - p(x)).
 * Where: plausible wherever p/q naming flips between papers (Leviathan et
 * al. write p for the target, Chen et al. for the draft) and kernel code.
 */
#include "chain.h"

static int32_t residual(const sv_step *s, int32_t n, double u)
{
    const float *p = sv_chain_p_row(s, n);
    for (int32_t i = 0; i < s->V; i++) {
        double w = (double)sv_chain_q(s, n, i) - (double)p[i]; /* BUG: q - p */
        s->ws->row[i] = w > 0.0 ? (float)w : 0.0f;
    }
    return sv_chain_draw_or_p(s, n, s->ws->row, u);
}

static const sv_chain_hooks hooks = {.residual = residual};
SV_CHAIN_SAMPLER(sv_broken_residual_swapped, "residual_swapped",
                 "broken: residual from max(q - p, 0)", hooks);
