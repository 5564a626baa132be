/* test_acceptance.c: acceptance, tokens per step and speedup against closed
 * forms and published numbers. */
#include <math.h>
#include "check.h"
#include "sv_sweep.h"
#include "sv_base.h"
#include "sv_bench.h"
#include "sv_cases.h"

int main(void)
{
    /* Leviathan et al. Table 1 / Figure 3: alpha 0.8, K 5, c 0: 3.69x */
    double a8[5] = {0.8, 0.8, 0.8, 0.8, 0.8};
    CHECK_NEAR(sv_expected_tokens(a8, 5), (1.0 - pow(0.8, 6)) / 0.2, 1e-12);
    CHECK_NEAR(sv_speedup(sv_expected_tokens(a8, 5), 5, 0.0), 3.69, 0.005);
    /* and with c = 0.05 the cost of 5 drafts is 1.25 target steps */
    CHECK_NEAR(sv_speedup(sv_expected_tokens(a8, 5), 5, 0.05), 3.68928 / 1.25, 1e-4);
    double ones[3] = {1, 1, 1}, zeros[3] = {0, 0, 0};
    CHECK_NEAR(sv_expected_tokens(ones, 3), 4.0, 0.0);
    CHECK_NEAR(sv_expected_tokens(zeros, 3), 1.0, 0.0);
    feature("tokens per step and speedup: closed form, Leviathan et al. Table 1 (3.69)");

    /* Wilson 95% against Newcombe (1998), Table I, method 3 (score, no
     * continuity correction), four decimals */
    static const struct { uint64_t s, n; double lo, hi; } table[] = {
        {81, 263, 0.2553, 0.3662}, {15, 148, 0.0624, 0.1605},
        {0, 20, 0.0, 0.1611},      {1, 29, 0.0061, 0.1718}};
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        sv_proportion w = sv_wilson(table[i].s, table[i].n, 0.95);
        CHECK_NEAR(w.value, (double)table[i].s / (double)table[i].n, 1e-15);
        CHECK_NEAR(w.lo, table[i].lo, 5e-5);
        CHECK_NEAR(w.hi, table[i].hi, 5e-5);
    }
    CHECK(isnan(sv_wilson(0, 0, 0.95).value));
    feature("Wilson score interval against Newcombe's table");

    /* K = 3: 10 draws accept 0, 20 accept 1, 30 accept 2, 40 accept 3:
     * draft 1 tested 100 accepted 90; draft 2 tested 90 accepted 70;
     * draft 3 tested 70 accepted 40; mean tokens 1 + 2.0 */
    const uint64_t length[4] = {10, 20, 30, 40};
    sv_proportion a[3];
    sv_measured_alpha(length, 3, 0.95, a);
    CHECK(a[0].successes == 90 && a[0].trials == 100);
    CHECK(a[1].successes == 70 && a[1].trials == 90);
    CHECK(a[2].successes == 40 && a[2].trials == 70);
    CHECK_NEAR(sv_mean_tokens(length, 3), 3.0, 1e-15);
    /* the measured alphas give back the measured tokens per step */
    double m[3] = {a[0].value, a[1].value, a[2].value};
    CHECK_NEAR(sv_expected_tokens(m, 3), sv_mean_tokens(length, 3), 1e-12);
    feature("per-position acceptance and mean tokens from the accepted-count histogram");

    /* analytic alpha of the closed-form families: p = q gives 1, disjoint 0 */
    char err[256];
    sv_case *same = NULL, *apart = NULL;
    CHECK(sv_case_from_spec("identical:V=100,K=2", &same, err, sizeof err) == 0);
    CHECK(sv_case_from_spec("disjoint:V=100,K=2", &apart, err, sizeof err) == 0);
    for (int32_t k = 0; same && apart && k < 2; k++) {
        CHECK_NEAR(sv_case_alpha(same, k), 1.0, 1e-6);
        CHECK_NEAR(sv_case_alpha(apart, k), 0.0, 1e-12);
    }
    sv_case_free(same);
    sv_case_free(apart);

    /* the batched speedup: no sampler time gives Leviathan's; 10 us of
     * sampler against a 40 us target step adds a quarter step */
    const double E = sv_expected_tokens(a8, 5);
    CHECK_NEAR(sv_speedup_batched(E, 5, 0.05, 0.0, 40.0), sv_speedup(E, 5, 0.05), 1e-15);
    CHECK_NEAR(sv_speedup_batched(E, 5, 0.0, 10.0, 40.0), E / 1.25, 1e-12);
    sv_batch_cost cost = {{40.0, 0.5}, {3.0, 0.25}, NULL, 0, "model"};
    double us = 0.0;
    CHECK(sv_batch_cost_sampler_us(&cost, 8, 5, &us) == SV_OK && us == 3.0 + 0.25 * 8);
    CHECK(sv_batch_cost_target_us(&cost, 8) == 44.0);
    /* from bench points: B = 1 at 10 us and B = 64 at 80 us (two acceptance
     * rates at 70 and 90, averaged), K = 5; B = 8 sits halfway in log B:
     * sqrt(10 * 80) */
    sv_bench_point pts[3] = {{.sampler = "s", .B = 1, .K = 5, .median_us = 10.0},
                             {.sampler = "s", .B = 64, .K = 5, .median_us = 70.0},
                             {.sampler = "s", .B = 64, .K = 5, .median_us = 90.0}};
    cost.pts = pts, cost.n = 3;
    CHECK(sv_batch_cost_sampler_us(&cost, 8, 5, &us) == SV_OK);
    CHECK_NEAR(us, sqrt(800.0), 1e-9);
    CHECK(sv_batch_cost_sampler_us(&cost, 64, 5, &us) == SV_OK && us == 80.0);
    CHECK(sv_batch_cost_sampler_us(&cost, 128, 5, &us) == SV_EBAD); /* outside 1..64 */
    CHECK(sv_batch_cost_sampler_us(&cost, 8, 3, &us) == SV_EBAD);   /* no point at K = 3 */
    /* tokens per step's interval: lengths 0, 1, 2 in 50, 30, 20 steps: mean
     * 0.7, sum of squares 61.0, sd^2 61/99, se sqrt(61/99/100) = 0.0784960,
     * z(95%) 1.959964: 1.7 -+ 0.153849 */
    const uint64_t lengths[3] = {50, 30, 20};
    double lo = 0.0, hi = 0.0;
    sv_mean_tokens_interval(lengths, 2, 0.95, &lo, &hi);
    CHECK_NEAR(sv_mean_tokens(lengths, 2), 1.7, 1e-12);
    CHECK_NEAR(lo, 1.7 - 1.959964 * sqrt(61.0 / 99.0 / 100.0), 1e-6);
    CHECK_NEAR(hi, 1.7 + 1.959964 * sqrt(61.0 / 99.0 / 100.0), 1e-6);
    const uint64_t one[3] = {0, 1, 0}; /* one step: no spread to estimate */
    sv_mean_tokens_interval(one, 2, 0.95, &lo, &hi);
    CHECK(isnan(lo) && isnan(hi));
    feature("tokens per step's 95% interval: 1 + mean(n) -+ z sd(n) / sqrt(steps)");
    feature("batched speedup E / (K c + 1 + s/t); sampler time by model or log-log from bench");
    feature("analytic alpha: identical 1, disjoint 0");
    return check_exit();
}
