/* test_power.c: the power formula and the uniformity tests, each against an
 * independent computation: closed forms, published tables, a Monte Carlo
 * estimate with a fixed seed, and hand-derived output distributions. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include "check.h"
#include "sv_base.h"
#include "sv_cases.h"
#include "sv_stats.h"

#define CHECK_REL(a, b, rel) CHECK_NEAR(a, b, (rel) * fabs((double)(b)))

/* df = 1: X = (Z + sqrt(lambda))^2, so P(X > c) = Q(sqrt c - mu) + Q(sqrt c + mu). */
static double ncx2_tail_df1(double c, double lambda)
{
    double mu = sqrt(lambda), r = sqrt(c);
    return gsl_cdf_ugaussian_Q(r - mu) + gsl_cdf_ugaussian_Q(r + mu);
}

static void test_ncx2(void)
{
    const double cs[] = {0.5, 3.841458820694124, 10.0, 28.37399, 60.0};
    const double lambdas[] = {0.0, 0.3, 5.0, 30.0, 100.0, 2500.0};
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 6; j++) {
            double want = ncx2_tail_df1(cs[i], lambdas[j]), got = sv_ncx2_tail(cs[i], 1, lambdas[j]);
            CHECK_NEAR(got, want, 1e-12 + 1e-9 * want);
        }
    /* lambda = 0 is the central tail */
    CHECK_REL(sv_ncx2_tail(11.07049769, 5, 0.0), 0.05, 1e-8);
    feature("sv_ncx2_tail: df = 1 against the normal closed form, lambda 0 to 2500");

    /* df = 5, lambda = 7: Monte Carlo of sum (Z_i + mu_i)^2 with sum mu_i^2 = 7.
     * 400000 draws; the tolerance is 5 binomial standard errors (false alarm 6e-7). */
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 20261122);
    const int n = 400000;
    const double mu[5] = {sqrt(3.0), sqrt(2.0), 1.0, 1.0, 0.0}; /* 3 + 2 + 1 + 1 = 7 */
    const double c[3] = {8.0, 15.0, 25.0};
    int above[3] = {0, 0, 0};
    for (int s = 0; s < n; s++) {
        double x = 0.0;
        for (int i = 0; i < 5; i++) {
            double z = gsl_ran_gaussian_ziggurat(r, 1.0) + mu[i];
            x += z * z;
        }
        for (int j = 0; j < 3; j++)
            above[j] += x > c[j];
    }
    for (int j = 0; j < 3; j++) {
        double got = sv_ncx2_tail(c[j], 5, 7.0), mc = (double)above[j] / n;
        double se = sqrt(got * (1.0 - got) / n);
        printf("  P(ncx2(5, 7) > %g): formula %.6f, Monte Carlo %.6f (%.2f se)\n", c[j], got, mc,
               (mc - got) / se);
        CHECK_NEAR(mc, got, 5.0 * se);
    }
    gsl_rng_free(r);
    feature("sv_ncx2_tail: df = 5, lambda = 7 against a Monte Carlo estimate");

    /* past lambda = 1e8 the normal limit: mean df + lambda, variance 2 (df + 2 lambda) */
    double sd = sqrt(2.0 * (3.0 + 4e8));
    CHECK_NEAR(sv_ncx2_tail(3.0 + 2e8 + sd, 3, 2e8), gsl_cdf_ugaussian_Q(1.0), 1e-12);
    CHECK_NEAR(sv_ncx2_tail(3.0 + 2e8 - 2.0 * sd, 3, 2e8), gsl_cdf_ugaussian_P(2.0), 1e-12);
    feature("sv_ncx2_tail: the normal limit for huge lambda");
}

static void test_power_chi2(void)
{
    /* no effect: the power is the false-alarm rate */
    for (int32_t df = 1; df <= 40; df += 13)
        CHECK_REL(sv_power_chi2(df, 0.0, 1e-6), 1e-6, 1e-6);
    /* df = 1 at alpha 0.05 and lambda = (1.96 + 0.8416)^2: the textbook 80% */
    CHECK_NEAR(sv_power_chi2(1, pow(1.959964 + 0.841621, 2), 0.05), 0.80, 1e-4);
    /* the smallest detectable w^2 gives back the power asked for */
    const int32_t dfs[] = {1, 4, 30, 500};
    const double powers[] = {0.5, 0.99, 1.0 - 1e-6};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 3; j++) {
            double w2 = sv_min_detectable_w2(dfs[i], 100000, 1e-8, powers[j]);
            CHECK_NEAR(sv_power_chi2(dfs[i], 100000 * w2, 1e-8), powers[j], 1e-6);
        }
    CHECK(isinf(sv_min_detectable_w2(0, 1000, 1e-6, 0.5)));
    feature("sv_power_chi2, sv_min_detectable_w2: alpha at no effect, 80% textbook, inverse");
}

static void test_kolmogorov(void)
{
    /* the asymptotic Kolmogorov table: P(K > 1.3581) = 0.05, 1.6276: 0.01,
     * 1.9495: 0.001 (e.g. Smirnov 1948; every statistics table) */
    CHECK_NEAR(sv_kolmogorov_q(1.3581), 0.05, 5e-5);
    CHECK_NEAR(sv_kolmogorov_q(1.6276), 0.01, 1e-5);
    CHECK_NEAR(sv_kolmogorov_q(1.9495), 0.001, 1e-6);
    CHECK(sv_kolmogorov_q(0.1) == 1.0);
    CHECK(sv_kolmogorov_q(10.0) < 1e-80);
    feature("sv_kolmogorov_q: the published critical values 1.358, 1.628, 1.950");

    /* a perfect grid: D = 1/(2n), p near 1; squared uniforms: far from uniform */
    enum { n = 1000 };
    double v[n];
    for (int i = 0; i < n; i++)
        v[n - 1 - i] = (i + 0.5) / n; /* reversed: the test sorts */
    sv_gof ks = sv_ks_uniform(v, n);
    CHECK_NEAR(ks.stat, 0.5 / n, 1e-15);
    CHECK(ks.p > 0.999);
    for (int i = 0; i < n; i++)
        v[i] = ((i + 0.5) / n) * ((i + 0.5) / n);
    ks = sv_ks_uniform(v, n);
    CHECK_NEAR(ks.stat, 0.25, 1e-3); /* max of u - u^2 */
    CHECK(ks.p < 1e-50);
    feature("sv_ks_uniform: a perfect grid passes, squared uniforms fail");

    /* 10 bins: 100 values all in the first bin give X^2 = 90^2/10 + 9 * 10 = 900 */
    uint64_t counts[10];
    double w[100];
    for (int i = 0; i < 100; i++)
        w[i] = 0.05;
    sv_gof x2 = sv_chi2_uniform_bins(w, 100, 10, counts);
    CHECK(counts[0] == 100 && counts[9] == 0);
    CHECK_NEAR(x2.stat, 900.0, 1e-9);
    CHECK(x2.df == 9);
    for (int i = 0; i < 100; i++)
        w[i] = (i + 0.5) / 100.0; /* ten per bin: X^2 = 0 */
    x2 = sv_chi2_uniform_bins(w, 100, 10, counts);
    CHECK_NEAR(x2.stat, 0.0, 1e-12);
    CHECK_NEAR(x2.p, 1.0, 1e-12);
    w[0] = 1.0; /* a p-value of exactly 1 lands in the last bin */
    sv_chi2_uniform_bins(w, 100, 10, counts);
    CHECK(counts[0] == 9 && counts[9] == 11);
    feature("sv_chi2_uniform_bins: hand-counted examples");

    /* Clopper-Pearson, 95%: x = 0 of 10: [0, 1 - 0.025^(1/10)];
     * x = 5 of 10: [0.187086, 0.812914] (tables) */
    double lo, hi;
    CHECK(sv_binomial_interval(0, 10, 0.95, &lo, &hi) == SV_OK);
    CHECK(lo == 0.0);
    CHECK_NEAR(hi, 1.0 - pow(0.025, 0.1), 1e-10);
    CHECK(sv_binomial_interval(10, 10, 0.95, &lo, &hi) == SV_OK);
    CHECK_NEAR(lo, pow(0.025, 0.1), 1e-10);
    CHECK(hi == 1.0);
    CHECK(sv_binomial_interval(5, 10, 0.95, &lo, &hi) == SV_OK);
    CHECK_NEAR(lo, 0.187086, 1e-6);
    CHECK_NEAR(hi, 0.812914, 1e-6);
    feature("sv_binomial_interval: Clopper-Pearson against closed forms and tables");
}

static sv_case *build(const char *spec)
{
    sv_case *c = NULL;
    char err[512];
    if (sv_case_from_spec(spec, &c, err, sizeof err) != 0)
        fprintf(stderr, "  %s\n", err);
    return c;
}

static void test_predict(void)
{
    /* resample_from_p on two tokens, derived by hand: position 1 emits
     * min(p, q) (accepted) + (1 - alpha) p (rejected, then drawn from p) */
    sv_case *c = build("binary:p=0.3,q=0.6,K=2");
    sv_prediction pr;
    CHECK(c && sv_predict("resample_from_p", c, &pr) == SV_OK);
    if (c && pr.out) {
        double alpha = 0.3 + 0.4; /* min(0.3, 0.6) + min(0.7, 0.4) */
        CHECK_NEAR(pr.accept[0], alpha, 1e-6);
        CHECK_NEAR(pr.out[0], 0.3 + (1 - alpha) * 0.3, 1e-6);
        CHECK_NEAR(pr.out[1], 0.4 + (1 - alpha) * 0.7, 1e-6);
        CHECK_NEAR(pr.reach[1], alpha, 1e-6);
        CHECK_NEAR(pr.reach[2], alpha * alpha, 1e-6);
        CHECK_NEAR(pr.out[2 * 2], 0.3, 1e-6); /* the bonus row is right */
        sv_prediction_free(&pr);
    }
    /* ratio_inverted: accepts x with min(1, q/p); the residual is ref's */
    CHECK(c && sv_predict("ratio_inverted", c, &pr) == SV_OK);
    if (c && pr.out) {
        /* accept 0 with 1 (q/p = 2), 1 with 4/7: alpha' = 0.6 + 0.4 * 4/7;
         * on rejection the residual max(p - q, 0) is all on token 1 */
        double a = 0.6 + 0.4 * 4.0 / 7.0;
        CHECK_NEAR(pr.out[0], 0.6, 1e-6);
        CHECK_NEAR(pr.out[1], 0.4 * 4.0 / 7.0 + (1.0 - a), 1e-6);
        sv_prediction_free(&pr);
    }
    sv_case_free(c);

    /* every variant's prediction is a distribution at every position */
    const char *variants[] = {"resample_from_p", "residual_unnormalized", "residual_swapped",
                              "ratio_inverted", "bonus_wrong_row", "residual_epsilon_floor",
                              "uniform_reused", "draft_temperature_mismatch", "float16_ratio",
                              "race_float32_truncated", "exact_match_argmax",
                              "exact_match_shared_sample"};
    c = build("logits:V=50,K=3,T=0.8");
    for (size_t v = 0; c && v < sizeof variants / sizeof variants[0]; v++) {
        CHECK(sv_predict_known(variants[v]));
        if (sv_predict(variants[v], c, &pr) != SV_OK) {
            CHECK(0);
            continue;
        }
        for (int32_t k = 0; k <= c->K; k++) {
            double s = 0.0, lowest = 0.0;
            for (int32_t i = 0; i < c->V; i++) {
                s += pr.out[k * c->V + i];
                lowest = fmin(lowest, pr.out[k * c->V + i]);
            }
            if (fabs(s - 1.0) > 1e-9 || lowest < 0.0)
                fprintf(stderr, "  %s position %d: sum %.12f, min %g\n", variants[v], k + 1, s,
                        lowest);
            CHECK_NEAR(s, 1.0, 1e-9);
            CHECK(lowest >= 0.0);
        }
        sv_prediction_free(&pr);
    }
    /* exact_match_argmax, derived by hand: every draft position emits the
     * target's argmax (kept when it is the draft, emitted when it is not) */
    if (c && sv_predict("exact_match_argmax", c, &pr) == SV_OK) {
        for (int32_t k = 0; k < c->K; k++) {
            int32_t a = 0;
            for (int32_t i = 1; i < c->V; i++)
                a = c->target[k * c->V + i] > c->target[k * c->V + a] ? i : a;
            CHECK_NEAR(pr.out[k * c->V + a], 1.0, 1e-12);
        }
        sv_prediction_free(&pr);
    } else {
        CHECK(0);
    }
    /* exact_match_shared_sample at position 2, derived another way: y_1 and
     * y_2 read one u, so P(reach 2, y_2 = t) = sum over a of q_1(a) times
     * the length of {u: F_1^{-1}(u) = a} meet {u: F_2^{-1}(u) = t} */
    if (c && sv_predict("exact_match_shared_sample", c, &pr) == SV_OK) {
        const int32_t V = c->V;
        double p0[64], p1[64], q0[64], qs = 0.0, reach = 0.0, want[64] = {0}, worst = 0.0;
        sv_case_target_dist(c, 0, p0);
        sv_case_target_dist(c, 1, p1);
        for (int32_t i = 0; i < V; i++)
            qs += c->draft[i];
        for (int32_t i = 0; i < V; i++)
            q0[i] = c->draft[i] / qs;
        double lo0 = 0.0;
        for (int32_t a = 0; a < V; lo0 += p0[a++]) {
            double lo1 = 0.0;
            for (int32_t t = 0; t < V; lo1 += p1[t++]) {
                const double meet = fmin(lo0 + p0[a], lo1 + p1[t]) - fmax(lo0, lo1);
                if (meet > 0.0) {
                    want[t] += q0[a] * meet;
                    reach += q0[a] * meet;
                }
            }
        }
        for (int32_t t = 0; t < V; t++)
            worst = fmax(worst, fabs(pr.out[V + t] - want[t] / reach));
        CHECK_NEAR(pr.reach[1], reach, 1e-12);
        CHECK(worst < 1e-12);
        CHECK_NEAR(pr.accept[0], reach, 1e-12);
        sv_prediction_free(&pr);
    } else {
        CHECK(0);
    }
    sv_case_free(c);
    CHECK(!sv_predict_known("ref") && !sv_predict_known("shared_stream"));

    /* events: accept_zero_target on p = 0 drafts happens once in 2^24 tests */
    c = build("binary:p=0,q=1");
    CHECK(c && fabs(sv_predict_event("accept_zero_target", c) - 1.0 / 16777216.0) < 1e-20);
    sv_case_free(c);
    c = build("identical:V=10,K=3");
    CHECK(c && fabs(sv_predict_event("counts_off_by_one", c) - 1.0) < 1e-6);
    sv_case_free(c);
    feature("sv_predict: hand-derived outputs (exact_match_shared_sample by interval overlaps), every prediction a distribution, events");
}

/* P(token 1 wins) in race_float32_truncated's race over w = (1 - pi, pi),
 * counted cell by cell: a uniform is (j + 0.5) 2^-23, j < 2^23, each with
 * probability 2^-23. Token 1's in cell m from the top, u = 1 - (2m + 1)
 * 2^-24, times t = -log(u) / pi; token 0 (first on ties) is slower when
 * its own u is below exp(-t (1 - pi)). */
static double two_token_race(double pi)
{
    double total = 0.0;
    for (int m = 0; m < 4096; m++) {
        const double t = -log(1.0 - (2.0 * m + 1.0) * 0x1p-24) / pi;
        const double cells = ceil(exp(-t * (1.0 - pi)) * 0x1p23 - 0.5);
        total += 0x1p-23 * 0x1p-23 * (cells > 0.0 ? cells : 0.0);
    }
    return total;
}

/* The float-rounding variants' closed forms (predict.c): the truncated
 * race against the cell-by-cell count above, and oov_float_rounding's
 * chance per draw on rows whose float32 sums are worked out by hand. */
static void test_float_rounding_models(void)
{
    const double pis[] = {0x1p-22, 0x1p-24, 0x1p-26, 0x1p-28};
    for (size_t i = 0; i < sizeof pis / sizeof pis[0]; i++) {
        sv_case *c = sv_case_alloc(1, 2);
        sv_prediction pr = {0};
        if (!c)
            break;
        float *rows[3] = {c->target, c->target + 2, c->draft}; /* p_1, p_2, q_1 = p_1 */
        for (int r = 0; r < 3; r++) {
            rows[r][0] = (float)(1.0 - pis[i]);
            rows[r][1] = (float)pis[i];
        }
        CHECK(sv_predict("race_float32_truncated", c, &pr) == SV_OK);
        const double exact = two_token_race(pis[i]), a = 0x1p-24 / pis[i];
        if (pr.out) {
            printf("  truncated race, pi = %g (a = %g): P(win) %.6g by cells, %.6g predicted, "
                   "pi a / sinh(a) = %.6g\n", pis[i], a, exact, pr.out[3],
                   pis[i] * a / sinh(a));
            if (a <= 4.0)
                CHECK_REL(pr.out[3], exact, 1e-3);
            else /* where token 0's lowest cell decides, both are nothing */
                CHECK(pr.out[3] < 1e-5 * pis[i] && exact < 1e-5 * pis[i]);
            sv_prediction_free(&pr);
        }
        sv_case_free(c);
    }
    CHECK(two_token_race(0x1p-26) < 0.2 * 0x1p-26); /* tokens at 2^-26 keep 15% */

    /* p = (1/2, 1/2 - 2^-24, four of 2^-26): the float32 sum reaches
     * 1 - 2^-24 and each 2^-26, a quarter of its spacing, is lost. With
     * q = p every draw takes the bonus: chance 2^-24. With q on token 1
     * (alpha = 1/2 - 2^-24) the residual (1/2, 0, 4 x 2^-26) sums to 1/2 in
     * float, 1/2 + 2^-24 exactly: its 1/2 + 2^-24 of the draws fire with
     * 2^-24 / (1/2 + 2^-24), the bonus draws with 2^-24. */
    sv_case *c = sv_case_alloc(1, 6);
    if (c) {
        const float t = 0x1p-26f, p[6] = {0.5f, 0.5f - 0x1p-24f, t, t, t, t};
        const float q[6] = {0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 0.0f};
        memcpy(c->target, p, sizeof p);
        memcpy(c->target + 6, p, sizeof p);
        memcpy(c->draft, p, sizeof p);
        CHECK(sv_predict_known("oov_float_rounding"));
        CHECK(fabs(sv_predict_event("oov_float_rounding", c) - 0x1p-24) < 1e-20);
        memcpy(c->draft, q, sizeof q);
        CHECK(fabs(sv_predict_event("oov_float_rounding", c) -
                   (0x1p-24 + (0.5 - 0x1p-24) * 0x1p-24)) < 1e-20);
        sv_case_free(c);
    }
    feature("float-rounding variants: the truncated race's a / sinh(a) against a count over "
            "the float32 cells; oov chance from hand-summed floats");
}

int main(void)
{
    test_ncx2();
    test_power_chi2();
    test_kolmogorov();
    test_predict();
    test_float_rounding_models();
    return check_exit();
}
