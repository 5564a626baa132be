/* race_plugin.c: an example plugin, built against sv_sampler.h alone.
 *
 * `example_race` is a correct rejection sampler that draws the residual by
 * an exponential race (the token with the smallest E_i / w_i wins, E_i
 * exponential) instead of an inverse CDF. It is a different method from
 * `ref`, so the harness must pass it too. It takes its random numbers from
 * Random123 directly, with its own addressing, to show that a plugin needs
 * nothing from specverify but the header. It takes contract v3 batches:
 * every sequence its own number of drafts, seed and index, in the padded
 * and the packed layout alike (race_verify).
 *
 * Build against the installed header (`cmake --install build`; with --prefix
 * PREFIX it is in PREFIX/include/specverify):
 *         cc -shared -fPIC -O2 -I/usr/local/include/specverify race_plugin.c -o race.so -lm
 * Run:    specverify verify --plugin ./race.so --sampler example_race
 */
#include <math.h>
#include <Random123/philox.h>
#include "sv_sampler.h"

/* Uniform in (0, 1) for (seed, sequence, position, stream, i). */
static double uniform(uint64_t seed, uint64_t seq, uint32_t pos, uint32_t stream, uint32_t i)
{
    philox4x32_ctr_t c = {{(uint32_t)seq, (uint32_t)(seq >> 32), pos, (stream << 28) ^ i}};
    philox4x32_key_t k = {{(uint32_t)seed ^ 0x5eedu, (uint32_t)(seed >> 32)}};
    philox4x32_ctr_t r = philox4x32(c, k);
    uint64_t bits = (((uint64_t)r.v[0] << 32) | r.v[1]) >> 12; /* 52 bits: 1 - 2^-53 < 1 */
    return ((double)bits + 0.5) / 4503599627370496.0;
}

/* Winner of the race over w_i = max(p_i - q_i, 0) (q NULL: p_i), skipping `skip`. */
static int32_t race(const float *p, const float *q, int32_t skip, int32_t V, uint64_t seed,
                    uint64_t seq, uint32_t pos)
{
    int32_t best = -1;
    double best_time = INFINITY;
    for (int32_t i = 0; i < V; i++) {
        double w = (double)p[i] - (q ? (double)q[i] : 0.0);
        if (i == skip || !(w > 0.0))
            continue;
        double t = -log(uniform(seed, seq, pos, 1, (uint32_t)i)) / w;
        if (t < best_time) {
            best_time = t;
            best = i;
        }
    }
    return best;
}

static int race_init(void **state, const sv_limits *limits)
{
    (void)limits;
    *state = 0;
    return SV_SAMPLER_OK;
}

static void race_destroy(void *state)
{
    (void)state;
}

/* Sequence b's rows, drafts and output slots come from sv_sampler.h's
 * accessors, so one loop takes both layouts of contract v3 (and a batch
 * without the version 3 arrays, read as version 2 meant it). */
static int race_verify(void *state, const sv_batch *bt)
{
    (void)state;
    const int32_t V = bt->V;
    for (int32_t b = 0; b < bt->B; b++) {
        const int32_t K = sv_batch_num_drafts(bt, b); /* this sequence's drafts, d_b */
        const float *P = bt->target + sv_batch_target_offset(bt, b);
        const float *Q = bt->draft ? bt->draft + sv_batch_draft_offset(bt, b) : 0;
        const int32_t *x = bt->draft_tokens + sv_batch_drafts_offset(bt, b);
        int32_t *y = bt->out_tokens + sv_batch_out_offset(bt, b); /* its K + 1 slots only */
        const uint64_t seed = sv_batch_seed(bt, b), seq = sv_batch_index(bt, b);
        if (K < 0 || K > bt->K)
            return SV_SAMPLER_EINVAL;

        int32_t n = 0;
        while (n < K) {
            if (x[n] < 0 || x[n] >= V)
                return SV_SAMPLER_EINVAL;
            double p = P[(int64_t)n * V + x[n]];
            double q = Q ? Q[(int64_t)n * V + x[n]] : 1.0;
            if (!(uniform(seed, seq, (uint32_t)n, 0, 0) * q < p))
                break;
            y[n] = x[n];
            n++;
        }
        const float *row = P + (int64_t)n * V;
        int32_t last = -1;
        if (n < K)
            last = race(row, Q ? Q + (int64_t)n * V : 0, Q ? -1 : x[n], V, seed, seq,
                        (uint32_t)n);
        if (last < 0) /* bonus, or an empty residual (rounding): draw from p itself */
            last = race(row, 0, -1, V, seed, seq, (uint32_t)n);
        if (last < 0)
            return SV_SAMPLER_EINVAL;
        y[n] = last;
        for (int32_t k = n + 1; k <= K; k++)
            y[k] = -1;
        bt->out_accepted[b] = n;
    }
    return SV_SAMPLER_OK;
}

static const sv_sampler samplers[] = {
    {"example_race", "example plugin: residual by exponential race (double)", SV_MEM_HOST,
     race_init, race_verify, race_destroy, 0,
     SV_LAYOUT_BIT(SV_LAYOUT_PADDED) | SV_LAYOUT_BIT(SV_LAYOUT_PACKED), SV_RULE_CHAIN},
};

static const sv_plugin plugin = {SV_CONTRACT_VERSION, 1, samplers};

SV_PLUGIN_EXPORT const sv_plugin *sv_plugin_get(void)
{
    return &plugin;
}
