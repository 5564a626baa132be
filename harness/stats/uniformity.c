/* uniformity.c: are p-values uniform? Kolmogorov-Smirnov against U(0, 1)
 * and the 10-bin chi-square of NIST SP 800-22; exact binomial intervals.
 * GSL has no Kolmogorov distribution: its tail is the alternating series
 * Q(t) = 2 sum_{k>=1} (-1)^(k-1) exp(-2 k^2 t^2), evaluated at Stephens'
 * small-sample argument t = (sqrt(n) + 0.12 + 0.11/sqrt(n)) D. */
#include <math.h>
#include <stdlib.h>
#include <gsl/gsl_cdf.h>
#include "sv_stats.h"

double sv_kolmogorov_q(double t)
{
    if (t < 0.2) /* the series converges slowly here, and Q is 1 to 1e-16 */
        return 1.0;
    double sum = 0.0;
    for (int k = 1; k <= 100; k++) {
        double term = exp(-2.0 * k * k * t * t); /* 0 past underflow, as it should be */
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

/* The p in (0, 1) where tail(p, a, b) = target, tail rising in p when
 * `rising`, by bisection to 1e-15 of p. GSL's inverse beta fails to
 * converge for some counts (8 of 6000 at 97.5%: GSL aborted calibrate); its
 * CDF gives NaN only where both x and n - x are near a million or more (its
 * continued fraction stops at 512 terms), and a NaN is reported, not guessed
 * past. */
static int bisect(double (*tail)(double, double, double), double a, double b, double target,
                  int rising, double *out)
{
    double lo = 0.0, hi = 1.0;
    for (;;) {
        double mid = 0.5 * (lo + hi);
        if (hi - lo <= 0x1p-50 * hi || mid <= lo || mid >= hi)
            break; /* p to 1e-15 of itself */
        double v = tail(mid, a, b);
        if (isnan(v))
            return sv_fail(SV_EENV, "GSL's beta CDF has no value at p = %.17g (a = %.17g, "
                           "b = %.17g)", mid, a, b);
        if (rising ? v < target : v > target)
            lo = mid;
        else
            hi = mid;
    }
    *out = 0.5 * (lo + hi);
    return SV_OK;
}

int sv_binomial_interval(uint64_t x, uint64_t n, double confidence, double *lo, double *hi)
{
    if (x > n || !(confidence > 0.0 && confidence < 1.0))
        return sv_fail(SV_EBAD, "Clopper-Pearson interval of %llu of %llu at %g: no such "
                       "interval", (unsigned long long)x, (unsigned long long)n, confidence);
    const double half = (1.0 - confidence) / 2.0, dn = (double)n, dx = (double)x;
    *lo = 0.0;
    *hi = 1.0;
    if (n == 0)
        return SV_OK;
    /* lo: P(X >= x | lo) = half, i.e. I_lo(x, n - x + 1) = half; at x = n,
     * lo^n = half. hi: P(X <= x | hi) = half, i.e. 1 - I_hi(x + 1, n - x) =
     * half; at x = 0, (1 - hi)^n = half. */
    char gsl[320];
    sv_gsl_error_clear();
    int rc = SV_OK;
    if (x == n)
        *lo = exp(log(half) / dn);
    else if (x > 0)
        rc = bisect(gsl_cdf_beta_P, dx, dn - dx + 1.0, half, 1, lo);
    if (x == 0)
        *hi = -expm1(log(half) / dn);
    else if (x < n && rc == SV_OK)
        rc = bisect(gsl_cdf_beta_Q, dx + 1.0, dn - dx, half, 0, hi);
    if (rc == SV_OK && sv_gsl_error_take(gsl, sizeof gsl))
        rc = sv_fail(SV_EENV, "%s", gsl);
    if (rc != SV_OK) {
        char why[1024];
        snprintf(why, sizeof why, "%s", sv_error_message());
        return sv_fail(rc, "Clopper-Pearson interval of %llu of %llu: %s",
                       (unsigned long long)x, (unsigned long long)n, why);
    }
    return SV_OK;
}
