/* describe.c: what a failing check looks like, in words a kernel author can
 * act on ("position 2: token 17 emitted 3.1x more often than p says"). */
#include <math.h>
#include <stdio.h>
#include "sv_check.h"

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
        /* a ratio near 1 (many draws, a small effect) as a percentage: "1x
         * more often" would say nothing */
        char by[32];
        if (ratio < 1.095)
            snprintf(by, sizeof by, "%.2g%%", (ratio - 1.0) * 100.0);
        else
            snprintf(by, sizeof by, "%.3gx", ratio);
        if (pooled->token[worst] >= 0)
            n = snprintf(out, len, "position %d: token %d emitted %s %s often than p says "
                         "(%.0f vs %.1f expected)", k + 1, pooled->token[worst], by, how, o, e);
        else
            n = snprintf(out, len, "position %d: the pooled tail (%d rare tokens, mass %.3g) "
                         "emitted %s %s often than p says (%.0f vs %.1f expected)", k + 1,
                         pooled->tail_categories, pooled->tail_mass, by, how, o, e);
    } else {
        n = snprintf(out, len, "position %d: no single token stands out (chi-square p = %.3g, "
                     "G p = %.3g)", k + 1, pe->chi2.p, pe->g.p);
    }
    if (n >= 0 && (size_t)n < len && pe->tv > pe->tv_threshold)
        snprintf(out + n, len - (size_t)n, "; TV distance %.4g is above its threshold %.4g",
                 pe->tv, pe->tv_threshold);
}

/* The bin that drives the length statistic: the pooled tail when it is
 * tested exactly (its p-value is the whole test), else the bin with the
 * largest Pearson term (o - e)^2 / e. */
static int32_t driving_bin(const sv_pooled *pooled)
{
    if (pooled->exact_tail)
        return pooled->nbins - 1;
    int32_t worst = 0;
    double worst_term = -1.0;
    for (int32_t j = 0; j < pooled->nbins; j++) {
        double d = pooled->observed[j] - pooled->expected[j];
        if (d * d / pooled->expected[j] > worst_term) {
            worst_term = d * d / pooled->expected[j];
            worst = j;
        }
    }
    return worst;
}

/* "n = 4", or "n in {5, 7}" for the pooled tail: the lengths of positive
 * probability that no kept bin holds. */
static void name_lengths(const sv_run_eval *ev, const sv_pooled *pooled, int32_t bin, char *out,
                         size_t len)
{
    if (pooled->token[bin] >= 0) {
        snprintf(out, len, "n = %d", pooled->token[bin]);
        return;
    }
    size_t used = (size_t)snprintf(out, len, "n in {");
    const char *sep = "";
    for (int32_t j = 0; j <= ev->K && used < len; j++) {
        int kept = 0;
        for (int32_t b = 0; b < pooled->nbins; b++)
            kept |= pooled->token[b] == j;
        if (kept || ev->length_expected[j] <= 0.0)
            continue;
        used += (size_t)snprintf(out + used, len - used, "%s%d", sep, j);
        sep = ", ";
    }
    if (used < len)
        snprintf(out + used, len - used, "}");
}

void sv_describe_length(const sv_run_eval *ev, const sv_pooled *pooled, char *out, size_t len)
{
    uint64_t total = 0;
    double mean_obs = 0.0, mean_exp = 0.0, square_exp = 0.0;
    int32_t impossible = -1; /* a length of probability 0 that was seen */
    for (int32_t j = 0; j <= ev->K; j++) {
        total += ev->length_observed[j];
        mean_obs += j * (double)ev->length_observed[j];
        mean_exp += j * ev->length_expected[j];
        square_exp += (double)j * j * ev->length_expected[j];
        if (impossible < 0 && ev->length_expected[j] <= 0.0 && ev->length_observed[j] > 0)
            impossible = j;
    }
    const double draws = (double)(total ? total : 1);
    mean_obs /= draws;
    int n;
    if (impossible >= 0) {
        n = snprintf(out, len, "accepted length: n = %d in %llu draws, a length of probability 0 "
                     "under the acceptance rates", impossible,
                     (unsigned long long)ev->length_observed[impossible]);
    } else if (pooled->nbins == 0) {
        n = snprintf(out, len, "accepted length: no draws");
    } else {
        int32_t bin = driving_bin(pooled);
        double o = pooled->observed[bin], e = pooled->expected[bin];
        char which[96];
        name_lengths(ev, pooled, bin, which, sizeof which);
        n = snprintf(out, len, "accepted length: %s in %.0f draws (%.4g%%), expected %.6g (%.4g%%)",
                     which, o, 100.0 * o / draws, e, 100.0 * e / draws);
        if (n >= 0 && (size_t)n < len)
            n += pooled->exact_tail
                     ? snprintf(out + n, len - (size_t)n, ": exact Poisson tail p = %.3g",
                                ev->length.p)
                     : snprintf(out + n, len - (size_t)n, ", %.1f sd %s: %.3g of X^2 = %.3g "
                                "(df %d, p = %.3g)", fabs(o - e) / sqrt(e),
                                o >= e ? "more" : "fewer", (o - e) * (o - e) / e, ev->length.stat,
                                ev->length.df, ev->length.p);
    }
    if (n < 0 || (size_t)n >= len)
        return;
    /* the mean says whether drafts are accepted too often overall; its
     * standard error is sd(n) / sqrt(draws) under the analytic rates */
    double se = sqrt(fmax(square_exp - mean_exp * mean_exp, 0.0) / draws);
    double z = se > 0.0 ? (mean_obs - mean_exp) / se : 0.0;
    if (total > 0 && ev->length_observed[0] == total && ev->length_expected[0] < 1.0)
        snprintf(out + n, len - (size_t)n, "; the sampler accepts no drafts: its outputs can be "
                 "right in distribution, but it gives no speedup");
    else if (fabs(z) < 3.0)
        snprintf(out + n, len - (size_t)n, "; mean n %.4f vs %.4f expected (%.1f sd): no "
                 "overall excess or shortfall of accepted drafts", mean_obs, mean_exp, z);
    else
        snprintf(out + n, len - (size_t)n, "; mean n %.4f vs %.4f expected (%.1f sd): %s drafts "
                 "accepted than min(1, p/q) allows", mean_obs, mean_exp, z,
                 z > 0 ? "more" : "fewer");
}

void sv_describe_independence(const char *which, const sv_gof *g, char *out, size_t len)
{
    snprintf(out, len, "%s are not independent (X^2 = %.1f, df %d, p = %.3g): "
             "a sampler that reuses random numbers has right marginals and wrong joints",
             which, g->stat, g->df, g->p);
}
