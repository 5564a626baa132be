/* ref_float.c: a correct control — ref's method in float32 throughout.
 *
 * Acceptance: u = sv_u01_float(word 0 of sv_philox_block(seed, index, k,
 * ACCEPT, 0)), a float in (0, 1) that is never 0, and accept iff u * q < p in
 * float. Final token: u = sv_u01_float(word 0 of the FINAL block at (index,
 * n)), then an inverse CDF over float weights max(p - q, 0): block sums of
 * SV_CDF_BLOCK tokens accumulated in float into prefix sums, a binary search
 * for the block holding u * total, a walk from there. No double anywhere in
 * the arithmetic; only tokens of positive weight are ever returned. Float
 * rounding moves probabilities by about 1e-7 relative, far below what any
 * suite can see, so the harness must pass it.
 */
#include "chain.h"
#include "inverse_cdf.h"
#include "sv_philox.h"

static float fweight(const float *p, const float *q, int32_t skip, int32_t i)
{
    float w = i == skip ? 0.0f : p[i] - (q ? q[i] : 0.0f);
    return w > 0.0f ? w : 0.0f;
}

/* A draw from max(p - q, 0) (q NULL: p), token `skip` removed; -1 if empty.
 * prefix holds one float per block. */
static int32_t float_cdf(const float *p, const float *q, int32_t skip, int32_t V, float u,
                         float *prefix)
{
    const int32_t nb = (V + SV_CDF_BLOCK - 1) / SV_CDF_BLOCK;
    float total = 0.0f;
    for (int32_t b = 0; b < nb; b++) {
        float sum = 0.0f;
        for (int32_t i = b * SV_CDF_BLOCK; i < V && i < (b + 1) * SV_CDF_BLOCK; i++)
            sum += fweight(p, q, skip, i);
        total += sum;
        prefix[b] = total;
    }
    if (!(total > 0.0f))
        return -1;
    const float target = u * total;
    int32_t lo = 0, hi = nb - 1; /* the first block whose prefix passes target */
    while (lo < hi) {
        int32_t mid = (lo + hi) / 2;
        if (prefix[mid] > target)
            hi = mid;
        else
            lo = mid + 1;
    }
    float cumulative = lo > 0 ? prefix[lo - 1] : 0.0f;
    int32_t last = -1;
    for (int32_t i = lo * SV_CDF_BLOCK; i < V; i++) { /* on past the block if rounding says so */
        float w = fweight(p, q, skip, i);
        if (!(w > 0.0f))
            continue;
        last = i;
        cumulative += w;
        if (target < cumulative)
            return i;
    }
    for (int32_t i = lo * SV_CDF_BLOCK - 1; last < 0 && i >= 0; i--)
        if (fweight(p, q, skip, i) > 0.0f)
            last = i;
    return last;
}

static float block_u(const sv_step *s, int32_t position, uint32_t purpose)
{
    philox4x32_ctr_t r = sv_philox_block(s->seed, s->index, (uint32_t)position, purpose, 0);
    return sv_u01_float(r.v[0]);
}

static int accept(const sv_step *s, int32_t k, float p, float q)
{
    return block_u(s, k, SV_PURPOSE_ACCEPT) * q < p;
}

static double final_u(const sv_step *s, int32_t n)
{
    return block_u(s, n, SV_PURPOSE_FINAL); /* a float, carried exactly */
}

static int32_t residual(const sv_step *s, int32_t n, double u)
{
    const float *p = sv_chain_p_row(s, n);
    int32_t t = s->Q ? float_cdf(p, s->Q + (int64_t)n * s->V, -1, s->V, (float)u, s->ws->row)
                     : float_cdf(p, NULL, s->x[n], s->V, (float)u, s->ws->row);
    return t >= 0 ? t : float_cdf(p, NULL, -1, s->V, (float)u, s->ws->row);
}

static int32_t bonus(const sv_step *s, double u)
{
    return float_cdf(sv_chain_p_row(s, s->K), NULL, -1, s->V, (float)u, s->ws->row);
}

static const sv_chain_hooks hooks = {
    .accept = accept, .final_u = final_u, .residual = residual, .bonus = bonus};
SV_CHAIN_SAMPLER(sv_sampler_ref_float, "ref_float",
                 "control: ref's method in float32 (float uniforms, float CDF)", hooks);
