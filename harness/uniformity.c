/* uniformity.c: are p-values uniform? Kolmogorov-Smirnov against U(0, 1)
 * and the 10-bin chi-square of NIST SP 800-22; exact binomial intervals.
 * GSL has no Kolmogorov distribution: its tail is the alternating series
 * Q(t) = 2 sum_{k>=1} (-1)^(k-1) exp(-2 k^2 t^2), evaluated at Stephens'
 * small-sample argument t = (sqrt(n) + 0.12 + 0.11/sqrt(n)) D. */
#include <math.h>
#include <stdlib.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sf_exp.h>
#include "sv_harness.h"

double sv_kolmogorov_q(double t)
{
    if (t < 0.2) /* the series converges slowly here, and Q is 1 to 1e-16 */
        return 1.0;
    double sum = 0.0;
    for (int k = 1; k <= 100; k++) {
        double term = gsl_sf_exp(-2.0 * k * k * t * t);
        sum += (k % 2 ? term : -term);
        if (term < 1e-18)
            break;
    }
    double q = 2.0 * sum;
    return q < 0.0 ? 0.0 : (q > 1.0 ? 1.0 : q);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

sv_gof sv_ks_uniform(double *values, size_t n)
{
    if (n == 0)
        return (sv_gof){0.0, 0, 1.0, 0};
    qsort(values, n, sizeof *values, by_value);
    double d = 0.0;
    for (size_t i = 0; i < n; i++) {
        double above = (double)(i + 1) / (double)n - values[i];
        double below = values[i] - (double)i / (double)n;
        d = fmax(d, fmax(above, below));
    }
    double rn = sqrt((double)n);
    int32_t count = n > INT32_MAX ? INT32_MAX : (int32_t)n; /* the "df" slot holds n */
    return (sv_gof){d, count, sv_kolmogorov_q((rn + 0.12 + 0.11 / rn) * d), 0};
}

sv_gof sv_chi2_uniform_bins(const double *values, size_t n, int32_t bins, uint64_t *counts)
{
    for (int32_t b = 0; b < bins; b++)
        counts[b] = 0;
    for (size_t i = 0; i < n; i++) {
        int32_t b = (int32_t)(values[i] * bins);
        counts[b < 0 ? 0 : (b >= bins ? bins - 1 : b)]++;
    }
    if (n == 0)
        return (sv_gof){0.0, 0, 1.0, 0};
    double e = (double)n / bins, x2 = 0.0;
    for (int32_t b = 0; b < bins; b++)
        x2 += ((double)counts[b] - e) * ((double)counts[b] - e) / e;
    return (sv_gof){x2, bins - 1, gsl_cdf_chisq_Q(x2, bins - 1), 0};
}

void sv_binomial_interval(uint64_t x, uint64_t n, double confidence, double *lo, double *hi)
{
    double a = 1.0 - confidence;
    *lo = x == 0 ? 0.0 : gsl_cdf_beta_Pinv(a / 2.0, (double)x, (double)(n - x + 1));
    *hi = x == n ? 1.0 : gsl_cdf_beta_Pinv(1.0 - a / 2.0, (double)(x + 1), (double)(n - x));
}
