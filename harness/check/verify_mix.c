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

void sv_shard_probe_apply(const sv_shard_probe *p, sv_run_eval *ev)
{
    if (!p->present)
        return;
    ev->batch_probed = p->batch_probed, ev->batch_changed = p->batch_changed;
    ev->seed_probed = p->seed_probed, ev->seed_same = p->seed_same;
    ev->seed_chance = p->seed_chance;
    ev->batch_verdict = p->batch_verdict, ev->seed_verdict = p->seed_verdict;
    for (int32_t f = 0; f < p->n_findings && ev->n_findings < SV_MAX_FINDINGS; f++)
        snprintf(ev->findings[ev->n_findings++], SV_FINDING_LEN, "%s", p->findings[f]);
    ev->verdict = sv_verdict_worst(ev->verdict, ev->batch_verdict);
    ev->verdict = sv_verdict_worst(ev->verdict, ev->seed_verdict);
}

/* A shard's probes (shard 0 runs them, once for all): what they find for
 * each case, judged apart from the shard's partial counts. */
static int probe_alone(const sv_verify_config *cfg, const mix_parts *p, uint64_t seed,
                       sv_shard_probe *out)
{
    sv_run_eval *scratch = calloc((size_t)p->n, sizeof *scratch);
    if (!scratch)
        return sv_fail(SV_EENV, "out of memory for a probe");
    int rc = sv_probe_mix(cfg, p->mix, (const sv_drafter *const *)p->drafters, seed, scratch);
    for (int32_t i = 0; i < p->n && rc == SV_OK; i++) {
        const sv_run_eval *e = &scratch[i];
        out[i] = (sv_shard_probe){1, e->batch_probed, e->batch_changed, e->seed_probed,
                                  e->seed_same, e->seed_chance, e->batch_verdict,
                                  e->seed_verdict, e->n_findings, {{0}}};
        memcpy(out[i].findings, e->findings, sizeof out[i].findings);
    }
    free(scratch);
    return rc;
}

/* A merge's counts of every case of the mix, each shard's held to its share
 * of each case (shares[i * count + k]: case i's in shard k). */
static int give_mix(const sv_shard_hooks *sh, const sv_run_config *run, const mix_parts *p,
                    const sv_case *const *cases, const size_t *index, sv_shard_probe *probes)
{
    const size_t n = (size_t)p->n, count = sh->count;
    uint64_t *shares = calloc(n * (count ? count : 1), sizeof *shares);
    int rc = shares ? sv_run_mix_shares(run, p->mix, (uint32_t)count, shares)
                    : sv_fail(SV_EENV, "out of memory for %zu shards", count);
    for (size_t i = 0; i < n && rc == SV_OK; i++)
        rc = sh->give(sh->ctx, index[i], cases[i], &p->plans[i], p->tallies[i], &probes[i],
                      count ? &shares[i * count] : NULL);
    free(shares);
    return rc;
}

int sv_verify_mix(const sv_verify_config *cfg, const sv_case *const *cases,
                  const uint64_t *draws, int32_t n, uint64_t seed, uint64_t scale,
                  double split, int probe, const char *label, sv_run_eval *evals,
                  const size_t *index)
{
    mix_parts p;
    int rc = parts_make(cfg, cases, draws, n, seed, scale, &p);
    if (rc != SV_OK)
        return rc;
    const sv_shard_hooks *sh = index ? cfg->shard : NULL; /* a shard's or merge's first run */
    sv_shard_probe *probes = sh ? calloc((size_t)n, sizeof *probes) : NULL;
    if (sh && !probes)
        rc = sv_fail(SV_EENV, "out of memory for %d cases", n);
    sv_run_config run = {cfg->sampler, 0, seed, cfg->batch, cfg->threads, cfg->progress, label,
                         cfg->input, cfg->in_process, cfg->call_timeout, NULL, 0, 0, NULL,
                         cfg->device_staging, sv_dump_sink(cfg->dump)};
    run.draws = p.mix->draws;
    if (sh && sh->take)
        run.shard = sh->index, run.shards = sh->count, run.watch = cfg->watch;
    if (rc == SV_OK && sh && sh->give) /* a merge: the shards' counts, not a run */
        rc = give_mix(sh, &run, &p, cases, index, probes);
    else if (rc == SV_OK)
        rc = sv_run_mix(&run, p.mix, (const sv_drafter *const *)p.drafters, p.plans, p.tallies,
                        0, NULL);
    for (int32_t i = 0; i < n && rc == SV_OK; i++) {
        evals[i].seed = seed;
        evals[i].rule = cfg->sampler->rule;
        rc = sv_evaluate(cases[i], p.tallies[i], &p.plans[i], split, &evals[i]);
    }
    /* every contract version: the probes need only a batch's seed and first
     * index; not for a sampler that lacks seeds (lacks.c): it has none to follow */
    const int probing = rc == SV_OK && probe && !sv_interrupted() &&
                        !(cfg->sampler->lacks & SV_LACKS_SEEDS);
    if (probing && sh && sh->take && sh->index == 0)
        rc = probe_alone(cfg, &p, seed, probes);
    else if (probing && sh && sh->give)
        for (int32_t i = 0; i < n; i++)
            sv_shard_probe_apply(&probes[i], &evals[i]);
    else if (probing && !(sh && sh->take))
        rc = sv_probe_mix(cfg, p.mix, (const sv_drafter *const *)p.drafters, seed, evals);
    for (int32_t i = 0; i < n && rc == SV_OK; i++)
        sv_dump_files(cfg->dump, cases[i], &evals[i]);
    for (int32_t i = 0; i < n && rc == SV_OK && sh && sh->take; i++)
        rc = sh->take(sh->ctx, index[i], cases[i], &p.plans[i], p.tallies[i], &probes[i]);
    free(probes);
    parts_free(&p);
    return rc;
}
