/* acceptance.c: acceptance rates, tokens per step and speedup. */
#include <math.h>
#include <gsl/gsl_cdf.h>
#include "sv_sweep.h"

sv_proportion sv_wilson(uint64_t successes, uint64_t trials, double level)
{
    sv_proportion p = {NAN, NAN, NAN, successes, trials};
    if (trials == 0)
        return p;
    const double n = (double)trials, phat = (double)successes / n;
    const double z = gsl_cdf_ugaussian_Pinv(0.5 + level / 2.0), z2 = z * z;
    const double centre = (phat + z2 / (2.0 * n)) / (1.0 + z2 / n);
    const double half = z / (1.0 + z2 / n) * sqrt(phat * (1.0 - phat) / n + z2 / (4.0 * n * n));
    p.value = phat;
    p.lo = fmax(0.0, centre - half);
    p.hi = fmin(1.0, centre + half);
    return p;
}

void sv_measured_alpha(const uint64_t *length, int32_t K, double level, sv_proportion *alpha)
{
    for (int32_t k = 1; k <= K; k++) {
        uint64_t tested = 0, accepted = 0;
        for (int32_t n = k - 1; n <= K; n++)
            tested += length[n];
        for (int32_t n = k; n <= K; n++)
            accepted += length[n];
        alpha[k - 1] = sv_wilson(accepted, tested, level);
    }
}

double sv_expected_tokens(const double *alpha, int32_t K)
{
    double e = 1.0, reach = 1.0;
    for (int32_t j = 0; j < K; j++) {
        reach *= alpha[j]; /* P(drafts 1..j+1 all accepted) */
        e += reach;
    }
    return e;
}

double sv_mean_tokens(const uint64_t *length, int32_t K)
{
    double steps = 0.0, accepted = 0.0;
    for (int32_t n = 0; n <= K; n++) {
        steps += (double)length[n];
        accepted += (double)n * (double)length[n];
    }
    return steps > 0.0 ? 1.0 + accepted / steps : NAN;
}

void sv_mean_tokens_interval(const uint64_t *length, int32_t K, double level, double *lo,
                             double *hi)
{
    double steps = 0.0, sum = 0.0, sum2 = 0.0;
    for (int32_t n = 0; n <= K; n++) {
        steps += (double)length[n];
        sum += (double)n * (double)length[n];
    }
    *lo = *hi = NAN;
    if (steps < 2.0)
        return;
    const double mean = sum / steps;
    for (int32_t n = 0; n <= K; n++)
        sum2 += ((double)n - mean) * ((double)n - mean) * (double)length[n];
    /* steps are independent draws: the mean's standard error is sd / sqrt(steps) */
    const double se = sqrt(sum2 / (steps - 1.0) / steps);
    const double z = gsl_cdf_ugaussian_Pinv(0.5 + level / 2.0);
    *lo = 1.0 + mean - z * se;
    *hi = 1.0 + mean + z * se;
}

double sv_speedup(double expected_tokens, int32_t K, double c)
{
    return expected_tokens / ((double)K * c + 1.0);
}
