/* test_power_mc.c: the power formula against Monte Carlo.
 *
 * For two broken variants the formula predicts, before sampling, how often
 * the position-1 chi-square test rejects at N draws. We pick N so the
 * prediction is near 1/2 (where a wrong formula shows most), run the harness
 * R = 400 times with seeds 1..R, and count rejections. Predicted and
 * observed rates must agree within 4 binomial standard errors of R runs
 * (false alarm 6e-5 per variant if the formula is exact; the noncentral
 * chi-square is itself a large-N approximation, which is why N is kept
 * large enough that each pooled bin expects >= 10 draws). */
#include <stdlib.h>
#include "check.h"
#include "sv_base.h"
#include "sv_cases.h"
#include "sv_check.h"
#include "sv_registry.h"
#include "sv_sampler.h"
#include "sv_stats.h"

#define RUNS 400

static void power_vs_monte_carlo(const char *variant, const char *spec)
{
    const sv_sampler *s = sv_registry_find(variant);
    sv_case *c = NULL;
    char err[512];
    CHECK(s != NULL);
    CHECK(sv_case_from_spec(spec, &c, err, sizeof err) == 0);
    if (!s || !c) {
        feature(variant);
        return;
    }
    const double family_alpha = 1e-3;
    const double split = sv_bonferroni(family_alpha, sv_tests_per_case(c));

    /* the N at which position 1's predicted power is 1/2 */
    sv_power_report pw;
    CHECK(sv_case_power(variant, c, 1000, split, 0.5, &pw) == SV_OK);
    CHECK(pw.known && !pw.by_contract);
    uint64_t N = (uint64_t)pw.position_needed[0];
    CHECK(sv_case_power(variant, c, N, split, 0.5, &pw) == SV_OK);
    double predicted = pw.position_power[0];

    const char *specs[1] = {spec};
    uint64_t draws[1] = {N};
    int rejected = 0;
    for (uint64_t seed = 1; seed <= RUNS; seed++) {
        sv_verify_config cfg = {.sampler = s, .suite = NULL, .specs = specs, .draws = draws,
                                .n_cases = 1, .seed = seed, .alpha = family_alpha,
                                .batch = 1024, .threads = 2, .progress = 0,
                                .rerun_suspects = 0,
                                /* the formula's model: every sequence all K drafts */
                                .uniform = 1};
        sv_report *r = NULL;
        if (sv_verify(&cfg, &r) != SV_OK) {
            fprintf(stderr, "  %s\n", sv_error_message());
            CHECK(0);
            break;
        }
        CHECK(r->split_alpha == split);
        rejected += r->cases[0].runs[0].pos[0].chi2.p < split;
        sv_report_free(r);
    }
    double observed = (double)rejected / RUNS;
    double se = sqrt(predicted * (1.0 - predicted) / RUNS);
    printf("  %s on %s, N = %llu: predicted power %.3f, observed %d/%d = %.3f (%.2f se)\n",
           variant, spec, (unsigned long long)N, predicted, rejected, RUNS, observed,
           (observed - predicted) / se);
    CHECK(predicted > 0.3 && predicted < 0.7);
    CHECK_NEAR(observed, predicted, 4.0 * se);
    sv_case_free(c);
    char name[256];
    snprintf(name, sizeof name, "power of the chi-square test against %s: formula = Monte Carlo",
             variant);
    feature(name);
}

int main(void)
{
    power_vs_monte_carlo("resample_from_p", "seedlab:V=20,K=1");
    power_vs_monte_carlo("uniform_reused", "zipf:V=30,K=1");
    return check_exit();
}
