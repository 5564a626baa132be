/* batch_cost.c: the sampler's and the target's time per step at batch size
 * B, for the speedup of `specverify sweep --B`. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sv_sweep.h"
#include "sv_base.h"

int sv_batch_cost_model(const char *flag, const char *text, double out[2])
{
    char items[2][SV_LIST_ITEM];
    int n = 0;
    int rc = sv_split_list(flag, text, items, 2, &n);
    out[0] = out[1] = 0.0;
    for (int i = 0; rc == SV_OK && i < n; i++)
        rc = sv_parse_double(flag, items[i], 0.0, 1e12, 0, &out[i]);
    return rc;
}

/* How a mode ranks: graph timings first (a decode loop replays graphs),
 * then hot, then cold. */
static int mode_rank(const sv_bench_point *p)
{
    return p->graph ? 0 : p->cold ? 2 : 1;
}

int sv_batch_cost_load(sv_batch_cost *c, const char *path, const char *sampler, int32_t V)
{
    sv_bench_device d;
    sv_bench_point *all = NULL;
    size_t n = 0;
    int rc = sv_bench_read_h5(path, &d, &all, &n);
    if (rc != SV_OK)
        return rc;
    int32_t best_V = -1;
    int best_rank = 3;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(all[i].sampler, sampler) != 0)
            continue;
        if (best_V < 0 || llabs((long long)all[i].V - V) < llabs((long long)best_V - V))
            best_V = all[i].V;
    }
    for (size_t i = 0; i < n; i++)
        if (strcmp(all[i].sampler, sampler) == 0 && all[i].V == best_V &&
            mode_rank(&all[i]) < best_rank)
            best_rank = mode_rank(&all[i]);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(all[i].sampler, sampler) == 0 && all[i].V == best_V &&
            mode_rank(&all[i]) == best_rank)
            all[kept++] = all[i];
    if (kept == 0) {
        free(all);
        return sv_fail(SV_EBAD, "--latency %s: no point of sampler %s in it", path, sampler);
    }
    c->pts = all;
    c->n = kept;
    snprintf(c->source, sizeof c->source, "%s, %s at V=%d (%s) on %s", path, sampler, best_V,
             best_rank == 0 ? "graph" : best_rank == 1 ? "hot" : "cold", d.name);
    return SV_OK;
}

void sv_batch_cost_free(sv_batch_cost *c)
{
    free(c->pts);
    c->pts = NULL;
    c->n = 0;
}

/* The mean median over acceptance rates at (B, K); NAN when none. */
static double median_at(const sv_batch_cost *c, int32_t B, int32_t K)
{
    double sum = 0.0;
    int count = 0;
    for (size_t i = 0; i < c->n; i++)
        if (c->pts[i].B == B && c->pts[i].K == K)
            sum += c->pts[i].median_us, count++;
    return count ? sum / count : NAN;
}

int sv_batch_cost_sampler_us(const sv_batch_cost *c, int32_t B, int32_t K, double *us)
{
    if (!c->pts) {
        *us = c->sampler_us[0] + c->sampler_us[1] * B;
        return SV_OK;
    }
    int32_t lo = -1, hi = -1, min_B = -1, max_B = -1;
    for (size_t i = 0; i < c->n; i++) {
        if (c->pts[i].K != K)
            continue;
        int32_t b = c->pts[i].B;
        if (min_B < 0 || b < min_B)
            min_B = b;
        if (b > max_B)
            max_B = b;
        if (b <= B && b > lo)
            lo = b;
        if (b >= B && (hi < 0 || b < hi))
            hi = b;
    }
    if (min_B < 0)
        return sv_fail(SV_EBAD, "--latency %s: no point at K=%d; bench that K, or leave it "
                       "out of --K", c->source, K);
    if (lo < 0 || hi < 0)
        return sv_fail(SV_EBAD, "--latency %s: B=%d lies outside the file's B from %d to %d at "
                       "K=%d", c->source, B, min_B, max_B, K);
    double t_lo = median_at(c, lo, K), t_hi = median_at(c, hi, K);
    if (lo == hi) {
        *us = t_lo;
        return SV_OK;
    }
    double w = (log((double)B) - log((double)lo)) / (log((double)hi) - log((double)lo));
    *us = exp((1.0 - w) * log(t_lo) + w * log(t_hi));
    return SV_OK;
}

double sv_batch_cost_target_us(const sv_batch_cost *c, int32_t B)
{
    return c->target_us[0] + c->target_us[1] * B;
}

double sv_speedup_batched(double expected_tokens, int32_t K, double c, double sampler_us,
                          double target_us)
{
    return expected_tokens / ((double)K * c + 1.0 + sampler_us / target_us);
}
