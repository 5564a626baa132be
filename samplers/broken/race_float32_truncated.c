/* race_float32_truncated.c: broken variant — an exponential race whose
 * exponentials come from float32 uniforms.
 *
 * Bug class: the float32-truncated exponential race.
 * Effect: the final token (residual or bonus) is ref_race's race,
 * argmin_i E_i / w_i over w_i > 0 with the same top words, but each
 * E_i = -log(u_i) takes u_i = sv_u01_float(top_i), 23 bits centred in
 * their cell: u_i < 1 - 2^-24, so E_i >= 2^-24 (about), and near 0 E_i
 * takes only the values (2j - 1) 2^-24, each with probability 2^-23. A
 * token of probability pi = w_i / sum(w) wins when its time beats the rest,
 * about Exp(1): with a = 2^-24 / pi,
 *     P(win) = sum_j 2^-23 exp(-(2j - 1) 2^-24 / pi) = pi a / sinh(a),
 * so tokens far below 2^-24 (almost) never win (a = 4, pi = 2^-26: 15% of
 * their mass; a = 8: 0.5%) and their mass goes to the rest, in proportion;
 * for small a a token keeps 1 - a^2 / 6 of its mass (99.93% at 2^-20).
 * The harness sees it only where enough mass lies below 2^-24 and the
 * draws reach it: the tinytail case (docs/list.md), sized by the power
 * formula (harness/stats/predict.c models this closed form).
 * Where: Gumbel-max / exponential-race sampling with float32 noise, as
 * q.exponential_(); argmax(probs / q) in PyTorch, whose float32
 * exponentials bottom out at 2^-24 (vLLM PR 43150 measured 0 hits where
 * 32.76 were expected over 262144 tail tokens, and added float64 noise;
 * vLLM PR 45996 draws log1p(-u) for the same reason).
 */
#include <math.h>
#include "chain.h"
#include "sv_philox.h"
#include "sv_race_stream.h"

/* Token i's weight max(p_n(i) - q_n(i), 0) in double (use_q = 0: p_n(i)). */
static double weight(const sv_step *s, int32_t n, int use_q, int32_t i)
{
    double w = (double)sv_chain_p_row(s, n)[i] - (use_q ? (double)sv_chain_q(s, n, i) : 0.0);
    return w > 0.0 ? w : 0.0;
}

enum { TILE = 64 }; /* tokens whose Philox words are drawn together, as ref_race does */

/* The race over w = max(p_n - q_n, 0) (use_q = 0: p_n); -1 if all w are 0.
 * A token with 1 - u >= best * w cannot win (-log u >= 1 - u): no logarithm. */
static int32_t race(const sv_step *s, int32_t n, int use_q)
{
    const sv_race_stream rs = sv_race_stream_of(s->seed, s->index, (uint32_t)n);
    int32_t best = -1;
    double best_time = INFINITY;
    uint32_t top[TILE];
    for (int32_t base = 0; base < s->V; base += TILE) {
        const int32_t m = s->V - base < TILE ? s->V - base : TILE;
        for (int32_t j = 0; j < TILE / 4; j++) { /* a loop the compiler vectorizes */
            philox4x32_ctr_t r = sv_race_stream_tops(&rs, (uint32_t)(base / 4 + j));
            for (int32_t w = 0; w < 4; w++)
                top[4 * j + w] = r.v[w];
        }
        for (int32_t j = 0; j < m; j++) {
            const double w = weight(s, n, use_q, base + j);
            const double u = (double)sv_u01_float(top[j]); /* BUG: 23 bits, not 52 */
            if (!(w > 0.0) || 1.0 - u >= best_time * w)
                continue;
            const double t = -log(u) / w;
            if (t < best_time) { /* strict: ties go to the lowest index */
                best_time = t;
                best = base + j;
            }
        }
    }
    return best;
}

/* The final token after n accepted drafts: the race over the residual
 * (n < K), over p_n itself when that is empty or n = K (the bonus row). The
 * race has its own uniforms, one per token: the chain's u goes unused. */
static int32_t final_race(const sv_step *s, int32_t n)
{
    const int32_t t = n < s->K ? race(s, n, 1) : -1;
    return t >= 0 ? t : race(s, n, 0);
}

static int32_t residual(const sv_step *s, int32_t n, double u)
{
    (void)u;
    return final_race(s, n);
}

static int32_t bonus(const sv_step *s, double u)
{
    (void)u;
    return final_race(s, s->K);
}

static const sv_chain_hooks hooks = {.residual = residual, .bonus = bonus};
SV_CHAIN_SAMPLER(sv_broken_race_float32_truncated, "race_float32_truncated",
                 "broken: exponential race with float32 uniforms (E >= 2^-24)", hooks);
