/* verify_mix.c: cases of one vocabulary, input and drafter kind verified
 * together, their sequences interleaved in every batch (mix.c), each case
 * counted and judged on its own. */
#include <stdlib.h>
#include <string.h>
#include "sv_check.h"

void sv_case_report_init(sv_case_report *cr, const sv_case *c)
{
    snprintf(cr->name, sizeof cr->name, "%s", c->name);
    cr->K = c->K;
    cr->V = c->V;
    cr->draft_probs_given = c->draft_probs_given;
    for (int32_t k = 0; k < c->K; k++)
        cr->alpha[k] = sv_case_alpha(c, k);
}

int sv_mixable(const sv_case *a, const sv_case *b)
{
    return !a->chain && !b->chain && a->V == b->V && a->input == b->input &&
           a->draft_probs_given == b->draft_probs_given;
}

/* What a mixed run holds per case. */
typedef struct mix_parts {
    sv_mix *mix;
    sv_drafter **drafters;
    sv_pair_plan *plans;
    sv_tally **tallies;
    int32_t n;
} mix_parts;

static void parts_free(mix_parts *p)
{
    for (int32_t i = 0; i < p->n; i++) {
        if (p->drafters)
            sv_drafter_free(p->drafters[i]);
        if (p->plans)
            sv_pair_plan_free(&p->plans[i]);
        if (p->tallies)
            sv_tally_free(p->tallies[i]);
    }
    free(p->drafters);
    free(p->plans);
    free(p->tallies);
    sv_mix_free(p->mix);
}

static int parts_make(const sv_verify_config *cfg, const sv_case *const *cases,
                      const uint64_t *draws, int32_t n, uint64_t seed, uint64_t scale,
                      mix_parts *p)
{
    memset(p, 0, sizeof *p);
    uint64_t *asked = malloc((size_t)n * 4 * sizeof *asked);
    p->drafters = calloc((size_t)n, sizeof *p->drafters);
    p->plans = calloc((size_t)n, sizeof *p->plans);
    p->tallies = calloc((size_t)n, sizeof *p->tallies);
    if (!asked || !p->drafters || !p->plans || !p->tallies) {
        free(asked);
        parts_free(p);
        return sv_fail(SV_EENV, "out of memory for a mix of %d cases", n);
    }
    p->n = n;
    for (int32_t i = 0; i < n; i++)
        asked[i] = draws[i] * scale;
    sv_mix_config mc = {.cases = cases, .n_cases = n, .draws = asked, .seed = seed,
                        .layouts = cfg->sampler->layouts, .seeding = cfg->seeding,
                        .ragged = 1, .budget = SV_MIX_BUDGET,
                        /* a CUDA sampler's stage copies the aliased span (at most
                         * SV_MIX_ALIAS_SPAN a layout) to the device once: its calls
                         * then run on through the periods of an epoch, as a host
                         * sampler's do, not one period (tens of sequences) each */
                        .alias = 1};
    int rc = sv_mix_build(&mc, &p->mix);
    uint64_t *got = asked + n, *pairs = asked + 2 * (size_t)n, *drafted = asked + 3 * (size_t)n;
    if (rc == SV_OK)
        sv_mix_counts(p->mix, got, pairs, drafted);
    for (int32_t i = 0; i < n && rc == SV_OK; i++) {
        rc = sv_drafter_alloc(cases[i], &p->drafters[i]);
        if (rc == SV_OK)
            rc = sv_pair_plan_build_counts(cases[i], pairs[i], drafted[i], &p->plans[i]);
        if (rc == SV_OK)
            rc = sv_tally_alloc(cases[i], &p->plans[i], &p->tallies[i]);
    }
    free(asked);
    if (rc != SV_OK)
        parts_free(p);
    return rc;
}

int sv_verify_mix(const sv_verify_config *cfg, const sv_case *const *cases,
                  const uint64_t *draws, int32_t n, uint64_t seed, uint64_t scale,
                  double split, int probe, const char *label, sv_run_eval *evals)
{
    mix_parts p;
    int rc = parts_make(cfg, cases, draws, n, seed, scale, &p);
    if (rc != SV_OK)
        return rc;
    sv_run_config run = {cfg->sampler, 0, seed, cfg->batch, cfg->threads, cfg->progress, label,
                         cfg->input, cfg->in_process, cfg->call_timeout, NULL};
    run.draws = p.mix->draws;
    rc = sv_run_mix(&run, p.mix, (const sv_drafter *const *)p.drafters, p.plans, p.tallies, 0,
                    NULL);
    for (int32_t i = 0; i < n && rc == SV_OK; i++) {
        evals[i].seed = seed;
        evals[i].rule = cfg->sampler->rule;
        rc = sv_evaluate(cases[i], p.tallies[i], &p.plans[i], split, &evals[i]);
    }
    if (rc == SV_OK && probe && p.mix->v3 && !sv_interrupted())
        rc = sv_probe_mix(cfg, p.mix, (const sv_drafter *const *)p.drafters, seed, evals);
    parts_free(&p);
    return rc;
}
