/* test_direct.c: `direct` is correct in distribution and useless in speed.
 * The distribution checks must pass it and the acceptance-length check must
 * flag it, in words; `ref` on the same cases passes both (the control).
 * False-alarm rate: 1e-6 family-wise per run, fixed seed 1. Power of the
 * length check against `direct`: every smoke case has alpha_1 > 0.1 at 1e5
 * draws or more, so P(n = 0) differs from 1 by >= 0.1 and the chi-square
 * statistic is of order 1e4: detection is certain. */
#include <math.h>
#include <string.h>
#include "check.h"
#include "suite_config.h"
#include "sv_base.h"
#include "sv_check.h"
#include "sv_registry.h"
#include "sv_sampler.h"
#include "sv_stats.h"

int main(void)
{
    suite_config s;
    sv_report *r = NULL;
    suite_config_init(&s, "smoke", &sv_sampler_direct, 1);
    CHECK(s.cfg.n_cases == 5);
    CHECK(sv_verify(&s.cfg, &r) == SV_OK);
    if (!r)
        return 1;
    for (size_t i = 0; i < r->n_cases; i++) {
        const sv_case_report *cr = &r->cases[i];
        const sv_run_eval *ev = &cr->runs[cr->n_runs - 1];
        CHECK(cr->alpha[0] > 0.1);
        CHECK(ev->contract_verdict == SV_PASS);
        for (int32_t k = 0; k <= cr->K; k++)
            CHECK(ev->pos[k].verdict == SV_PASS || ev->pos[k].verdict == SV_NA);
        CHECK(ev->pos[0].N == ev->draws);
        CHECK(ev->length_verdict == SV_FAIL);
        /* every length counted is 0 (mixed batches count those given all K drafts) */
        uint64_t lengths = 0;
        for (int32_t j = 0; j <= ev->K; j++)
            lengths += ev->length_observed[j];
        CHECK(lengths > ev->draws / 2 && ev->length_observed[0] == lengths);
        int said = 0;
        for (int32_t f = 0; f < ev->n_findings; f++)
            said |= strstr(ev->findings[f], "accepts no drafts") != NULL &&
                    strstr(ev->findings[f], "no speedup") != NULL;
        CHECK(said);
        CHECK(cr->verdict == SV_FAIL);
    }
    CHECK(r->failed == r->n_cases);
    sv_report_free(r);
    feature("direct: distribution checks pass, acceptance length flags it in words");

    suite_config_init(&s, "smoke", &sv_sampler_ref, 1);
    CHECK(sv_verify(&s.cfg, &r) == SV_OK);
    if (!r)
        return 1;
    for (size_t i = 0; i < r->n_cases; i++) {
        const sv_run_eval *ev = &r->cases[i].runs[r->cases[i].n_runs - 1];
        CHECK(ev->length_verdict != SV_FAIL);
        CHECK(r->cases[i].verdict != SV_FAIL);
    }
    CHECK(r->failed == 0);
    sv_report_free(r);
    feature("ref on the same cases: length check passes");

    /* a Markov-pair case: the transitions are right, draft 1 is never
     * accepted though min(1, p/q) says it should be most of the time */
    const char *markov = "markov:V=64,K=4";
    const uint64_t markov_draws = 200000;
    const sv_sampler *samplers[2] = {&sv_sampler_direct, &sv_sampler_ref};
    for (int i = 0; i < 2; i++) {
        sv_verify_config cfg = s.cfg;
        cfg.sampler = samplers[i];
        cfg.specs = &markov;
        cfg.draws = &markov_draws;
        cfg.n_cases = 1;
        CHECK(sv_verify(&cfg, &r) == SV_OK);
        if (!r)
            return 1;
        const sv_run_eval *ev = &r->cases[0].runs[r->cases[0].n_runs - 1];
        CHECK(ev->chain && ev->seq_verdict == SV_PASS);
        CHECK(ev->length_verdict == (i == 0 ? SV_FAIL : SV_PASS));
        CHECK(i == 1 || ev->first_accepted == 0);
        CHECK(i == 0 || fabs((double)ev->first_accepted - ev->first_expected) <
                            5.0 * sqrt(ev->first_expected));
        int said = 0;
        for (int32_t f = 0; f < ev->n_findings; f++)
            said |= strstr(ev->findings[f], "accepts no drafts") != NULL;
        CHECK(said == (i == 0));
        sv_report_free(r);
    }
    feature("direct on a Markov pair: transitions pass, draft-1 acceptance flags it; ref passes");

    return check_exit();
}
