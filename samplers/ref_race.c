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
 *     u_i = sv_philox_uniform(seed, index, n, SV_PURPOSE_FINAL, lane = i),
 * i.e. Philox4x32-10, key = seed, counter = {index lo, index hi,
 * FINAL << 16 | n, i / 2}; words (v0, v1) give even i, (v2, v3) odd i, as
 * 52-bit doubles centred in their cell (sv_u01_double). Two tokens per
 * Philox call. An empty residual (p == q up to rounding) races over p_{n+1}
 * itself with the same u_i. Correct because P(argmin E_i / w_i = j) =
 * w_j / sum w for independent Exp(1) E_i: the race is a different, equally
 * exact way to draw from norm(w).
 */
#include <math.h>
#include "chain.h"
#include "sv_philox.h"

/* The race over w = max(p_n - q_n, 0) (use_q = 0: w = p_n); -1 if all w are 0. */
static int32_t race(const sv_step *s, int32_t n, int use_q)
{
    const float *p = sv_chain_p_row(s, n);
    int32_t best = -1;
    double best_time = INFINITY;
    philox4x32_ctr_t r = {{0, 0, 0, 0}};
    uint32_t have = UINT32_MAX; /* the Philox block in r */
    for (int32_t i = 0; i < s->V; i++) {
        double w = (double)p[i] - (use_q ? (double)sv_chain_q(s, n, i) : 0.0);
        if (!(w > 0.0))
            continue;
        if ((uint32_t)i >> 1 != have) { /* lanes 2j and 2j + 1 share block j */
            have = (uint32_t)i >> 1;
            r = sv_philox_block(s->bt->seed, s->index, (uint32_t)n, SV_PURPOSE_FINAL, have);
        }
        double u = (i & 1) ? sv_u01_double(r.v[2], r.v[3]) : sv_u01_double(r.v[0], r.v[1]);
        double t = -log(u) / w;
        if (t < best_time) { /* strict: ties go to the lowest index */
            best_time = t;
            best = i;
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
