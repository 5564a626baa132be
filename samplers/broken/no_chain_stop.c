/* no_chain_stop.c: broken variant — every draft is judged, the chain never stops.
 *
 * Bug class: missing early exit (a data-parallel "judge all positions" kernel
 * that forgets the prefix condition).
 * Effect: every position k gets y_k = x_k if its own test passes, else a
 * residual draw; y_K is the bonus from p_{K+1}; all K+1 tokens are written
 * (no -1 padding) and n = number of passed tests. Each y_k alone is
 * distributed as p_k (a + (1 - alpha) r = p), but n is a sum of independent
 * Bernoulli(alpha_k), not the chain's P(n >= j) = alpha_1 ... alpha_j, and
 * tokens stand where -1 belongs with probability 1 - prod alpha_k (the
 * contract check). Used as K+1 tokens per step, the stream is wrong too:
 * y_{k+1} after a rejection at k was drafted from a prefix that was replaced.
 * Where: plausible in batched GPU kernels where one thread judges each
 * position and the "first rejection" reduction (a min over positions) is
 * missing or applied only to the count.
 */
#include "chain.h"
#include "sv_philox.h"

static int32_t sequence(const sv_step *s)
{
    int32_t passed = 0;
    for (int32_t k = 0; k < s->K; k++) {
        float q = s->Q ? s->Q[(int64_t)k * s->V + s->x[k]] : 1.0f;
        if (sv_chain_accept(s, k, sv_chain_p_row(s, k)[s->x[k]], q)) {
            s->y[k] = s->x[k];
            passed++;
        } else { /* BUG: should stop here and pad with -1 */
            s->y[k] = sv_chain_residual(s, k, sv_chain_uniform(s, k, SV_PURPOSE_FINAL));
            if (s->y[k] < 0)
                return -1;
        }
    }
    s->y[s->K] = sv_chain_bonus(s, sv_chain_uniform(s, s->K, SV_PURPOSE_FINAL));
    return s->y[s->K] < 0 ? -1 : passed;
}

static const sv_chain_hooks hooks = {.sequence = sequence};
SV_CHAIN_SAMPLER(sv_broken_no_chain_stop, "no_chain_stop",
                 "broken: judges every draft, never stops at the first rejection", hooks);
