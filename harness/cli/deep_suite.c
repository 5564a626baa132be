/* deep_suite.c: `verify --suite deep` and `verify --plan` (issue 28).
 *
 * The deep suite is the hard variants' cases (hard_cases.c), one per case,
 * each at the draws the power formula asks to catch the hardest variant of
 * the sampler's rule there with probability `target` (default 1 - 1e-6),
 * under the suite's own split of the family-wise rate: sized from the
 * formula, not written down, so that it follows the formula and alpha.
 * The plan says, before any draw, what a run will take: each case's draws,
 * the sampler's rate on it from a one-second probe (budget_probe.c: a host
 * sampler on one core of this machine, a CUDA sampler on its GPU), and the
 * wall time that gives on 1 core, or on 1 GPU and on N GPUs: the sampler's
 * own rates, so that a slow sampler's plan takes seconds, not a run. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sv_cli.h"
#include "sv_cases.h"
#include "sv_check.h"
#include "sv_stats.h"
#include "budget.h"

/* Whether sampler s can have the bug `variant` is about: a tree's, a chain's,
 * or a drafter's (drafts_*: only a sampler that draws its own drafts). */
static int applies(const char *variant, const sv_sampler *s)
{
    const int tree = sv_rule_is_tree(s->rule);
    if (strncmp(variant, "drafts_", 7) == 0)
        return !tree && (s->inputs & SV_INPUT_OWN_DRAFTS);
    return strcmp(variant, "tree_cdf_boundary") == 0 ? tree : !tree;
}

int sv_deep_suite(const sv_sampler *s, double alpha, double target, const char **specs,
                  uint64_t *draws, const char **why, size_t max, size_t *n)
{
    *n = 0;
    size_t tests = 0;
    for (size_t i = 0; i < sv_hard_count(); i++) { /* the cases, each once */
        const sv_hard_case *h = sv_hard_get(i);
        size_t k = 0;
        while (k < *n && strcmp(specs[k], h->spec) != 0)
            k++;
        if (!applies(h->variant, s) || k < *n)
            continue;
        if (*n == max)
            return sv_fail(SV_EBAD, "the deep suite holds more than %zu cases", max);
        sv_case *c = NULL;
        char err[512];
        if (sv_case_from_spec(h->spec, &c, err, sizeof err) != 0)
            return sv_fail(SV_EBAD, "%s", err);
        tests += sv_tests_per_case(c);
        sv_case_free(c);
        specs[*n] = h->spec, draws[*n] = 0, why[*n] = h->variant;
        (*n)++;
    }
    const double split = sv_bonferroni(alpha, tests);
    int rc = SV_OK;
    for (size_t i = 0; rc == SV_OK && i < sv_hard_count(); i++) { /* each at its hardest */
        const sv_hard_case *h = sv_hard_get(i);
        if (!applies(h->variant, s))
            continue;
        size_t k = 0;
        while (k < *n && strcmp(specs[k], h->spec) != 0)
            k++;
        sv_case *c = NULL;
        char err[512];
        if (sv_case_from_spec(h->spec, &c, err, sizeof err) != 0)
            return sv_fail(SV_EBAD, "%s", err);
        sv_power_report p;
        rc = sv_case_power(h->variant, c, 1, split, target, &p);
        sv_case_free(c);
        if (rc == SV_OK && (!p.known || !isfinite(p.needed)))
            rc = sv_fail(SV_EENV, "deep suite: no finite draws for %s on %s", h->variant,
                         h->spec);
        if (rc == SV_OK && (uint64_t)ceil(p.needed) > draws[k]) {
            draws[k] = (uint64_t)ceil(p.needed) + ((uint64_t)ceil(p.needed) & 1);
            why[k] = h->variant;
        }
    }
    return rc;
}

static void when(double seconds, char *out, size_t len)
{
    if (!isfinite(seconds))
        snprintf(out, len, "-");
    else if (seconds < 120)
        snprintf(out, len, "%.0f s", seconds);
    else if (seconds < 7200)
        snprintf(out, len, "%.1f min", seconds / 60);
    else if (seconds < 172800)
        snprintf(out, len, "%.1f h", seconds / 3600);
    else
        snprintf(out, len, "%.1f days", seconds / 86400);
}

int sv_print_plan(const sv_verify_config *cfg, const char *const *why, int gpus, FILE *out)
{
    /* a CUDA sampler's rate is its GPU's, on the run's threads; a host
     * sampler's is one core's, and it has no GPU columns */
    const int gpu = cfg->sampler->memspace == SV_MEM_CUDA;
    sv_probe *probes = calloc(cfg->n_cases ? cfg->n_cases : 1, sizeof *probes);
    if (!probes)
        return sv_fail(SV_EENV, "out of memory");
    double probed = 0.0, start_up = 0.0;
    int rc = sv_probe_cases(cfg, gpu ? cfg->threads : 1, probes, &start_up, &probed);
    if (rc == SV_OK) {
        fprintf(out, "plan: %zu case%s through %s; the wall time at its rates from two short "
                "runs of every case (%.1f s) %s\n\n", cfg->n_cases,
                cfg->n_cases == 1 ? "" : "s", cfg->sampler->name, probed,
                gpu ? "on this GPU, on 1 GPU and on --plan-gpus GPUs"
                    : "on one core here (a host sampler: no GPU columns)");
        fprintf(out, "%-34s %-24s %12s %12s %11s %11s %11s\n", "case", "sized for", "draws",
                gpu ? "1 GPU M/s" : "1 core M/s", "1 core", "1 GPU", "GPUs");
    }
    double total[3] = {0, 0, 0};
    for (size_t i = 0; i < cfg->n_cases && rc == SV_OK; i++) {
        const double rate = probes[i].rate, n = (double)cfg->draws[i];
        if (isinf(rate)) { /* a case the sampler is not given (own_drafts.c) */
            fprintf(out, "%-34.34s %-24.24s %12s %12s %11s\n", cfg->specs[i], "-", "-", "-",
                    "left out: the sampler draws its own drafts, the case has no draft rows");
            continue;
        }
        const double run = probes[i].overhead + n / rate;
        const double t[3] = {gpu ? NAN : run, gpu ? run : NAN, gpu ? run / gpus : NAN};
        char w[3][32];
        for (int j = 0; j < 3; j++) {
            when(t[j], w[j], sizeof w[j]);
            total[j] += t[j];
        }
        fprintf(out, "%-34.34s %-24.24s %12.4g %12.3f %11s %11s %11s\n", cfg->specs[i],
                why && why[i] ? why[i] : "-", n, rate / 1e6, w[0], w[1], w[2]);
    }
    free(probes);
    char w[3][32];
    for (int j = 0; j < 3; j++)
        when(total[j], w[j], sizeof w[j]);
    if (rc == SV_OK)
        fprintf(out, "%-34s %-24s %12s %12s %11s %11s %11s\n\n", "total", "", "", "", w[0],
                w[1], w[2]);
    return rc;
}
