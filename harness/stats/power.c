/* power.c: how likely a goodness-of-fit test is to catch a known defect.
 *
 * For a sampler whose output distribution r differs from p, Pearson's X^2
 * over the pooled bins follows a noncentral chi-square with df = bins - 1 and
 * lambda = N w^2, w^2 = sum (r - p)^2 / p. The power is its tail above the
 * central critical value. GSL has no noncentral chi-square, so its tail is
 * composed from GSL's Poisson weights and central chi-square tails:
 *     P(X > c) = sum_j Poisson(j; lambda/2) Q_chi2(c; df + 2j).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include "sv_stats.h"

double sv_ncx2_tail(double c, double df, double lambda)
{
    if (lambda <= 0.0)
        return gsl_cdf_chisq_Q(c, df);
    if (lambda > 1e8) /* far past any critical value we use: the normal limit */
        return gsl_cdf_ugaussian_Q((c - df - lambda) / sqrt(2.0 * (df + 2.0 * lambda)));
    const double mu = 0.5 * lambda;
    /* sum outward from the Poisson mode, where the weights are largest,
     * until both sides have fallen below 1e-17 of the total weight */
    const unsigned int mode = (unsigned int)floor(mu);
    double sum = 0.0;
    for (unsigned int j = mode;; j++) {
        double w = gsl_ran_poisson_pdf(j, mu);
        sum += w * gsl_cdf_chisq_Q(c, df + 2.0 * j);
        if (j > mode && w < 1e-17)
            break;
    }
    for (unsigned int j = mode; j-- > 0;) {
        double w = gsl_ran_poisson_pdf(j, mu);
        sum += w * gsl_cdf_chisq_Q(c, df + 2.0 * j);
        if (w < 1e-17)
            break;
    }
    return sum > 1.0 ? 1.0 : sum;
}

double sv_power_chi2(int32_t df, double lambda, double alpha)
{
    if (df < 1)
        return 0.0;
    double c = gsl_cdf_chisq_Qinv(alpha, df);
    return sv_ncx2_tail(c, df, lambda);
}

int sv_effect(const double *p, const double *r, int32_t V, uint64_t N, sv_effect_size *out)
{
    /* the bins the harness would pool at this N, and w^2 over them */
    uint64_t *zero = calloc((size_t)V, sizeof *zero);
    if (!zero)
        return sv_fail(SV_EENV, "out of memory");
    sv_pooled pooled;
    int rc = sv_pool(p, zero, V, N, 10.0, &pooled);
    free(zero);
    if (rc != SV_OK)
        return rc;
    double w2 = 0.0, tail_r = 0.0, tv = 0.0, stray = 0.0;
    int32_t kept = pooled.tail_mass > 0.0 ? pooled.nbins - 1 : pooled.nbins;
    unsigned char *in_kept = calloc((size_t)V, 1);
    if (!in_kept) {
        sv_pooled_free(&pooled);
        return sv_fail(SV_EENV, "out of memory");
    }
    for (int32_t j = 0; j < kept; j++) {
        int32_t t = pooled.token[j];
        double pj = pooled.expected[j] / (double)N;
        w2 += (r[t] - pj) * (r[t] - pj) / pj;
        in_kept[t] = 1;
    }
    for (int32_t i = 0; i < V; i++) {
        tv += fabs(r[i] - p[i]);
        if (p[i] <= 0.0)
            stray += r[i];
        else if (!in_kept[i])
            tail_r += r[i];
    }
    if (pooled.tail_mass > 0.0)
        w2 += (tail_r - pooled.tail_mass) * (tail_r - pooled.tail_mass) / pooled.tail_mass;
    out->w2 = w2;
    out->df = pooled.nbins - 1;
    out->tv = 0.5 * tv;
    out->impossible_mass = stray;
    free(in_kept);
    sv_pooled_free(&pooled);
    return SV_OK;
}

double sv_min_detectable_w2(int32_t df, uint64_t N, double alpha, double power)
{
    if (df < 1 || N == 0)
        return INFINITY;
    /* lambda such that the power is reached, by bisection on a monotone tail */
    double c = gsl_cdf_chisq_Qinv(alpha, df), lo = 0.0, hi = 1.0;
    while (sv_ncx2_tail(c, df, hi) < power && hi < 1e12)
        hi *= 2.0;
    for (int i = 0; i < 100 && hi - lo > 1e-9 * hi; i++) {
        double mid = 0.5 * (lo + hi);
        if (sv_ncx2_tail(c, df, mid) < power)
            lo = mid;
        else
            hi = mid;
    }
    return hi / (double)N;
}

/* Power at N draws (reach * N of them at this position) of the chi-square
 * check, with the contract check's certainty for mass on p = 0 tokens. */
static int power_at(const double *p, const double *r, int32_t V, double n, double alpha,
                    double *power)
{
    sv_effect_size e;
    int rc = sv_effect(p, r, V, (uint64_t)n, &e);
    if (rc != SV_OK)
        return rc;
    double chi2 = sv_power_chi2(e.df, n * e.w2, alpha);
    *power = 1.0 - (1.0 - chi2) * pow(1.0 - e.impossible_mass, n);
    return SV_OK;
}

int sv_power(const double *p, const double *r, int32_t V, double draws_here, double alpha,
             double *power)
{
    return power_at(p, r, V, draws_here, alpha, power);
}

int sv_draws_needed(const double *p, const double *r, int32_t V, double reach, double alpha,
                    double power, double *draws)
{
    /* geometric bisection on N; pooling changes with N, so power is only
     * nearly monotone: the answer is the first N found to reach it */
    double lo = 1.0, hi = 16.0, got = 0.0;
    int rc;
    while ((rc = power_at(p, r, V, reach * hi, alpha, &got)) == SV_OK && got < power) {
        lo = hi;
        hi *= 4.0;
        if (hi > 1e16) {
            *draws = INFINITY;
            return SV_OK;
        }
    }
    if (rc != SV_OK)
        return rc;
    while (hi / lo > 1.01) {
        double mid = sqrt(lo * hi);
        if ((rc = power_at(p, r, V, reach * mid, alpha, &got)) != SV_OK)
            return rc;
        if (got < power)
            lo = mid;
        else
            hi = mid;
    }
    *draws = ceil(hi);
    return SV_OK;
}

int sv_case_power(const char *variant, const sv_case *c, uint64_t draws, double alpha,
                  double target, sv_power_report *out)
{
    memset(out, 0, sizeof *out);
    out->needed = INFINITY;
    double event = sv_predict_event(variant, c);
    if (event >= 0.0) { /* the contract check sees it the first time it happens */
        out->known = 1;
        out->power = 1.0 - pow(1.0 - event, (double)draws);
        out->needed = event >= 1.0  ? 1.0
                      : event > 0.0 ? fmax(1.0, ceil(log(1.0 - target) / log1p(-event)))
                                    : INFINITY;
        out->by_contract = 1;
        return SV_OK;
    }
    sv_prediction pr;
    int rc = sv_predict(variant, c, &pr);
    if (rc == 1)
        return SV_OK; /* no closed form: known stays 0 */
    if (rc != SV_OK)
        return rc;
    double *p = malloc((size_t)c->V * sizeof *p);
    if (!p) {
        sv_prediction_free(&pr);
        return sv_fail(SV_EENV, "out of memory");
    }
    double miss = 1.0;
    for (int32_t k = 0; k <= c->K && rc == SV_OK; k++) {
        const double *r = pr.out + (size_t)k * c->V;
        sv_case_target_dist(c, k, p);
        double here = pr.reach[k] * (double)draws, power = 0.0, needed = INFINITY;
        sv_effect_size e = {0};
        if (here >= 1.0)
            rc = sv_effect(p, r, c->V, (uint64_t)here, &e);
        if (rc == SV_OK && here >= 1.0)
            rc = sv_power(p, r, c->V, here, alpha, &power);
        if (rc == SV_OK && pr.reach[k] > 0.0)
            rc = sv_draws_needed(p, r, c->V, pr.reach[k], alpha, target, &needed);
        out->reach[k] = pr.reach[k];
        out->w2[k] = e.w2;
        out->df[k] = e.df;
        out->position_power[k] = power;
        out->position_needed[k] = needed;
        miss *= 1.0 - power;
        if (needed < out->needed)
            out->needed = needed;
    }
    free(p);
    sv_prediction_free(&pr);
    out->known = 1;
    out->power = 1.0 - miss;
    return rc;
}
