/* test_stats.c: the statistics of harness/stats.c, the bins of
 * harness/contingency.c and the verdicts of harness/verdict.c, each against
 * values computed another way (published tables, formulas worked by hand,
 * brute-force sums, Monte Carlo). */
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

/* A pooled set made by hand: nbins bins, no tail. */
static sv_pooled by_hand(int32_t nbins, int32_t *token, double *expected, double *observed)
{
    for (int32_t j = 0; j < nbins; j++)
        token[j] = j;
    return (sv_pooled){.nbins = nbins, .token = token, .expected = expected, .observed = observed};
}

/* ---- chi-square p-values against a published table ----------------------------- */

/* Upper 5% and 1% points of chi-square (e.g. Abramowitz & Stegun table 26.8,
 * NIST/SEMATECH e-Handbook 1.3.6.7.4), to the table's three decimals. */
static void test_chisq_table(void)
{
    static const struct {
        int32_t df;
        double x, p;
    } table[] = {
        {10, 18.307, 0.05}, {1, 3.841, 0.05}, {1, 6.635, 0.01}, {2, 5.991, 0.05},
        {2, 9.210, 0.01},   {5, 11.070, 0.05}, {20, 31.410, 0.05}, {20, 37.566, 0.01},
    };
    for (size_t t = 0; t < sizeof table / sizeof table[0]; t++) {
        /* df + 1 bins expected 1 each; one bin off by sqrt(x) makes X^2 = x */
        int32_t nbins = table[t].df + 1, token[32];
        double expected[32], observed[32];
        for (int32_t j = 0; j < nbins; j++)
            expected[j] = observed[j] = 1.0;
        observed[0] = 1.0 + sqrt(table[t].x);
        sv_pooled pooled = by_hand(nbins, token, expected, observed);
        sv_gof g = sv_pearson(&pooled);
        CHECK(g.df == table[t].df);
        CHECK_NEAR(g.stat, table[t].x, 1e-12);
        CHECK_NEAR(g.p, table[t].p, 1e-4);
    }
    feature("sv_pearson: p-values of chi-square at published quantiles (18.307, 10 df -> 0.05)");
}

/* ---- Pearson and G on a small example worked by hand ------------------------------ */

static void test_pearson_gtest(void)
{
    /* p = (0.2, 0.5, 0.3), N = 100, counts (20, 45, 35): sorted by p the bins
     * are tokens 1, 2, 0 with expected 50, 30, 20 and observed 45, 35, 20.
     *   X^2 = (45-50)^2/50 + (35-30)^2/30 + 0 = 0.5 + 0.8333... = 4/3
     *   G   = 2 (45 ln(45/50) + 35 ln(35/30) + 20 ln 1) = 1.30810...,
     *         over Williams' q = 1 + (sum 1/p - 1) / (6 N df)
     *           = 1 + (100 (1/50 + 1/30 + 1/20) - 1) / 1200 = 1.0077777...
     * df 2, and with 2 df the chi-square tail is exp(-x/2). */
    const double p[] = {0.2, 0.5, 0.3};
    const uint64_t counts[] = {20, 45, 35};
    sv_pooled pooled;
    CHECK(sv_pool(p, counts, 3, 100, 5.0, &pooled) == SV_OK);
    CHECK(pooled.nbins == 3);
    CHECK(pooled.token[0] == 1 && pooled.token[1] == 2 && pooled.token[2] == 0);
    CHECK_NEAR(pooled.expected[0], 50.0, 1e-12);
    CHECK_NEAR(pooled.expected[1], 30.0, 1e-12);
    CHECK_NEAR(pooled.expected[2], 20.0, 1e-12);
    CHECK(pooled.observed[0] == 45.0 && pooled.observed[1] == 35.0 && pooled.observed[2] == 20.0);
    CHECK(pooled.tail_mass == 0.0 && pooled.tail_categories == 0 && !pooled.exact_tail);

    sv_gof x2 = sv_pearson(&pooled);
    CHECK(x2.df == 2);
    CHECK_NEAR(x2.stat, 4.0 / 3.0, 1e-12);
    CHECK_NEAR(x2.p, exp(-2.0 / 3.0), 1e-12); /* 0.513417... */
    CHECK_NEAR(x2.p, 0.513417119032592, 1e-12);

    sv_gof g = sv_gtest(&pooled);
    double g_hand = 2.0 * (45.0 * log(0.9) + 35.0 * log(7.0 / 6.0)) / (1.0 + 28.0 / 3600.0);
    CHECK(g.df == 2);
    CHECK_NEAR(g.stat, g_hand, 1e-12);
    CHECK_NEAR(g.stat, 1.3081012 / 1.0077778, 1e-6);
    CHECK_NEAR(g.p, exp(-g_hand / 2.0), 1e-12);
    sv_pooled_free(&pooled);

    /* observed = expected: both statistics 0, p 1 */
    const uint64_t exact[] = {20, 50, 30};
    CHECK(sv_pool(p, exact, 3, 100, 5.0, &pooled) == SV_OK);
    x2 = sv_pearson(&pooled);
    g = sv_gtest(&pooled);
    CHECK_NEAR(x2.stat, 0.0, 1e-12);
    CHECK_NEAR(g.stat, 0.0, 1e-12);
    CHECK(g.stat >= 0.0);
    CHECK_NEAR(x2.p, 1.0, 1e-12);
    CHECK_NEAR(g.p, 1.0, 1e-12);
    sv_pooled_free(&pooled);

    /* an empty bin counts in X^2 (e^2/e = e) and not in G (0 ln 0 = 0):
     * p = (0.5, 0.5), N = 40, counts (40, 0): X^2 = 400/20 * 2 = 40,
     * G = 2 * 40 ln 2 = 55.45..., df 1 */
    const double half[] = {0.5, 0.5};
    const uint64_t lopsided[] = {40, 0};
    CHECK(sv_pool(half, lopsided, 2, 40, 5.0, &pooled) == SV_OK);
    x2 = sv_pearson(&pooled);
    g = sv_gtest(&pooled);
    CHECK(x2.df == 1 && g.df == 1);
    CHECK_NEAR(x2.stat, 40.0, 1e-12);
    CHECK_NEAR(g.stat, 80.0 * log(2.0) / (1.0 + (40.0 * 0.1 - 1.0) / 240.0), 1e-12);
    CHECK_REL(x2.p, gsl_cdf_chisq_Q(40.0, 1), 1e-12);
    CHECK_REL(x2.p, erfc(sqrt(20.0)), 1e-9); /* 1 df: P(Z^2 > x) = erfc(sqrt(x/2)) */
    sv_pooled_free(&pooled);

    /* fewer than two bins: no test */
    const double one[] = {1.0};
    const uint64_t all[] = {100};
    CHECK(sv_pool(one, all, 1, 100, 5.0, &pooled) == SV_OK);
    CHECK(pooled.nbins == 1);
    x2 = sv_pearson(&pooled);
    g = sv_gtest(&pooled);
    CHECK(x2.df == 0 && x2.p == 1.0 && g.df == 0 && g.p == 1.0);
    sv_pooled_free(&pooled);
    feature("sv_pearson, sv_gtest: statistics and p-values of hand-worked examples");

    /* Williams' correction puts the mean of G at its df: the exact mean over
     * every outcome of a binomial table, n = 20 and 60 (uncorrected: 1.0270
     * and 1.0109, about 1/(6E) too much per bin; corrected 1.0019, 1.0004) */
    const struct { unsigned n; double p; } tables[] = {{20, 0.5}, {60, 0.3}};
    for (int t = 0; t < 2; t++) {
        const double pp[] = {tables[t].p, 1.0 - tables[t].p};
        double mean = 0.0;
        for (unsigned o = 0; o <= tables[t].n; o++) {
            const uint64_t c[] = {o, tables[t].n - o};
            CHECK(sv_pool(pp, c, 2, tables[t].n, 5.0, &pooled) == SV_OK);
            mean += gsl_ran_binomial_pdf(o, tables[t].p, tables[t].n) * sv_gtest(&pooled).stat;
            sv_pooled_free(&pooled);
        }
        CHECK_NEAR(mean, 1.0, 0.003);
    }
    feature("sv_gtest: Williams' correction, mean of G = df to 0.3% on small tables");
}

/* ---- pooling ------------------------------------------------------------------------ */

static double sum_observed(const sv_pooled *pl)
{
    double s = 0.0;
    for (int32_t j = 0; j < pl->nbins; j++)
        s += pl->observed[j];
    return s;
}

/* P(X >= k) for X ~ Poisson(mu), by 1 - sum_{i<k} of the pmf (recurrence). */
static double poisson_at_least(unsigned k, double mu)
{
    double term = exp(-mu), below = 0.0;
    for (unsigned i = 0; i < k; i++) {
        below += term;
        term *= mu / (i + 1.0);
    }
    return 1.0 - below;
}

static void test_pool(void)
{
    sv_pooled pl;

    /* kept and tail: N = 1000, min_expected 10. Expected 400, 300, 200, 80
     * kept; 6, 5, 4, 3, 2 (each < 10) pooled: tail mass 0.02, expected 20. */
    {
        const double p[] = {0.005, 0.3, 0.002, 0.4, 0.006, 0.08, 0.003, 0.2, 0.004};
        const uint64_t c[] = {4, 310, 1, 395, 9, 77, 2, 197, 5};
        CHECK(sv_pool(p, c, 9, 1000, 10.0, &pl) == SV_OK);
        CHECK(pl.nbins == 5);
        CHECK(pl.token[0] == 3 && pl.token[1] == 1 && pl.token[2] == 7 && pl.token[3] == 5);
        CHECK(pl.token[4] == -1);
        CHECK_NEAR(pl.expected[0], 400.0, 1e-9);
        CHECK_NEAR(pl.expected[3], 80.0, 1e-9);
        CHECK(pl.observed[0] == 395 && pl.observed[1] == 310 && pl.observed[2] == 197 &&
              pl.observed[3] == 77);
        CHECK_NEAR(pl.tail_mass, 0.02, 1e-12);
        CHECK(pl.tail_categories == 5);
        CHECK_NEAR(pl.expected[4], 20.0, 1e-9);
        CHECK(pl.observed[4] == 4 + 1 + 9 + 2 + 5);
        CHECK(!pl.exact_tail && pl.stray == 0);
        CHECK(sum_observed(&pl) == 1000.0);
        /* X^2 by hand: 25/400 + 100/300 + 9/200 + 9/80 + 1/20, df 4 */
        sv_gof g = sv_pearson(&pl);
        double x2 = 25.0 / 400 + 100.0 / 300 + 9.0 / 200 + 9.0 / 80 + 1.0 / 20;
        CHECK(g.df == 4);
        CHECK_NEAR(g.stat, x2, 1e-12);
        CHECK_REL(g.p, gsl_cdf_chisq_Q(x2, 4), 1e-12);
        /* 4 df: Q(x) = exp(-x/2) (1 + x/2) */
        CHECK_REL(g.p, exp(-x2 / 2.0) * (1.0 + x2 / 2.0), 1e-12);
        sv_pooled_free(&pl);
    }

    /* a tail too small merges the smallest kept bin: expected 500, 300, 150,
     * 45 kept, tail 3 + 2 = 5 < 10; with the 45 it holds 50. */
    {
        const double p[] = {0.5, 0.3, 0.15, 0.045, 0.003, 0.002};
        const uint64_t c[] = {490, 305, 150, 48, 5, 2};
        CHECK(sv_pool(p, c, 6, 1000, 10.0, &pl) == SV_OK);
        CHECK(pl.nbins == 4);
        CHECK(pl.token[0] == 0 && pl.token[1] == 1 && pl.token[2] == 2 && pl.token[3] == -1);
        CHECK_NEAR(pl.tail_mass, 0.05, 1e-12);
        CHECK(pl.tail_categories == 3);
        CHECK_NEAR(pl.expected[3], 50.0, 1e-9);
        CHECK(pl.observed[3] == 55.0);
        CHECK(!pl.exact_tail);
        CHECK(pl.expected[3] >= 10.0);
        sv_pooled_free(&pl);
    }

    /* one large bin against a rare tail: expected 996 kept; the tail (2 + 1 +
     * 1 = 4 < 10) cannot take the only kept bin, so it is tested exactly:
     * p = P(X >= observed), X ~ Poisson(4). */
    {
        const double p[] = {0.001, 0.996, 0.002, 0.001};
        const uint64_t c[] = {3, 985, 7, 5};
        CHECK(sv_pool(p, c, 4, 1000, 10.0, &pl) == SV_OK);
        CHECK(pl.nbins == 2);
        CHECK(pl.token[0] == 1 && pl.token[1] == -1);
        CHECK(pl.exact_tail);
        CHECK_NEAR(pl.tail_mass, 0.004, 1e-12);
        CHECK(pl.tail_categories == 3);
        CHECK_NEAR(pl.expected[1], 4.0, 1e-9);
        CHECK(pl.observed[1] == 15.0);
        sv_gof g = sv_pearson(&pl), G = sv_gtest(&pl);
        double exact = gsl_cdf_poisson_Q(14, 4.0); /* P(X > 14) = P(X >= 15) */
        CHECK(g.df == 1 && G.df == 1);
        CHECK_REL(g.p, exact, 1e-12);
        CHECK_REL(G.p, exact, 1e-12);
        CHECK_REL(g.p, poisson_at_least(15, 4.0), 1e-8); /* ~ 2.2e-5 */
        /* X^2 is still reported: 121/996 + 121/4 */
        CHECK_NEAR(g.stat, 121.0 / 996.0 + 121.0 / 4.0, 1e-12);
        sv_pooled_free(&pl);

        /* one over: P(X >= 5) = 0.3711... */
        const uint64_t c5[] = {2, 995, 2, 1};
        CHECK(sv_pool(p, c5, 4, 1000, 10.0, &pl) == SV_OK);
        CHECK(pl.exact_tail && pl.observed[1] == 5.0);
        CHECK_REL(sv_pearson(&pl).p, gsl_cdf_poisson_Q(4, 4.0), 1e-12);
        CHECK_REL(sv_pearson(&pl).p, poisson_at_least(5, 4.0), 1e-10);
        sv_pooled_free(&pl);

        /* too few in the rare tail is no evidence: p = 1 for none at all
         * (P(X >= 0) = 1), and never below P(X >= observed) */
        const uint64_t c0[] = {0, 1000, 0, 0}, c3[] = {1, 997, 1, 1};
        CHECK(sv_pool(p, c0, 4, 1000, 10.0, &pl) == SV_OK);
        CHECK(pl.exact_tail && sv_pearson(&pl).p == 1.0 && sv_gtest(&pl).p == 1.0);
        sv_pooled_free(&pl);
        CHECK(sv_pool(p, c3, 4, 1000, 10.0, &pl) == SV_OK);
        CHECK(sv_pearson(&pl).p >= poisson_at_least(3, 4.0));
        sv_pooled_free(&pl);
    }

    /* every category below min_expected: one bin, no test */
    {
        double p[200];
        uint64_t c[200];
        for (int i = 0; i < 200; i++) {
            p[i] = 1.0 / 200;
            c[i] = 5;
        }
        CHECK(sv_pool(p, c, 200, 1000, 10.0, &pl) == SV_OK);
        CHECK(pl.nbins == 1 && pl.token[0] == -1 && pl.tail_categories == 200);
        CHECK_NEAR(pl.tail_mass, 1.0, 1e-12);
        CHECK(pl.observed[0] == 1000.0);
        sv_gof g = sv_pearson(&pl);
        CHECK(g.df == 0 && g.p == 1.0);
        sv_pooled_free(&pl);
    }

    /* categories of probability 0 are in no bin; their draws are stray */
    {
        const double p[] = {0.5, 0.0, 0.5, 0.0};
        const uint64_t c[] = {480, 7, 510, 3};
        CHECK(sv_pool(p, c, 4, 1000, 10.0, &pl) == SV_OK);
        CHECK(pl.stray == 10);
        CHECK(pl.nbins == 2 && pl.tail_mass == 0.0 && pl.tail_categories == 0);
        CHECK(pl.token[0] == 0 && pl.token[1] == 2); /* ties: lower token first */
        CHECK(sum_observed(&pl) == 990.0);
        sv_pooled_free(&pl);
    }
    feature("sv_pool: sorted bins, tail pooling and merging, exact Poisson tail, stray draws");
}

/* ---- independence ---------------------------------------------------------------------- */

static void test_independence(void)
{
    /* rows (10 20 30 | 20 20 20): row sums 60 60, column sums 30 40 50, total
     * 120; expected 15 20 25 in both rows.
     * X^2 = 2 (25/15 + 0 + 25/25) = 16/3, df (2-1)(3-1) = 2, p = exp(-8/3). */
    const uint64_t t[] = {10, 20, 30, 20, 20, 20};
    sv_gof g = sv_independence(t, 2, 3);
    CHECK(g.df == 2);
    CHECK_NEAR(g.stat, 16.0 / 3.0, 1e-12);
    CHECK_NEAR(g.p, exp(-8.0 / 3.0), 1e-12); /* 0.0694835 */

    /* the same inside a 3 x 4 table with an empty row and an empty column */
    const uint64_t z[] = {10, 0, 20, 30, 0, 0, 0, 0, 20, 0, 20, 20};
    sv_gof gz = sv_independence(z, 3, 4);
    CHECK(gz.df == 2);
    CHECK_NEAR(gz.stat, 16.0 / 3.0, 1e-12);
    CHECK_NEAR(gz.p, g.p, 1e-12);

    /* 2 x 2 (30 10 | 10 30): expected 20 everywhere, X^2 = 4 * 100/20 = 20,
     * df 1, p = erfc(sqrt(10)) */
    const uint64_t s[] = {30, 10, 10, 30};
    sv_gof g2 = sv_independence(s, 2, 2);
    CHECK(g2.df == 1);
    CHECK_NEAR(g2.stat, 20.0, 1e-12);
    CHECK_REL(g2.p, erfc(sqrt(10.0)), 1e-9);

    /* exactly independent: X^2 = 0, p = 1 */
    const uint64_t ind[] = {10, 20, 30, 20, 40, 60};
    sv_gof gi = sv_independence(ind, 2, 3);
    CHECK(gi.df == 2);
    CHECK_NEAR(gi.stat, 0.0, 1e-12);
    CHECK_NEAR(gi.p, 1.0, 1e-12);

    /* one nonzero row or nothing at all: no test */
    const uint64_t one_row[] = {0, 0, 0, 5, 6, 7}, none[] = {0, 0, 0, 0};
    sv_gof g1 = sv_independence(one_row, 2, 3), g0 = sv_independence(none, 2, 2);
    CHECK(g1.df == 0 && g1.p == 1.0);
    CHECK(g0.df == 0 && g0.p == 1.0);
    feature("sv_independence: X^2 and df (r-1)(c-1), empty rows and columns dropped");
}

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

/* ---- bins for contingency tables ----------------------------------------------------------------- */

/* Checks the bins of one side for `dist`, returns the number of
 * single-token (top) bins. */
static int32_t check_side(const double *dist, int32_t V, const sv_binmap *b)
{
    double bin_sum[16] = {0};
    int32_t members[16] = {0}, top = 0;
    CHECK(b->nbins >= 2 && b->nbins <= 13);
    if (b->nbins < 2 || b->nbins > 13)
        return 0;
    for (int32_t i = 0; i < V; i++) {
        if (dist[i] <= 0.0) {
            CHECK(b->bin[i] == -1);
            continue;
        }
        CHECK(b->bin[i] >= 0 && b->bin[i] < b->nbins);
        if (b->bin[i] >= 0 && b->bin[i] < b->nbins) {
            bin_sum[b->bin[i]] += dist[i];
            members[b->bin[i]]++;
        }
    }
    double total = 0.0, least_top = 1.0;
    for (int32_t j = 0; j < b->nbins; j++) {
        CHECK_NEAR(b->mass[j], bin_sum[j], 1e-12);
        total += b->mass[j];
        if (members[j] == 1 && j < 12) {
            top++;
            if (b->mass[j] < least_top)
                least_top = b->mass[j];
        }
    }
    CHECK_NEAR(total, 1.0, 1e-9);
    CHECK(top <= 12);
    /* the top bins hold the most probable tokens: nothing outside them is
     * more probable than the least of them */
    for (int32_t i = 0; i < V; i++)
        if (dist[i] > 0.0 && b->bin[i] >= top)
            CHECK(dist[i] <= least_top);
    return top;
}

/* The smallest bin of `dist` with its m most probable tokens kept apart. */
static double smallest_with(const double *dist, int32_t V, int32_t m)
{
    double sorted[64];
    int32_t n = 0;
    for (int32_t i = 0; i < V; i++)
        if (dist[i] > 0.0)
            sorted[n++] = dist[i];
    for (int32_t i = 1; i < n; i++) /* insertion sort, descending */
        for (int32_t j = i; j > 0 && sorted[j - 1] < sorted[j]; j--) {
            double t = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = t;
        }
    if (m > n)
        m = n;
    double tail = 0.0;
    for (int32_t i = m; i < n; i++)
        tail += sorted[i];
    double s = sorted[m - 1];
    return tail > 1e-12 && tail < s ? tail : s;
}

static void test_pair_bins(void)
{
    enum { V = 40 };
    double rows[V] = {0}, cols[V] = {0}, rs = 0.0, cs = 0.0;
    /* rows: geometric 0.8^j on 30 scattered tokens; cols: 1/(j+1) on 25
     * others; the rest of each has zero mass */
    for (int32_t j = 0; j < 30; j++)
        rs += rows[(j * 7) % V] = pow(0.8, j);
    for (int32_t j = 0; j < 25; j++)
        cs += cols[(j * 3 + 1) % V] = 1.0 / (j + 1);
    for (int32_t i = 0; i < V; i++) {
        rows[i] /= rs;
        cols[i] /= cs;
    }
    const double pairs_list[] = {1e5, 3000, 300};
    for (size_t t = 0; t < 3; t++) {
        double pairs = pairs_list[t];
        sv_binmap rb, cb;
        int rc = sv_pair_bins(rows, cols, V, pairs, &rb, &cb);
        CHECK(rc == 0);
        if (rc != 0)
            continue;
        int32_t rtop = check_side(rows, V, &rb), ctop = check_side(cols, V, &cb);
        /* every expected cell >= 5 */
        for (int32_t a = 0; a < rb.nbins; a++)
            for (int32_t b = 0; b < cb.nbins; b++)
                CHECK(pairs * rb.mass[a] * cb.mass[b] >= 5.0);
        /* as many as keep the cells >= 5: one more top token breaks it */
        int32_t m = rtop > ctop ? rtop : ctop;
        if (m < 12)
            CHECK(pairs * smallest_with(rows, V, m + 1) * smallest_with(cols, V, m + 1) < 5.0);
        printf("  pairs %g: %d x %d bins (%d + %d top tokens)\n", pairs, rb.nbins, cb.nbins, rtop,
               ctop);
        if (pairs == 1e5) /* large enough for all 12 on both sides, plus tails */
            CHECK(rb.nbins == 13 && cb.nbins == 13 && rtop == 12 && ctop == 12);
        sv_binmap_free(&rb);
        sv_binmap_free(&cb);
    }

    /* uniform over 100: 12 tops of 0.01 and a tail need pairs * 1e-4 >= 5 */
    double uni[100];
    for (int i = 0; i < 100; i++)
        uni[i] = 0.01;
    sv_binmap rb, cb;
    CHECK(sv_pair_bins(uni, uni, 100, 1e5, &rb, &cb) == 0);
    CHECK(rb.nbins == 13 && cb.nbins == 13);
    check_side(uni, 100, &rb);
    sv_binmap_free(&rb);
    sv_binmap_free(&cb);
    CHECK(sv_pair_bins(uni, uni, 100, 4e4, &rb, &cb) == 1); /* 4e4 * 1e-4 = 4 < 5 */
    CHECK(rb.bin == NULL && cb.bin == NULL && rb.nbins == 0);

    /* few tokens, no tail: 2 x 3 bins; cells 100 * 1/2 * 1/3 = 16.7 */
    double two[5] = {0.5, 0.0, 0.5, 0.0, 0.0}, three[5] = {0.0, 1.0 / 3, 1.0 / 3, 0.0, 1.0 / 3};
    CHECK(sv_pair_bins(two, three, 5, 100, &rb, &cb) == 0);
    CHECK(rb.nbins == 2 && cb.nbins == 3);
    CHECK(rb.bin[1] == -1 && rb.bin[3] == -1 && rb.bin[4] == -1);
    CHECK(rb.bin[0] == 0 && rb.bin[2] == 1);
    CHECK(cb.bin[0] == -1 && cb.bin[3] == -1);
    sv_binmap_free(&rb);
    sv_binmap_free(&cb);
    CHECK(sv_pair_bins(two, three, 5, 25, &rb, &cb) == 1); /* 25/6 = 4.2 < 5 */

    /* one-hot: no 2 x 2 table at any number of pairs */
    double hot[5] = {0.0, 0.0, 1.0, 0.0, 0.0};
    CHECK(sv_pair_bins(hot, three, 5, 1e12, &rb, &cb) == 1);
    CHECK(sv_pair_bins(three, hot, 5, 1e12, &rb, &cb) == 1);
    feature("sv_pair_bins: top tokens plus a tail, cells >= 5, zero mass outside, 1 if impossible");
}

int main(void)
{
    test_chisq_table();
    test_pearson_gtest();
    test_pool();
    test_independence();
    test_tv();
    test_tv_expected();
    test_mcdiarmid();
    test_verdicts();
    test_pair_bins();
    return check_exit();
}
