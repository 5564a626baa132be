/* plugin_chain.h: correct chain rejection sampling for the test plugins'
 * samplers that misbehave in some other way (rows_sharpened's in-place
 * change, the sandbox attacks): so what fails them is the misbehaviour. Its
 * uniforms are a hash of (seed, sequence, position, purpose). */
#ifndef SV_PLUGIN_CHAIN_H
#define SV_PLUGIN_CHAIN_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sv_sampler.h"

/* A uniform in [0, 1) addressed by (seed, sequence, position, purpose). */
static inline double uniform(uint64_t seed, uint64_t index, int32_t k, int purpose)
{
    uint64_t z = seed ^ (index * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)k << 40) ^
                 ((uint64_t)purpose << 56);
    for (int i = 0; i < 2; i++) { /* splitmix64's finalizer, twice */
        z += 0x9e3779b97f4a7c15ull;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
    }
    return (double)(z >> 11) * 0x1p-53;
}

/* A token from max(p - q, 0) normalised (q NULL: p as it is), by inverse CDF. */
static inline int32_t draw(const float *p, const float *q, int32_t V, double u)
{
    double total = 0.0, sum = 0.0;
    for (int32_t v = 0; v < V; v++)
        total += q ? fmax(p[v] - q[v], 0.0) : p[v];
    int32_t last = 0;
    for (int32_t v = 0; v < V; v++) {
        double w = q ? fmax(p[v] - q[v], 0.0) : p[v];
        if (w <= 0.0)
            continue;
        last = v;
        sum += w;
        if (u * total < sum)
            return v;
    }
    return last;
}

/* The chain rule on a batch of one case's rows (contract version 1). */
static inline int chain_sample(const sv_batch *bt)
{
    const int32_t K = bt->K, V = bt->V;
    for (int32_t b = 0; b < bt->B; b++) {
        const uint64_t index = bt->first_index + (uint64_t)b;
        const int32_t *x = bt->draft_tokens + (size_t)b * (size_t)K;
        int32_t *y = bt->out_tokens + (size_t)b * (size_t)(K + 1), n = 0;
        for (; n < K; n++) {
            const float *p = bt->target + (size_t)n * (size_t)V;
            const float *q = bt->draft ? bt->draft + (size_t)n * (size_t)V : NULL;
            double ratio = q ? p[x[n]] / q[x[n]] : p[x[n]];
            if (uniform(bt->seed, index, n, 0) >= ratio)
                break;
            y[n] = x[n];
        }
        const float *p = bt->target + (size_t)n * (size_t)V;
        const float *q = n < K && bt->draft ? bt->draft + (size_t)n * (size_t)V : NULL;
        if (n < K && !bt->draft) { /* one-hot q: p without the rejected draft */
            float *rest = malloc((size_t)V * sizeof *rest);
            if (!rest)
                return SV_SAMPLER_ENOMEM;
            memcpy(rest, p, (size_t)V * sizeof *rest);
            rest[x[n]] = 0.0f;
            y[n] = draw(rest, NULL, V, uniform(bt->seed, index, n, 1));
            free(rest);
        } else {
            y[n] = draw(p, q, V, uniform(bt->seed, index, n, 1));
        }
        for (int32_t k = n + 1; k <= K; k++)
            y[k] = -1;
        bt->out_accepted[b] = n;
    }
    return SV_SAMPLER_OK;
}

#endif
