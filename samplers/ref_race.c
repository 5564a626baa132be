/* ref_race.c: a correct control — ref with the final token drawn by an
 * exponential race instead of an inverse CDF.
 *
 * Acceptance is ref's (ACCEPT at (index, k, lane 0), accept iff u q < p in
 * double). The final token after n accepted drafts (residual for n < K,
 * bonus from p_{K+1} for n = K) is
 *     argmin_i E_i / w_i over w_i > 0,  E_i = -log(u_i),  ties: lowest i,
 * with w_i = max(p_{n+1}(i) - q_{n+1}(i), 0) computed in double from the float
 * rows (one-hot drafter: p_{n+1} with x_{n+1} set to 0; bonus: w = p_{K+1}),
 * and, for the CUDA port, exactly these random numbers:
 *     u_i = sv_race_uniform(seed, index, n, i) = sv_u01_double(top, low),
 * top = word i mod 4 of Philox4x32-10 at (key = seed, counter = {index lo,
 * index hi, FINAL << 16 | n, i / 4}), low = the same word of the block at
 * purpose RACE_LOW: a 52-bit double centred in its cell. The pruning below
 * looks at top alone, so a Philox call serves four tokens, and the low
 * words are drawn only for the few tokens timed exactly.
 * An empty residual (p == q up to rounding) races over p_{n+1}
 * itself with the same u_i. Correct because P(argmin E_i / w_i = j) =
 * w_j / sum w for independent Exp(1) E_i: the race is a different, equally
 * exact way to draw from norm(w).
 */
#include <math.h>
#include "chain.h"
#include "sv_philox.h"
#include "sv_race_bound.h"
#include "sv_race_stream.h"

enum { TILE = 64 }; /* tokens whose numbers are drawn together */

/* The top words of the uniforms of tokens base .. base + TILE - 1 (base a
 * multiple of 4): all that sv_race_bound.h needs. Philox, not the logarithm,
 * is the race's cost, so its blocks come from a loop the compiler
 * vectorizes: independent counters, plain 32-bit stores. */
static void tile_tops(const sv_race_stream *rs, int32_t base, uint32_t *top)
{
    for (size_t j = 0; j < TILE / 4; j++) {
        philox4x32_ctr_t r = sv_race_stream_tops(rs, (uint32_t)(base / 4) + (uint32_t)j);
        for (size_t w = 0; w < 4; w++)
            top[4 * j + w] = r.v[w];
    }
}

/* Token i's exact weight w = max(p_n(i) - q_n(i), 0) in double from the float
 * rows (use_q = 0: w = p_n(i)). */
static double weight(const sv_step *s, int32_t n, int use_q, int32_t i)
{
    double w = (double)sv_chain_p_row(s, n)[i] - (use_q ? (double)sv_chain_q(s, n, i) : 0.0);
    return w > 0.0 ? w : 0.0;
}

/* The float weights of tokens base .. base + m - 1 (sv_race_weight_f: > 0
 * exactly where the double weight is); 1 if any is positive. */
static int tile_weights(const sv_step *s, int32_t n, int use_q, int32_t base, int32_t m,
                        float *wf)
{
    const float *p = sv_chain_p_row(s, n);
    int any = 0;
    for (int32_t j = 0; j < m; j++) {
        wf[j] = sv_race_weight_f(p[base + j], use_q ? sv_chain_q(s, n, base + j) : 0.0f);
        any |= wf[j] > 0.0f;
    }
    return any;
}

/* The race over w = max(p_n - q_n, 0) (use_q = 0: w = p_n); -1 if all w are 0.
 * Tokens that sv_race_may_win rejects against the reach of `bound`, the
 * lowest ceiling so far, are certainly slower than some token already
 * timed: they need no logarithm (most tokens, once the bound nears
 * 1 / sum(w)), and the result is the unpruned race's, bit for bit.
 * cuda_fused prunes with the same functions. */
static int32_t race(const sv_step *s, int32_t n, int use_q)
{
    int32_t best = -1;
    double best_time = INFINITY;
    float bound = INFINITY, reach = INFINITY; /* reach = sv_race_reach(bound) */
    /* the row's Philox blocks, with what they share computed once */
    const sv_race_stream rs = sv_race_stream_of(s->seed, s->index, (uint32_t)n);
    float wf[TILE];
    uint32_t top[TILE];
    unsigned char candidate[TILE];
    philox4x32_ctr_t low = {{0, 0, 0, 0}}; /* the low words of quad `low_quad` */
    int32_t low_quad = -1;
    for (int32_t base = 0; base < s->V; base += TILE) {
        int32_t m = s->V - base < TILE ? s->V - base : TILE;
        if (!tile_weights(s, n, use_q, base, m, wf))
            continue; /* a tile of zero weights needs no random numbers */
        tile_tops(&rs, base, top);
        /* first the check against the bound at the tile's start (which only
         * falls, so no token that may win is dropped), without a branch;
         * then a loop over the few candidates, rechecked as the bound falls.
         * 1.3x faster than branching on each token at once. (& not &&: w > 0
         * is a coin toss in a residual row, a branch on it mispredicts.) */
        for (int32_t j = 0; j < m; j++)
            candidate[j] = (unsigned char)((wf[j] > 0.0f) &
                                           sv_race_may_win(top[j], wf[j], reach));
        for (int32_t j = 0; j < m; j++) {
            if (!candidate[j] || !sv_race_may_win(top[j], wf[j], reach))
                continue;
            bound = fminf(bound, sv_race_time_ceiling(top[j], wf[j]));
            reach = sv_race_reach(bound);
            const int32_t quad = (base + j) / 4;
            if (quad != low_quad) { /* a timed token's low word, by quads */
                low = sv_race_stream_lows(&rs, (uint32_t)quad);
                low_quad = quad;
            }
            double u = sv_u01_double(top[j], low.v[(base + j) % 4]);
            double t = -log(u) / weight(s, n, use_q, base + j);
            if (t < best_time) { /* strict: ties go to the lowest index */
                best_time = t;
                best = base + j;
            }
        }
    }
    return best;
}

static int32_t residual(const sv_step *s, int32_t n, double u)
{
    (void)u; /* the race has its own uniforms, one per token */
    int32_t t = race(s, n, 1);
    return t >= 0 ? t : race(s, n, 0);
}

static int32_t bonus(const sv_step *s, double u)
{
    (void)u;
    return race(s, s->K, 0);
}

static const sv_chain_hooks hooks = {.residual = residual, .bonus = bonus};
SV_CHAIN_SAMPLER(sv_sampler_ref_race, "ref_race",
                 "control: ref with the final token by exponential race (double)", hooks);
