/* test_stats.c: goodness of fit (harness/stats/stats.c): chi-square
 * p-values against a published table, Pearson and G on examples worked by
 * hand, and the pooling of categories, each against values computed
 * another way. (TV and verdicts: test_tv.c; contingency: test_contingency.c.) */
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


int main(void)
{
    test_chisq_table();
    test_pearson_gtest();
    test_pool();
    return check_exit();
}
