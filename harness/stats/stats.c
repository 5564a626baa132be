/* stats.c: pooled goodness of fit (Pearson, G), the independence test, and
 * total variation with its calibrated threshold. Distributions from GSL. */
#include <math.h>
#include <stdlib.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sf_gamma.h>
#include "sv_stats.h"

typedef struct ranked {
    double p;
    int32_t i;
} ranked;

static int by_p_descending(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->p != y->p)
        return x->p < y->p ? 1 : -1;
    return x->i < y->i ? -1 : (x->i > y->i);
}

void sv_pooled_free(sv_pooled *pooled)
{
    free(pooled->token);
    free(pooled->expected);
    free(pooled->observed);
    pooled->token = NULL;
    pooled->expected = pooled->observed = NULL;
    pooled->nbins = 0;
}

int sv_pool(const double *p, const uint64_t *counts, int32_t n_categories, uint64_t N,
            double min_expected, sv_pooled *out)
{
    *out = (sv_pooled){0};
    ranked *order = malloc((size_t)n_categories * sizeof *order);
    if (!order)
        return sv_fail(SV_EENV, "out of memory pooling %d categories", n_categories);
    int32_t n_positive = 0;
    for (int32_t i = 0; i < n_categories; i++) {
        if (p[i] > 0.0)
            order[n_positive++] = (ranked){p[i], i};
        else
            out->stray += counts[i];
    }
    qsort(order, (size_t)n_positive, sizeof *order, by_p_descending);

    int32_t kept = 0;
    while (kept < n_positive && (double)N * order[kept].p >= min_expected)
        kept++;
    double tail = 0.0;
    for (int32_t j = kept; j < n_positive; j++)
        tail += order[j].p;
    /* a tail bin too small for the chi-square approximation takes in the
     * smallest kept bins until it is large enough, keeping at least one */
    while (tail > 0.0 && (double)N * tail < min_expected && kept > 1)
        tail += order[--kept].p;
    /* still small: one large bin against a rare tail; its test is exact */
    out->exact_tail = tail > 0.0 && (double)N * tail < min_expected;

    int32_t nbins = kept + (tail > 0.0 ? 1 : 0);
    out->token = malloc((size_t)(nbins ? nbins : 1) * sizeof *out->token);
    out->expected = calloc((size_t)(nbins ? nbins : 1), sizeof *out->expected);
    out->observed = calloc((size_t)(nbins ? nbins : 1), sizeof *out->observed);
    if (!out->token || !out->expected || !out->observed) {
        free(order);
        sv_pooled_free(out);
        return sv_fail(SV_EENV, "out of memory pooling %d categories", n_categories);
    }
    out->nbins = nbins;
    for (int32_t j = 0; j < kept; j++) {
        out->token[j] = order[j].i;
        out->expected[j] = (double)N * order[j].p;
        out->observed[j] = (double)counts[order[j].i];
    }
    if (tail > 0.0) {
        out->token[kept] = -1;
        out->tail_mass = tail;
        out->tail_categories = n_positive - kept;
        out->expected[kept] = (double)N * tail;
        for (int32_t j = kept; j < n_positive; j++)
            out->observed[kept] += (double)counts[order[j].i];
    }
    free(order);
    return SV_OK;
}

/* P(X >= observed) for X ~ Poisson(expected) in the rare tail bin: the exact
 * test when the chi-square approximation cannot hold (too few are never
 * evidence in a bin expected to hold almost nothing). */
static double exact_tail_p(const sv_pooled *pooled)
{
    double o = pooled->observed[pooled->nbins - 1], e = pooled->expected[pooled->nbins - 1];
    return o > e ? gsl_cdf_poisson_Q((unsigned int)(o - 1.0), e) : 1.0;
}

sv_gof sv_pearson(const sv_pooled *pooled)
{
    sv_gof g = {0.0, pooled->nbins - 1, 1.0, 0};
    if (g.df < 1)
        return (sv_gof){0.0, 0, 1.0, 0};
    for (int32_t j = 0; j < pooled->nbins; j++) {
        double d = pooled->observed[j] - pooled->expected[j];
        g.stat += d * d / pooled->expected[j];
    }
    g.p = pooled->exact_tail ? exact_tail_p(pooled) : gsl_cdf_chisq_Q(g.stat, g.df);
    g.exact = pooled->exact_tail;
    return g;
}

/* G with Williams' correction: G / q, q = 1 + (sum_j 1/p_j - 1) / (6 N df).
 * Uncorrected, E[G] = df + (sum 1/p_j - 1) / (6N) + O(N^-2): about 1/(6 E_j)
 * too much per bin, 1.7% at the pooling floor of 10. One table hardly
 * notices, but a sum of thousands of tables (a Markov case's transitions,
 * df ~ 10^5) drifts several standard deviations and false-alarms at will. */
sv_gof sv_gtest(const sv_pooled *pooled)
{
    sv_gof g = {0.0, pooled->nbins - 1, 1.0, 0};
    if (g.df < 1)
        return (sv_gof){0.0, 0, 1.0, 0};
    double total = 0.0, inv_expected = 0.0;
    for (int32_t j = 0; j < pooled->nbins; j++) {
        double o = pooled->observed[j];
        if (o > 0.0)
            g.stat += 2.0 * o * log(o / pooled->expected[j]);
        total += pooled->expected[j];
        inv_expected += 1.0 / pooled->expected[j];
    }
    if (g.stat < 0.0) /* rounding, when observed equals expected */
        g.stat = 0.0;
    const double q = 1.0 + (total * inv_expected - 1.0) / (6.0 * total * g.df);
    g.stat /= q;
    g.p = pooled->exact_tail ? exact_tail_p(pooled) : gsl_cdf_chisq_Q(g.stat, g.df);
    g.exact = pooled->exact_tail;
    return g;
}

sv_gof sv_independence(const uint64_t *table, int32_t rows, int32_t cols)
{
    double row_sum[64] = {0}, col_sum[64] = {0}, total = 0.0;
    if (rows > 64 || cols > 64)
        return (sv_gof){0.0, 0, 1.0, 0};
    for (int32_t i = 0; i < rows; i++)
        for (int32_t j = 0; j < cols; j++) {
            double o = (double)table[i * cols + j];
            row_sum[i] += o;
            col_sum[j] += o;
            total += o;
        }
    int32_t r = 0, c = 0;
    for (int32_t i = 0; i < rows; i++)
        r += row_sum[i] > 0.0;
    for (int32_t j = 0; j < cols; j++)
        c += col_sum[j] > 0.0;
    sv_gof g = {0.0, (r - 1) * (c - 1), 1.0, 0};
    if (g.df < 1 || total <= 0.0)
        return (sv_gof){0.0, 0, 1.0, 0};
    for (int32_t i = 0; i < rows; i++)
        for (int32_t j = 0; j < cols; j++) {
            if (row_sum[i] <= 0.0 || col_sum[j] <= 0.0)
                continue;
            double e = row_sum[i] * col_sum[j] / total;
            double d = (double)table[i * cols + j] - e;
            g.stat += d * d / e;
        }
    g.p = gsl_cdf_chisq_Q(g.stat, g.df);
    return g;
}

double sv_tv(const double *p, const uint64_t *counts, int32_t V, uint64_t N)
{
    double sum = 0.0;
    for (int32_t i = 0; i < V; i++)
        sum += fabs((double)counts[i] / (double)N - p[i]);
    return 0.5 * sum;
}

/* E|X - Np| for X ~ Binomial(N, p), by de Moivre's closed form
 * 2 m C(N, m) p^m (1-p)^(N-m+1) with m = floor(Np) + 1. */
static double binomial_mad(uint64_t N, double p)
{
    if (p <= 0.0 || p >= 1.0)
        return 0.0;
    double n = (double)N, m = floor(n * p) + 1.0;
    if (m > n)
        return 0.0;
    double log_mad = log(2.0 * m) + gsl_sf_lngamma(n + 1.0) - gsl_sf_lngamma(m + 1.0) -
                     gsl_sf_lngamma(n - m + 1.0) + m * log(p) + (n - m + 1.0) * log1p(-p);
    return exp(log_mad);
}

double sv_tv_expected(const double *p, int32_t V, uint64_t N)
{
    if (N == 0)
        return 0.0;
    double sum = 0.0;
    for (int32_t i = 0; i < V; i++)
        sum += binomial_mad(N, p[i]);
    return sum / (2.0 * (double)N);
}

double sv_mcdiarmid_margin(uint64_t N, double delta)
{
    return N ? sqrt(log(1.0 / delta) / (2.0 * (double)N)) : INFINITY;
}

double sv_tv_pvalue(double tv, double expected, uint64_t N)
{
    if (tv <= expected || N == 0)
        return 1.0;
    double t = tv - expected;
    return exp(-2.0 * (double)N * t * t);
}
