/* budget_run.c: `verify --budget SECONDS`: probe every case, share the
 * budget out, say what it buys, and hand the run its draws. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "budget.h"
#include "sv_cli.h"
#include "sv_stats.h"

int sv_budget_least(double seconds, size_t n_cases)
{
    const double least = SV_PROBE_SECONDS * (double)n_cases;
    if (seconds < least)
        return sv_fail(SV_EBAD, "verify --budget %g: less than its probes take (about %g s: "
                       "one second to measure the sampler on each of the %zu cases); give "
                       "--budget %g or more", seconds, SV_PROBE_SECONDS, n_cases, least);
    return SV_OK;
}

int sv_budget_apply(const sv_verify_config *cfg, double seconds, uint64_t *draws,
                    uint64_t *again, FILE *out)
{
    int rc = sv_budget_least(seconds, cfg->n_cases);
    if (rc != SV_OK)
        return rc;
    sv_budget_case *cs = calloc(cfg->n_cases ? cfg->n_cases : 1, sizeof *cs);
    sv_probe *probes = calloc(cfg->n_cases ? cfg->n_cases : 1, sizeof *probes);
    rc = cs && probes ? SV_OK : sv_fail(SV_EENV, "out of memory");
    size_t tests = 0, made = 0;
    for (; made < cfg->n_cases && rc == SV_OK; made++) {
        char err[512];
        sv_case *c = NULL;
        if (sv_case_from_spec(cfg->specs[made], &c, err, sizeof err) != 0) {
            rc = sv_fail(SV_EBAD, "%s", err);
            break;
        }
        cs[made] = (sv_budget_case){.c = c, .spec = cfg->specs[made], .cap = draws[made],
                                    .why = sv_hard_built_for(cfg->specs[made], cfg->sampler->rule)};
        tests += sv_tests_per_case(c);
    }
    double probe_seconds = 0.0, start_up = 0.0;
    if (rc == SV_OK)
        rc = sv_probe_cases(cfg, cfg->threads, probes, &start_up, &probe_seconds);
    sv_budget b = {.seconds = seconds, .split = sv_bonferroni(cfg->alpha, tests),
                   .rerun = cfg->rerun_suspects, .start_up = start_up};
    for (size_t i = 0; i < made && rc == SV_OK; i++)
        cs[i].cost = probes[i];
    if (rc == SV_OK)
        rc = sv_budget_share(&b, cs, made);
    if (rc == SV_OK)
        rc = sv_budget_powers(&b, cs, made);
    if (rc == SV_OK) {
        sv_budget_print(&b, cs, made, probe_seconds, out);
        fflush(out);
        for (size_t i = 0; i < made; i++) {
            draws[i] = cs[i].draws;
            again[i] = sv_budget_rerun_draws(&b, &cs[i]);
        }
    }
    for (size_t i = 0; i < made; i++)
        sv_case_free((sv_case *)cs[i].c);
    free(cs);
    free(probes);
    return rc;
}
