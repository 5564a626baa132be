/* describe.c: what a failing check looks like, in words a kernel author can
 * act on ("position 2: token 17 emitted 3.1x more often than p says"). */
#include <math.h>
#include <stdio.h>
#include "sv_harness.h"

void sv_describe_position(const sv_pooled *pooled, const sv_position_eval *pe, int32_t k,
                          char *out, size_t len)
{
    int32_t worst = -1;
    double worst_z = 0.0;
    for (int32_t j = 0; j < pooled->nbins; j++) {
        double z = fabs(pooled->observed[j] - pooled->expected[j]) / sqrt(pooled->expected[j]);
        if (z > worst_z) {
            worst_z = z;
            worst = j;
        }
    }
    int n = 0;
    if (worst >= 0 && worst_z > 3.0) {
        double o = pooled->observed[worst], e = pooled->expected[worst];
        double ratio = o >= e ? o / e : e / (o > 0 ? o : 1.0);
        const char *how = o >= e ? "more" : "less";
        if (pooled->token[worst] >= 0)
            n = snprintf(out, len, "position %d: token %d emitted %.3gx %s often than p says "
                         "(%.0f vs %.1f expected)", k + 1, pooled->token[worst], ratio, how, o, e);
        else
            n = snprintf(out, len, "position %d: the pooled tail (%d rare tokens, mass %.3g) "
                         "emitted %.3gx %s often than p says (%.0f vs %.1f expected)", k + 1,
                         pooled->tail_categories, pooled->tail_mass, ratio, how, o, e);
    } else {
        n = snprintf(out, len, "position %d: no single token stands out (chi-square p = %.3g)",
                     k + 1, pe->chi2.p);
    }
    if (n >= 0 && (size_t)n < len && pe->tv > pe->tv_threshold)
        snprintf(out + n, len - (size_t)n, "; TV distance %.4g is above its threshold %.4g",
                 pe->tv, pe->tv_threshold);
}

void sv_describe_length(const sv_run_eval *ev, char *out, size_t len)
{
    uint64_t total = 0;
    double mean_obs = 0.0, mean_exp = 0.0;
    for (int32_t j = 0; j <= ev->K; j++) {
        total += ev->length_observed[j];
        mean_obs += j * (double)ev->length_observed[j];
        mean_exp += j * ev->length_expected[j];
    }
    mean_obs /= (double)(total ? total : 1);
    int32_t worst = 0;
    double worst_z = -1.0;
    for (int32_t j = 0; j <= ev->K; j++) {
        double e = ev->length_expected[j] * (double)total;
        double z = e > 0 ? fabs((double)ev->length_observed[j] - e) / sqrt(e)
                         : (ev->length_observed[j] ? INFINITY : 0.0);
        if (z > worst_z) {
            worst_z = z;
            worst = j;
        }
    }
    int n = snprintf(out, len, "accepted length: n = %d in %.1f%% of draws, expected %.1f%% "
                     "(mean n %.3f vs %.3f expected)", worst,
                     100.0 * (double)ev->length_observed[worst] / (double)(total ? total : 1),
                     100.0 * ev->length_expected[worst], mean_obs, mean_exp);
    if (n < 0 || (size_t)n >= len)
        return;
    if (total > 0 && ev->length_observed[0] == total && ev->length_expected[0] < 1.0)
        snprintf(out + n, len - (size_t)n, "; the sampler accepts no drafts: its outputs can be "
                 "right in distribution, but it gives no speedup");
    else if (mean_obs < mean_exp)
        snprintf(out + n, len - (size_t)n, "; fewer drafts accepted than min(1, p/q) allows");
    else
        snprintf(out + n, len - (size_t)n, "; more drafts accepted than min(1, p/q) allows");
}

void sv_describe_independence(const char *which, const sv_gof *g, char *out, size_t len)
{
    snprintf(out, len, "%s are not independent (X^2 = %.1f, df %d, p = %.3g): "
             "a sampler that reuses random numbers has right marginals and wrong joints",
             which, g->stat, g->df, g->p);
}
