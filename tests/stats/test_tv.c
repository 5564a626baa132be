/* test_tv.c: total variation and its threshold (harness/stats/stats.c) and
 * the verdicts (harness/stats/verdict.c), against brute-force sums, a
 * multinomial Monte Carlo and the formulas. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include "check.h"
#include "sv_base.h"
#include "sv_cases.h"
#include "sv_stats.h"

/* |a - b| <= rel |b| */
#define CHECK_REL(a, b, rel) CHECK_NEAR(a, b, (rel) * fabs((double)(b)))

/* ---- total variation ----------------------------------------------------------------------- */

/* E|X - Np| for X ~ Binomial(N, p) by summing over the pmf. */
static double mad_brute(unsigned N, double p)
{
    double s = 0.0;
    for (unsigned k = 0; k <= N; k++)
        s += gsl_ran_binomial_pdf(k, p, N) * fabs((double)k - (double)N * p);
    return s;
}

static double tv_expected_brute(const double *p, int V, unsigned N)
{
    double s = 0.0;
    for (int i = 0; i < V; i++)
        s += mad_brute(N, p[i]);
    return s / (2.0 * N);
}

static void test_tv(void)
{
    /* p = (0.5, 0.25, 0.25), counts (6, 1, 3) of N = 10:
     * TV = (|0.6-0.5| + |0.1-0.25| + |0.3-0.25|) / 2 = 0.15 */
    const double p[] = {0.5, 0.25, 0.25};
    const uint64_t c[] = {6, 1, 3}, same[] = {50, 25, 25}, one[] = {0, 10, 0};
    CHECK_NEAR(sv_tv(p, c, 3, 10), 0.15, 1e-15);
    CHECK_NEAR(sv_tv(p, same, 3, 100), 0.0, 1e-15);
    CHECK_NEAR(sv_tv(p, one, 3, 10), 0.75, 1e-15); /* (0.5 + 0.75 + 0.25) / 2 */
    feature("sv_tv: half the L1 distance of a tiny example");
}

static void test_tv_expected(void)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 12345);

    /* exact against a sum over the binomial pmf */
    double random20[20], alpha20[20];
    for (int i = 0; i < 20; i++)
        alpha20[i] = 0.5;
    gsl_ran_dirichlet(r, 20, alpha20, random20);
    const double fair[] = {0.5, 0.5}, four[] = {0.1, 0.2, 0.3, 0.4},
                 skew[] = {1e-4, 0.0999, 0.9}, thirds[] = {1.0 / 3, 1.0 / 3, 1.0 / 3};
    const struct {
        const double *p;
        int V;
    } dists[] = {{fair, 2}, {four, 4}, {skew, 3}, {thirds, 3}, {random20, 20}};
    const unsigned Ns[] = {1, 7, 30, 200};
    double worst = 0.0;
    for (size_t d = 0; d < sizeof dists / sizeof dists[0]; d++)
        for (size_t n = 0; n < sizeof Ns / sizeof Ns[0]; n++) {
            double got = sv_tv_expected(dists[d].p, dists[d].V, Ns[n]);
            double want = tv_expected_brute(dists[d].p, dists[d].V, Ns[n]);
            CHECK_REL(got, want, 1e-12);
            if (fabs(got - want) / want > worst)
                worst = fabs(got - want) / want;
        }
    printf("  exact E[TV] against the pmf sum: worst relative difference %.2g\n", worst);
    /* N = 1: E[TV] = sum p (1 - p) (one draw moves 1 - p_x) */
    CHECK_NEAR(sv_tv_expected(four, 4, 1), 0.1 * 0.9 + 0.2 * 0.8 + 0.3 * 0.7 + 0.4 * 0.6, 1e-14);
    const double point[] = {1.0, 0.0};
    CHECK(sv_tv_expected(point, 2, 100) == 0.0);
    CHECK(sv_tv_expected(fair, 2, 0) == 0.0);
    feature("sv_tv_expected: de Moivre's closed form equals the binomial sum (N = 1, 7, 30, 200)");

    /* Monte Carlo: V = 50, p ~ Dirichlet(1), N = 2000, R = 20000 multinomial
     * replicates. The mean of R TVs agrees with E[TV] within 4 standard
     * errors unless the closed form is wrong; by the CLT a correct one fails
     * with probability 2 (1 - Phi(4)) = 6.3e-5 over the choice of seed. */
    enum { V = 50, R = 20000 };
    const unsigned N = 2000;
    double p50[V], alpha[V];
    unsigned int counts[V];
    uint64_t c64[V];
    for (int i = 0; i < V; i++)
        alpha[i] = 1.0;
    gsl_ran_dirichlet(r, V, alpha, p50);
    double s = 0.0, s2 = 0.0;
    for (int rep = 0; rep < R; rep++) {
        gsl_ran_multinomial(r, V, N, p50, counts);
        for (int i = 0; i < V; i++)
            c64[i] = counts[i];
        double tv = sv_tv(p50, c64, V, N);
        s += tv;
        s2 += tv * tv;
    }
    double mean = s / R, sd = sqrt((s2 - s * mean) / (R - 1)), se = sd / sqrt((double)R);
    double exact = sv_tv_expected(p50, V, N);
    printf("  E[TV] V=%d N=%u: exact %.6f, Monte Carlo %.6f +- %.6f (%.2f se)\n", V, N, exact,
           mean, se, (mean - exact) / se);
    CHECK_NEAR(mean, exact, 4.0 * se);
    feature("sv_tv_expected: agrees with a multinomial Monte Carlo (V = 50, N = 2000)");

    /* large N: E|X - Np| -> sqrt(2 N p (1-p) / pi), so
     * E[TV] -> sum sqrt(p (1-p) / (2 pi N)) */
    const uint64_t bigN[] = {100000000ull, 10000000000ull};
    for (size_t n = 0; n < 2; n++) {
        double approx = 0.0;
        for (int i = 0; i < V; i++)
            approx += sqrt(p50[i] * (1.0 - p50[i]) / (2.0 * 3.14159265358979323846 * (double)bigN[n]));
        double got = sv_tv_expected(p50, V, bigN[n]);
        printf("  E[TV] N=%llu: exact %.6g, normal approximation %.6g\n",
               (unsigned long long)bigN[n], got, approx);
        CHECK_REL(got, approx, 0.01);
    }
    feature("sv_tv_expected: the normal approximation at large N (1e8, 1e10) within 1%");
    gsl_rng_free(r);
}

static void test_mcdiarmid(void)
{
    /* sqrt(ln(1/delta) / (2N)): N = 1000, delta = 1e-6: sqrt(13.8155.../2000) */
    CHECK_NEAR(sv_mcdiarmid_margin(1000, 1e-6), sqrt(13.815510557964274 / 2000.0), 1e-15);
    CHECK_NEAR(sv_mcdiarmid_margin(1000, 1e-6), 0.0831129, 1e-7);
    CHECK_NEAR(sv_mcdiarmid_margin(50, exp(-1.0)), 0.1, 1e-15); /* sqrt(1/100) */
    CHECK(isinf(sv_mcdiarmid_margin(0, 0.01)));

    /* p = exp(-2 N t^2) with t = TV - E[TV]: the inverse of the margin */
    CHECK_NEAR(sv_tv_pvalue(0.3, 0.2, 100), exp(-2.0), 1e-15); /* 2 * 100 * 0.01 */
    CHECK(sv_tv_pvalue(0.2, 0.2, 100) == 1.0);
    CHECK(sv_tv_pvalue(0.1, 0.2, 100) == 1.0);
    CHECK(sv_tv_pvalue(0.3, 0.2, 0) == 1.0);
    const uint64_t Ns[] = {100, 12345, 1000000};
    const double deltas[] = {0.5, 1e-3, 1e-8};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double e = 0.01, t = sv_mcdiarmid_margin(Ns[i], deltas[j]);
            CHECK_REL(sv_tv_pvalue(e + t, e, Ns[i]), deltas[j], 1e-9);
        }
    feature("sv_mcdiarmid_margin, sv_tv_pvalue: sqrt(ln(1/delta)/2N) and exp(-2 N t^2)");
}

/* ---- verdicts ---------------------------------------------------------------------------------- */

static void test_verdicts(void)
{
    CHECK_REL(sv_bonferroni(1e-6, 100), 1e-8, 1e-15);
    CHECK_REL(sv_bonferroni(0.05, 7), 0.05 / 7, 1e-15);
    CHECK(sv_bonferroni(1e-6, 1) == 1e-6);
    CHECK(sv_bonferroni(1e-6, 0) == 1e-6);

    /* per position chi-square, G, TV (K + 1 positions); per case the
     * acceptance length and two independence tests */
    CHECK(sv_tests_per_case(&(sv_case){.K = 1}) == 9);
    CHECK(sv_tests_per_case(&(sv_case){.K = 4}) == 18);
    CHECK(sv_tests_per_case(&(sv_case){.K = 8}) == 30);

    const double split = 1e-8;
    CHECK(sv_verdict_of(0.0, split) == SV_FAIL);
    CHECK(sv_verdict_of(1e-9, split) == SV_FAIL);
    CHECK(sv_verdict_of(nextafter(split, 0.0), split) == SV_FAIL);
    CHECK(sv_verdict_of(split, split) == SV_SUSPECT); /* FAIL is strictly below */
    CHECK(sv_verdict_of(5e-4, split) == SV_SUSPECT);
    CHECK(sv_verdict_of(nextafter(SV_SUSPECT_P, 0.0), split) == SV_SUSPECT);
    CHECK(sv_verdict_of(SV_SUSPECT_P, split) == SV_PASS); /* SUSPECT is strictly below */
    CHECK(sv_verdict_of(0.5, split) == SV_PASS);
    CHECK(sv_verdict_of(1.0, split) == SV_PASS);
    /* a split above the suspect level: below it is FAIL, never SUSPECT */
    CHECK(sv_verdict_of(5e-3, 1e-2) == SV_FAIL);
    CHECK(sv_verdict_of(2e-2, 1e-2) == SV_PASS);

    CHECK(sv_verdict_worst(SV_PASS, SV_FAIL) == SV_FAIL);
    CHECK(sv_verdict_worst(SV_FAIL, SV_SUSPECT) == SV_FAIL);
    CHECK(sv_verdict_worst(SV_SUSPECT, SV_PASS) == SV_SUSPECT);
    CHECK(sv_verdict_worst(SV_NA, SV_PASS) == SV_PASS);
    CHECK(sv_verdict_worst(SV_SUSPECT, SV_NA) == SV_SUSPECT);
    CHECK(sv_verdict_worst(SV_NA, SV_NA) == SV_NA);
    CHECK(sv_verdict_worst(SV_PASS, SV_PASS) == SV_PASS);
    feature("sv_bonferroni, sv_verdict_of, sv_verdict_worst, sv_tests_per_case");
}


int main(void)
{
    test_tv();
    test_tv_expected();
    test_mcdiarmid();
    test_verdicts();
    return check_exit();
}
