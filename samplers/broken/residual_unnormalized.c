/* residual_unnormalized.c: broken variant — the residual CDF is walked with
 * target u, not u * sum w.
 *
 * Bug class: missing normalization.
 * Effect: with w = max(p - q, 0) (sum w = 1 - alpha), a rejection emits token
 * i with probability w_i, and the last token of positive weight, L, also
 * takes the remainder 1 - sum w = alpha. Per position:
 *     out = a + (1 - alpha) w + (1 - alpha) alpha e_L,
 * i.e. out = p - (1 - alpha) r alpha + (1 - alpha) alpha e_L: the residual
 * is shrunk by alpha and the shortfall piles on L.
 * Where: plausible in kernels that take probabilities as already normalized
 * and skip the sum (a reduction saved), or that compare the uniform against
 * an unnormalized prefix sum in a warp scan.
 */
#include "chain.h"

static int32_t residual(const sv_step *s, int32_t n, double u)
{
    const float *p = sv_chain_p_row(s, n);
    double cumulative = 0.0;
    int32_t last = -1;
    for (int32_t i = 0; i < s->V; i++) {
        double w = (double)p[i] - (double)sv_chain_q(s, n, i);
        if (!(w > 0.0))
            continue;
        last = i;
        cumulative += w;
        if (u < cumulative) /* BUG: should be u * sum(w) < cumulative */
            return i;
    }
    return last >= 0 ? last : sv_chain_draw_p(s, n, u); /* empty residual as ref */
}

static const sv_chain_hooks hooks = {.residual = residual};
SV_CHAIN_SAMPLER(sv_broken_residual_unnormalized, "residual_unnormalized",
                 "broken: residual CDF walked with u, not u * sum(w)", hooks);
