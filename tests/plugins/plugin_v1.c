/* plugin_v1.c: a plugin built against contract version 1, before sv_sampler
 * had `inputs`: its sampler array has version 1's smaller stride, which the
 * loader must widen. The sampler is a plain, correct one (ref's method with
 * a linear-scan inverse CDF), so the smoke suite passes only if every field
 * was read from the right place. The struct is spelled out here, as the
 * version 1 header had it; sv_batch's version 1 fields are its prefix.
 *
 * Built with SV_V1_SEEDLESS (sv_v1_seedless_plugin), it draws on seed 42
 * whatever the batch's seed: right in law on any one run, so only the
 * seed-sensitivity probe can catch it (issue 36: a version 1 sampler was
 * not probed and passed). */
#include <stdint.h>
#include <stdlib.h>
#include "sv_philox.h"
#include "sv_sampler.h"

typedef struct sampler_v1 {
    const char *name;
    const char *description;
    sv_memspace memspace;
    int (*init)(void **state, const sv_limits *limits);
    int (*verify)(void *state, const sv_batch *batch);
    void (*destroy)(void *state);
} sampler_v1;

typedef struct plugin_v1 {
    uint32_t contract_version;
    uint32_t n_samplers;
    const sampler_v1 *samplers;
} plugin_v1;

static int init(void **state, const sv_limits *limits)
{
    (void)limits;
    *state = NULL;
    return SV_SAMPLER_OK;
}

static void destroy(void *state) { (void)state; }

/* A draw from max(p - q, 0) (q NULL: p, `hot` removed) by a linear scan. */
static int32_t draw(const float *p, const float *q, int32_t hot, int32_t V, double u)
{
    double total = 0.0, acc = 0.0;
    for (int32_t i = 0; i < V; i++) {
        double w = (double)p[i] - (q ? (double)q[i] : 0.0);
        total += (w > 0.0 && i != hot) ? w : 0.0;
    }
    if (!(total > 0.0))
        return hot >= 0 || q ? draw(p, NULL, -1, V, u) : -1;
    int32_t last = -1;
    for (int32_t i = 0; i < V; i++) {
        double w = (double)p[i] - (q ? (double)q[i] : 0.0);
        if (!(w > 0.0) || i == hot)
            continue;
        last = i;
        acc += w;
        if (u * total < acc)
            return i;
    }
    return last;
}

#ifdef SV_V1_SEEDLESS
#define SEED(bt) ((void)(bt), UINT64_C(42)) /* the run's seed ignored */
#else
#define SEED(bt) ((bt)->seed)
#endif

static int verify(void *state, const sv_batch *bt)
{
    (void)state;
    for (int32_t b = 0; b < bt->B; b++) {
        const uint64_t index = bt->first_index + (uint64_t)b;
        const float *P = bt->target + (int64_t)b * bt->target_stride;
        const float *Q = bt->draft ? bt->draft + (int64_t)b * bt->draft_stride : NULL;
        const int32_t *x = bt->draft_tokens + (int64_t)b * bt->K;
        int32_t *y = bt->out_tokens + (int64_t)b * (bt->K + 1), n = 0;
        for (; n < bt->K; n++) {
            double p = P[(int64_t)n * bt->V + x[n]], q = Q ? Q[(int64_t)n * bt->V + x[n]] : 1.0;
            if (!(sv_philox_uniform(SEED(bt), index, (uint32_t)n, SV_PURPOSE_ACCEPT, 0) * q < p))
                break;
            y[n] = x[n];
        }
        double u = sv_philox_uniform(SEED(bt), index, (uint32_t)n, SV_PURPOSE_FINAL, 0);
        const float *p = P + (int64_t)n * bt->V;
        const float *q = n < bt->K && Q ? Q + (int64_t)n * bt->V : NULL;
        y[n] = draw(p, q, n < bt->K && !Q ? x[n] : -1, bt->V, u);
        if (y[n] < 0)
            return SV_SAMPLER_EINVAL;
        for (int32_t k = n + 1; k <= bt->K; k++)
            y[k] = -1;
        bt->out_accepted[b] = n;
    }
    return SV_SAMPLER_OK;
}

static const sampler_v1 samplers[] = {
    {"old_linear", "test: a contract version 1 plugin (linear-scan ref)", SV_MEM_HOST, init,
     verify, destroy},
    {"old_second", "test: the second entry, read at version 1's stride", SV_MEM_HOST, init,
     verify, destroy},
};
static const plugin_v1 plugin = {1u, 2, samplers};

SV_PLUGIN_EXPORT const plugin_v1 *sv_plugin_get(void);
SV_PLUGIN_EXPORT const plugin_v1 *sv_plugin_get(void) { return &plugin; }
