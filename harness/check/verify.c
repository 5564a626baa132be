/* verify.c: a verification run: every case through the sampler, evaluated
 * under one family-wise false-alarm rate; suspects re-run with a fresh seed
 * and four times the draws. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sv_check.h"

uint64_t sv_rerun_seed(uint64_t seed)
{
    /* splitmix64 finalizer: a fresh, fixed seed, so CI stays deterministic */
    uint64_t z = seed + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int sv_shard_run(const sv_shard_hooks *sh, size_t index, sv_run_config *run, const sv_case *c,
                 const sv_drafter *d, const sv_pair_plan *plan, sv_tally *tally)
{
    if (sh && sh->give) { /* a merge: the shards' counts, not a run, each its share */
        sv_shard_probe none;
        uint64_t *shares = sh->count ? calloc(sh->count, sizeof *shares) : NULL;
        if (sh->count && !shares)
            return sv_fail(SV_EENV, "out of memory for %u shards", sh->count);
        for (uint32_t k = 0; k < sh->count; k++)
            shares[k] = sv_run_share(run, c, k, sh->count);
        int rc = sh->give(sh->ctx, index, c, plan, tally, &none, shares);
        free(shares);
        return rc;
    }
    if (sh && sh->take)
        run->shard = sh->index, run->shards = sh->count;
    int rc = sv_run(run, c, d, plan, tally);
    return rc == SV_OK && sh && sh->take ? sh->take(sh->ctx, index, c, plan, tally, NULL) : rc;
}

/* One run of case c; `index`, its number in cfg->specs, for the first run
 * (a shard's or merge's part is taken there), SIZE_MAX for a re-run. */
static int run_once(const sv_verify_config *cfg, const sv_case *c, const sv_drafter *d,
                    uint64_t seed, uint64_t draws, double split, const char *label,
                    sv_run_eval *ev, size_t index)
{
    const sv_shard_hooks *sh = index != SIZE_MAX ? cfg->shard : NULL;
    sv_pair_plan plan;
    sv_tally *tally = NULL;
    int rc = sv_pair_plan_build(c, draws, &plan);
    if (rc != SV_OK)
        return rc;
    rc = sv_tally_alloc(c, &plan, &tally);
    if (rc == SV_OK) {
        sv_tree cut;
        if (cfg->tree)
            sv_tree_cut(cfg->tree, c->K, &cut);
        sv_run_config run = {cfg->sampler, draws, seed, cfg->batch, cfg->threads,
                             cfg->progress, label, cfg->input, cfg->in_process,
                             cfg->call_timeout, cfg->tree ? &cut : NULL, 0, 0, NULL,
                             cfg->device_staging};
        if (sh && sh->take)
            run.watch = cfg->watch;
        rc = sv_shard_run(sh, index, &run, c, d, &plan, tally);
    }
    if (rc == SV_OK) {
        ev->seed = seed;
        ev->rule = cfg->sampler->rule;
        rc = sv_evaluate(c, tally, &plan, split, ev);
    }
    sv_tally_free(tally);
    sv_pair_plan_free(&plan);
    return rc;
}

/* What --device-staging cannot serve, refused before any case is built
 * (docs/gpu.md#device-staging): a host sampler, a tree. */
static int device_staging_refusal(const sv_verify_config *cfg)
{
    if (cfg->sampler->memspace != SV_MEM_CUDA)
        return sv_fail(SV_EBAD, "--device-staging: sampler %s runs on the host; device staging "
                       "drafts and counts on a GPU, for a CUDA sampler (cuda_fused, cuda_naive)",
                       cfg->sampler->name);
    if (cfg->tree)
        return sv_fail(SV_EBAD, "--device-staging: sampler %s drafts trees; device staging "
                       "covers chains of drafts only", cfg->sampler->name);
    return SV_OK;
}

/* A SUSPECT case i's re-run's draws: 4x, or what a budget keeps for it. */
static uint64_t rerun_draws(const sv_verify_config *cfg, size_t i)
{
    return cfg->rerun_draws ? cfg->rerun_draws[i] : 4 * cfg->draws[i];
}

/* Says at once, before the re-run's minutes start, why it happens. */
static void announce_rerun(const sv_case *c, const sv_run_eval *first, uint64_t seed,
                           uint64_t asked, uint64_t draws)
{
    char check[96], times[96] = "4x";
    double p = sv_weakest_check(first, check, sizeof check);
    if (draws != 4 * asked) /* cut to what the budget kept for it */
        snprintf(times, sizeof times, "%.2gx: what the budget kept for a re-run fits",
                 (double)draws / (double)asked);
    fprintf(stderr, "specverify: %s is SUSPECT on seed %llu (%s: p = %.3g < %g); re-running "
            "it with seed %llu and %llu draws (%s) to tell a fluke from a defect\n", c->name,
            (unsigned long long)first->seed, check, p, SV_SUSPECT_P, (unsigned long long)seed,
            (unsigned long long)draws, times);
    fflush(stderr);
}

/* Case i of the config's specs (its draws, its shard index), the run's
 * done + 1st. */
static int verify_case(const sv_verify_config *cfg, size_t i, size_t done, const sv_case *c,
                       double split, sv_case_report *cr)
{
    sv_case_report_init(cr, c);

    sv_drafter *d = NULL;
    int rc = sv_drafter_alloc(c, &d);
    if (rc != SV_OK)
        return rc;
    char label[SV_CASE_NAME_MAX + 64];
    snprintf(label, sizeof label, "[%zu/%zu] %s", done + 1, cfg->n_cases, c->name);
    rc = run_once(cfg, c, d, cfg->seed, cfg->draws[i], split, label, &cr->runs[0], i);
    cr->runs[0].asked = cfg->draws[i];
    cr->n_runs = 1;
    if (rc == SV_OK && cr->runs[0].verdict == SV_SUSPECT && cfg->rerun_suspects &&
        !sv_interrupted()) {
        snprintf(label, sizeof label, "[%zu/%zu] %s (re-run)", done + 1, cfg->n_cases, c->name);
        if (cfg->progress)
            announce_rerun(c, &cr->runs[0], sv_rerun_seed(cfg->seed), cfg->draws[i],
                           rerun_draws(cfg, i));
        rc = run_once(cfg, c, d, sv_rerun_seed(cfg->seed), rerun_draws(cfg, i), split, label,
                      &cr->runs[1], SIZE_MAX);
        cr->runs[1].asked = rerun_draws(cfg, i);
        cr->n_runs = 2;
    }
    sv_drafter_free(d);
    cr->verdict = cr->runs[cr->n_runs - 1].verdict;
    return rc;
}

/* Cases which[0..n) run together in mixed batches; each re-run alone. */
static int verify_group(const sv_verify_config *cfg, const size_t *which, int32_t n,
                        sv_case *const *cases, size_t done, double split, sv_case_report *crs)
{
    const sv_case **group = calloc((size_t)n, sizeof *group);
    uint64_t *draws = calloc((size_t)n, sizeof *draws);
    sv_run_eval *evals = calloc((size_t)n, sizeof *evals);
    if (!group || !draws || !evals) {
        free(group);
        free(draws);
        free(evals);
        return sv_fail(SV_EENV, "out of memory for %d cases", n);
    }
    for (int32_t k = 0; k < n; k++) {
        group[k] = cases[which[k]];
        draws[k] = cfg->draws[which[k]];
        sv_case_report_init(&crs[k], group[k]);
    }
    char label[SV_CASE_NAME_MAX + 96];
    if (n > 1)
        snprintf(label, sizeof label, "[%zu-%zu/%zu] %s and %d more, mixed", done + 1,
                 done + (size_t)n, cfg->n_cases, group[0]->name, n - 1);
    else
        snprintf(label, sizeof label, "[%zu/%zu] %s", done + 1, cfg->n_cases, group[0]->name);
    int rc = sv_verify_mix(cfg, group, draws, n, cfg->seed, 1, split, !cfg->no_mix_probes, label,
                           evals, which);
    int32_t k = 0;
    for (; k < n && rc == SV_OK; k++) {
        sv_case_report *cr = &crs[k];
        cr->runs[0] = evals[k];
        cr->runs[0].asked = draws[k];
        cr->n_runs = 1;
        if (cr->runs[0].verdict == SV_SUSPECT && cfg->rerun_suspects && !sv_interrupted()) {
            snprintf(label, sizeof label, "[%zu/%zu] %s (re-run)", done + (size_t)k + 1,
                     cfg->n_cases, group[k]->name);
            const uint64_t again = rerun_draws(cfg, which[k]);
            if (cfg->progress)
                announce_rerun(group[k], &cr->runs[0], sv_rerun_seed(cfg->seed), draws[k],
                               again);
            rc = sv_verify_mix(cfg, &group[k], &again, 1, sv_rerun_seed(cfg->seed), 1, split, 0,
                               label, &cr->runs[1], NULL);
            cr->runs[1].asked = again;
            cr->n_runs = 2;
        }
        cr->verdict = cr->runs[cr->n_runs - 1].verdict;
    }
    for (; k < n; k++) /* not handed to the report: their counts freed here */
        sv_run_eval_free(&evals[k]);
    free(group);
    free(draws);
    free(evals);
    return rc;
}

/* The cases that run with case i in one mixed batch, into which[]: i's
 * group, in suite order; claimed[] marks them. Older samplers, Markov pairs
 * and uniform runs: i alone. Returns the group's size. */
static int32_t group_of(const sv_verify_config *cfg, sv_case *const *cases, size_t i,
                        unsigned char *claimed, size_t *which)
{
    int32_t n = 0;
    which[n++] = i;
    claimed[i] = 1;
    if (cfg->uniform || cfg->one_case_a_mix || !cfg->sampler->layouts || cases[i]->chain ||
        cfg->tree)
        return n;
    const int own_drafts = (cfg->sampler->inputs & SV_INPUT_OWN_DRAFTS) != 0;
    for (size_t j = i + 1; j < cfg->n_cases; j++)
        if (!claimed[j] && sv_mixable(cases[i], cases[j]) &&
            (!own_drafts || sv_own_drafts_take(cases[j]))) {
            which[n++] = j;
            claimed[j] = 1;
        }
    return n;
}

/* The draws the run's first runs will take: a shard's share of each case (MPI's
 * ranks show every rank's draws summed: the whole run's). */
static uint64_t planned_draws(const sv_verify_config *cfg, const unsigned char *left_out)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < cfg->n_cases; i++)
        sum += left_out[i] ? 0 : cfg->draws[i];
    if (cfg->shard && cfg->shard->take && !cfg->watch && cfg->shard->count > 1)
        sum /= cfg->shard->count;
    return sum;
}

int sv_case_ready(const char *spec, int32_t input, int rule, sv_case **out)
{
    char err[512];
    if (sv_case_from_spec(spec, out, err, sizeof err) != 0 ||
        (input != SV_INPUT_PROBS && sv_case_use_logits(*out, input, err, sizeof err) != 0))
        return sv_fail(SV_EBAD, "%s", err);
    /* an exact-match sampler is given no draft rows: in law it is the chain
     * rule with a one-hot drafter, and is judged as one */
    if (rule == SV_RULE_EXACT_MATCH)
        sv_case_as_one_hot(*out);
    /* a recording's name holds its path, which the user chose: escaped */
    char name[sizeof (*out)->name];
    sv_escaped(name, sizeof name, (*out)->name);
    memcpy((*out)->name, name, sizeof name);
    return SV_OK;
}

int sv_takes_uniform(const sv_sampler *s)
{
    return !(s->inputs & SV_INPUT_OWN_DRAFTS) && sv_takes_broadcast(s);
}

int sv_verify(const sv_verify_config *given, sv_report **out)
{
    *out = NULL;
    sv_verify_config adjusted = *given; /* the seeding a sampler that lacks seeds can take */
    const sv_verify_config *cfg = &adjusted;
    sv_report *r = calloc(1, sizeof *r);
    sv_case **cases = calloc(cfg->n_cases ? cfg->n_cases : 1, sizeof *cases);
    unsigned char *left_out = calloc(cfg->n_cases ? cfg->n_cases : 1, 1);
    if (r)
        r->cases = calloc(cfg->n_cases ? cfg->n_cases : 1, sizeof *r->cases);
    if (!r || !cases || !r->cases || !left_out) {
        free(cases);
        free(left_out);
        sv_report_free(r);
        return sv_fail(SV_EENV, "out of memory for %zu cases", cfg->n_cases);
    }
    /* build and check every case before sampling any, so bad input costs nothing */
    int rc = cfg->uniform ? SV_OK : sv_lacks_seeding(cfg, &adjusted.seeding);
    if (cfg->uniform && !(cfg->sampler->inputs & SV_INPUT_OWN_DRAFTS) &&
        !sv_takes_broadcast(cfg->sampler))
        rc = sv_fail(SV_EBAD, "--batches uniform: sampler %s takes only the packed layout, "
                     "which cannot broadcast one row set to every sequence; run it with mixed "
                     "batches (the default)", cfg->sampler->name);
    if (rc == SV_OK && cfg->device_staging)
        rc = device_staging_refusal(cfg);
    for (size_t i = 0; i < cfg->n_cases && rc == SV_OK; i++) {
        rc = sv_case_ready(cfg->specs[i], cfg->input, cfg->sampler->rule, &cases[i]);
        if (rc == SV_OK) {
            /* a tree is judged by depth: the case's rows past its depth go unused */
            if (cfg->tree) {
                sv_tree cut;
                sv_tree_cut(cfg->tree, cases[i]->K, &cut);
                cases[i]->K = cut.depth;
            }
            left_out[i] = (unsigned char)sv_lacks_leaves_out(cfg, cases[i]);
            if (!left_out[i])
                r->n_tests += sv_tests_per_case(cases[i]);
        }
    }
    if (rc == SV_OK)
        rc = sv_lacks_nothing_left(cfg, cases, left_out);
    r->sampler = cfg->sampler->name;
    /* the plugin's own words: escaped, as everything a sampler says is */
    r->sampler_description = sv_escaped(r->description, sizeof r->description,
                                        cfg->sampler->description);
    r->suite = cfg->suite;
    r->seed = cfg->seed;
    r->alpha = cfg->alpha;
    r->split_alpha = sv_bonferroni(cfg->alpha, r->n_tests);
    r->threads = cfg->threads;
    r->batch = cfg->batch;
    r->input = cfg->input;
    r->rule = cfg->sampler->rule;
    if (cfg->tree)
        snprintf(r->tree, sizeof r->tree, "%s", cfg->tree->name);

    /* a sampler drawing its own drafts cannot take cases without fixed draft
     * rows (own_drafts.c): left out beside what it lacks, said apart */
    const int own_drafts = (cfg->sampler->inputs & SV_INPUT_OWN_DRAFTS) != 0;
    size_t skipped = 0;
    char own_text[512] = "";
    for (size_t i = 0; i < cfg->n_cases && rc == SV_OK && own_drafts; i++)
        if (!left_out[i] && !sv_own_drafts_take(cases[i])) {
            skipped++;
            r->n_tests -= sv_tests_per_case(cases[i]);
        }
    if (rc == SV_OK && own_drafts)
        rc = sv_own_drafts_refusal(cfg, cases, skipped, own_text, sizeof own_text);
    r->split_alpha = sv_bonferroni(cfg->alpha, r->n_tests);
    r->mixed = !cfg->uniform && !cfg->tree;
    r->seeding = cfg->seeding;
    r->lacks = cfg->sampler->lacks;
    const char *older = NULL;
    if (!cfg->uniform && !cfg->sampler->layouts)
        older = "mixed batches, ragged drafts, the packed layout, per-sequence seeds and "
                "rules (a sampler of contract version 1 or 2 gets batches of one case, "
                "every sequence on the batch's seed and first index + b)";
    sv_lacks_describe(cfg, cases, left_out, older, r->not_taken_text, sizeof r->not_taken_text);
    if (own_text[0]) {
        const size_t at = strlen(r->not_taken_text);
        snprintf(r->not_taken_text + at, sizeof r->not_taken_text - at, "%s%s",
                 at ? "; " : "", own_text);
    }
    if (r->not_taken_text[0])
        r->not_taken = r->not_taken_text;
    for (size_t i = 0; i < cfg->n_cases && rc == SV_OK && own_drafts; i++)
        left_out[i] |= (unsigned char)!sv_own_drafts_take(cases[i]); /* never run */
    r->n_planned = 0;
    for (size_t i = 0; i < cfg->n_cases; i++)
        r->n_planned += !left_out[i];
    size_t *which = calloc(cfg->n_cases ? cfg->n_cases : 1, sizeof *which);
    unsigned char *claimed = calloc(cfg->n_cases ? cfg->n_cases : 1, 1);
    if (!which || !claimed)
        rc = rc == SV_OK ? sv_fail(SV_EENV, "out of memory for %zu cases", cfg->n_cases) : rc;
    for (size_t i = 0; claimed && i < cfg->n_cases; i++)
        claimed[i] = left_out[i]; /* never run, never grouped */
    double start = sv_now();
    if (cfg->progress) /* the progress lines' time left: the whole run's */
        sv_progress_run_begin(planned_draws(cfg, left_out));
    for (size_t i = 0; i < cfg->n_cases && rc == SV_OK; i++) {
        if (claimed[i])
            continue;
        const int32_t n = group_of(cfg, cases, i, claimed, which);
        sv_case_report *crs = &r->cases[r->n_cases];
        if (cases[i]->chain || cfg->uniform || cfg->tree)
            rc = verify_case(cfg, i, r->n_cases, cases[i], r->split_alpha, crs);
        else
            rc = verify_group(cfg, which, n, cases, r->n_cases, r->split_alpha, crs);
        if (rc != SV_OK) { /* a failed group's cases are not reported: freed here */
            for (int32_t k = 0; k < n; k++)
                for (int j = 0; j < crs[k].n_runs; j++)
                    sv_run_eval_free(&crs[k].runs[j]);
            break;
        }
        int stop = 0;
        int32_t k = 0;
        for (; k < n && !stop; k++) {
            sv_case_report *cr = &crs[k];
            cr->spec = which[k];
            r->n_cases++;
            for (int j = 0; j < cr->n_runs; j++)
                r->total_draws += cr->runs[j].draws;
            if (cr->verdict == SV_FAIL)
                r->failed++;
            else if (cr->verdict == SV_SUSPECT)
                r->suspect++;
            else
                r->passed++;
            /* interrupted: these cases ran on the draws they finished, the rest not at all */
            r->interrupted = sv_interrupted();
            if (cfg->shard && cfg->shard->give && cfg->shard->stopped_by) /* the shards' signal */
                r->interrupted = r->n_cases >= cfg->shard->stopped_after
                                     ? cfg->shard->stopped_by : 0;
            stop = r->interrupted || (cfg->case_done && cfg->case_done(r, cfg->case_done_ctx));
        }
        for (; k < n; k++) /* the group's cases past a stop: not reported, their counts freed */
            for (int j = 0; j < crs[k].n_runs; j++)
                sv_run_eval_free(&crs[k].runs[j]);
        if (stop)
            break;
    }
    if (cfg->progress)
        sv_progress_run_end();
    free(which);
    free(claimed);
    free(left_out);
    r->seconds = sv_now() - start + cfg->seconds_before;
    for (size_t i = 0; i < cfg->n_cases; i++)
        sv_case_free(cases[i]);
    free(cases);
    if (rc != SV_OK) {
        sv_report_free(r);
        return rc;
    }
    *out = r;
    return SV_OK;
}

int sv_report_contract_broken(const sv_report *r)
{
    for (size_t i = 0; i < r->n_cases; i++)
        for (int j = 0; j < r->cases[i].n_runs; j++)
            if (r->cases[i].runs[j].contract_verdict == SV_FAIL)
                return 1;
    return 0;
}

void sv_report_free(sv_report *r)
{
    if (!r)
        return;
    for (size_t i = 0; r->cases && i < r->n_cases; i++)
        for (int j = 0; j < r->cases[i].n_runs; j++)
            sv_run_eval_free(&r->cases[i].runs[j]);
    free(r->cases);
    free(r);
}
