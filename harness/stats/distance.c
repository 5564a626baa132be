/* distance.c: how far a lossy sampler's tokens are from p, with intervals
 * (`verify --measure`). The plug-in estimators are biased upward, so each
 * interval widens by a bound on that bias rather than trusting the point:
 *
 *   TV: |TV(r^, p) - TV(r, p)| <= TV(r^, r) (the triangle inequality), and
 *   TV(r^, r) <= E TV(r^, r) + sqrt(ln(2/beta) / (2N)) with probability
 *   1 - beta/2 (McDiarmid: one draw moves it by at most 1/N), where
 *   E TV(r^, r) <= 1/2 sum sqrt(r (1 - r) / N) (Jensen), r^ in place of r.
 *   KL(r || p): the plug-in sum r^ log(r^ / p) less the Miller-Madow bias
 *   (S - 1) / (2N), S the tokens seen; its standard error by the delta
 *   method, sqrt((sum r^ log^2(r^/p) - KL^2) / N), with the sd of
 *   chi-square(S - 1) / (2N) added in quadrature, which dominates where r
 *   is near p (there 2N KL^ is chi-square). docs/statistics.md, "Measuring
 *   a lossy rule". */
#include <math.h>
#include <gsl/gsl_cdf.h>
#include "sv_stats.h"

sv_distance sv_distance_estimate(const double *p, const uint64_t *counts, int32_t V, uint64_t N,
                                 double level)
{
    sv_distance d = sv_distance_none();
    if (N == 0)
        return d;
    const double n = (double)N, beta = 1.0 - level;
    double tv = 0.0, jensen = 0.0, kl = 0.0, kl2 = 0.0;
    int32_t seen = 0;
    int infinite = 0;
    for (int32_t i = 0; i < V; i++) {
        const double r = (double)counts[i] / n;
        tv += fabs(r - p[i]);
        if (counts[i] == 0)
            continue;
        seen++;
        jensen += sqrt(r * (1.0 - r) / n);
        if (p[i] <= 0.0) {
            infinite = 1; /* a token p never emits: KL is infinite */
            continue;
        }
        const double l = log(r / p[i]);
        kl += r * l;
        kl2 += r * l * l;
    }
    d.tv = 0.5 * tv;
    const double spread = 0.5 * jensen + sqrt(log(2.0 / beta) / (2.0 * n));
    d.tv_lo = fmax(0.0, d.tv - spread);
    d.tv_hi = fmin(1.0, d.tv + spread);
    d.seen = seen;
    if (infinite) {
        d.kl = d.kl_lo = d.kl_hi = INFINITY;
        return d;
    }
    const double bias = (double)(seen - 1) / (2.0 * n);
    const double var = fmax(0.0, kl2 - kl * kl) / n + 2.0 * (double)(seen - 1) / (4.0 * n * n);
    const double z = gsl_cdf_ugaussian_Pinv(1.0 - beta / 2.0);
    d.kl = fmax(0.0, kl - bias);
    d.kl_lo = fmax(0.0, d.kl - z * sqrt(var));
    d.kl_hi = d.kl + z * sqrt(var);
    return d;
}
