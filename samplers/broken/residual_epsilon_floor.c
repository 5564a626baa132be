/* residual_epsilon_floor.c: broken variant — residual weights max(p - q, 1e-6).
 *
 * Bug class: a numerical "safety" clamp that changes the distribution.
 * Effect: the residual is r' = max(p - q, eps) / Z with eps = 1e-6 and
 * Z = sum_i max(p_i - q_i, eps); per position out = a + (1 - alpha) r'.
 * Every token, including those with p = 0 (caught by the contract check)
 * and the drafted token of a one-hot drafter (weight 1e-6), gets at least
 * (1 - alpha) eps / Z: about V eps / (1 - alpha) of the residual mass moves
 * onto tokens whose residual weight was 0 (2e-3 at V = 1000, alpha = 0.5).
 * Where: plausible in kernels that clamp before a division or a log (to
 * avoid an all-zero residual or log(0) in a Gumbel race).
 */
#include "chain.h"

static int32_t residual(const sv_step *s, int32_t n, double u)
{
    const float *p = sv_chain_p_row(s, n);
    for (int32_t i = 0; i < s->V; i++) {
        double w = (double)p[i] - (double)sv_chain_q(s, n, i);
        s->ws->row[i] = (float)(w > 1e-6 ? w : 1e-6); /* BUG: floor instead of 0 */
    }
    return sv_chain_draw_or_p(s, n, s->ws->row, u);
}

static const sv_chain_hooks hooks = {.residual = residual};
SV_CHAIN_SAMPLER(sv_broken_residual_epsilon_floor, "residual_epsilon_floor",
                 "broken: residual weights floored at 1e-6", hooks);
