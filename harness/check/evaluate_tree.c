/* evaluate_tree.c: the length test of a tree run. A right tree verifier's
 * accepted depth n has, at each step, a law fixed by that step's tree (its
 * tokens and rows: tree_law.c), so the counts of n over N steps are a sum of
 * independent categorical draws with known, different probabilities pi_b.
 * Their mean is sum_b pi_b and their covariance sum_b (diag(pi_b) - pi_b
 * pi_b^T); the Wald statistic (O - E)^T S^-1 (O - E) over all depths but one
 * is chi-square with (depths - 1) degrees of freedom for large N (the
 * multivariate central limit theorem). Depths expected fewer than 10 times
 * are pooled, as the chain's length test pools (docs/statistics.md, "Trees"). */
#include <math.h>
#include <stdio.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_linalg.h>
#include "sv_check.h"

#define MIN_EXPECTED 10.0

int sv_evaluate_length_tree(const sv_case *c, const sv_tally *t, double split, sv_run_eval *ev)
{
    const int32_t D = c->K, L = SV_MAX_K + 1;
    uint64_t valid = 0;
    double E[SV_MAX_K + 1];
    for (int32_t l = 0; l <= D; l++) {
        ev->length_observed[l] = t->length[l];
        valid += t->length[l];
        E[l] = ldexp((double)t->law_fx[l], -32);
    }
    for (int32_t l = 0; l <= D; l++) /* the law of one step, averaged over the steps */
        ev->length_expected[l] = valid ? E[l] / (double)valid : 0.0;
    ev->length_verdict = SV_NA;
    ev->length = (sv_gof){0.0, 0, 1.0, 0};
    if (valid == 0)
        return SV_OK;
    /* groups: each depth expected 10 times or more; the rest pooled, and
     * that pool, if still small, into the largest group */
    int32_t group[SV_MAX_K + 1] = {0}, n_groups = 0, largest = -1, pool = -1;
    double pooled = 0.0;
    for (int32_t l = 0; l <= D; l++) {
        if (E[l] >= MIN_EXPECTED) {
            group[l] = n_groups++;
            if (largest < 0 || E[l] > E[largest])
                largest = l;
        } else
            pooled += E[l];
    }
    for (int32_t l = 0; l <= D; l++) {
        if (E[l] >= MIN_EXPECTED)
            continue;
        if (pooled >= MIN_EXPECTED || largest < 0) {
            if (pool < 0)
                pool = n_groups++;
            group[l] = pool;
        } else
            group[l] = group[largest];
    }
    const int32_t df = n_groups - 1;
    if (df < 1)
        return SV_OK;
    double O[SV_MAX_K + 1] = {0}, M[SV_MAX_K + 1] = {0}, S[SV_MAX_K * SV_MAX_K] = {0};
    for (int32_t l = 0; l <= D; l++) {
        O[group[l]] += (double)t->length[l];
        M[group[l]] += E[l];
    }
    for (int32_t l = 0; l <= D; l++)
        for (int32_t m = 0; m <= D; m++) {
            const int32_t g = group[l], h = group[m];
            if (g >= df || h >= df) /* the last group is dropped: the counts sum to N */
                continue;
            S[g * df + h] += (l == m ? E[l] : 0.0) - ldexp((double)t->law2_fx[l * L + m], -32);
        }
    double z[SV_MAX_K];
    for (int32_t g = 0; g < df; g++)
        z[g] = O[g] - M[g];
    gsl_matrix_view Sv = gsl_matrix_view_array(S, (size_t)df, (size_t)df);
    gsl_vector_view zv = gsl_vector_view_array(z, (size_t)df);
    double stat = 0.0;
    /* a singular S is expected (the degenerate law below), not an error of
     * GSL's to report: its handler is off for the decomposition alone */
    gsl_error_handler_t *handler = gsl_set_error_handler_off();
    const int decomposed = gsl_linalg_cholesky_decomp1(&Sv.matrix) == GSL_SUCCESS;
    gsl_set_error_handler(handler);
    if (decomposed) {
        double w[SV_MAX_K];
        gsl_vector_view wv = gsl_vector_view_array(w, (size_t)df);
        gsl_linalg_cholesky_solve(&Sv.matrix, &zv.vector, &wv.vector);
        for (int32_t g = 0; g < df; g++)
            stat += z[g] * w[g];
    } else {
        /* a degenerate law (each step's depth certain given its tree, as on
         * a greedy target): exact, no statistic; a miss of more than the
         * fixed-point sums' rounding fails, a match is no test (n/a), so
         * that calibrate does not read its p = 1 as a seed ignored */
        for (int32_t g = 0; g < df; g++)
            stat = fabs(z[g]) > 1e-3 ? INFINITY : stat;
        if (stat == 0.0)
            return SV_OK;
    }
    const double p = isfinite(stat) ? gsl_cdf_chisq_Q(stat, df) : 0.0;
    ev->length = (sv_gof){stat, df, p, 0};
    ev->length_verdict = sv_verdict_of(p, split);
    if (ev->length_verdict > SV_PASS && ev->n_findings < SV_MAX_FINDINGS) {
        char *out = ev->findings[ev->n_findings++];
        int len = snprintf(out, SV_FINDING_LEN, "accepted depth given each step's tree: Wald "
                           "chi-square %.1f on %d df (p = %.3g); depth: observed vs expected",
                           stat, df, p);
        for (int32_t l = 0; l <= D && len > 0 && len < SV_FINDING_LEN; l++)
            len += snprintf(out + len, SV_FINDING_LEN - (size_t)len, "%s %d: %llu vs %.1f",
                            l ? "," : "", l, (unsigned long long)t->length[l], E[l]);
    }
    return SV_OK;
}
