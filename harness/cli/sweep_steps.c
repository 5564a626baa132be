/* sweep_steps.c: a whole recording's steps at one sweep point, run as mixes
 * of many steps (one case each) instead of one run a step.
 *
 * Each run starts the sampler's process, and a Python sampler's start is an
 * interpreter and its imports (a second with torch): at one run a step, a
 * recording of 200 steps paid it 200 times a point. A sampler of the user's
 * own (a plugin, Python) therefore runs a point's steps in as few mixes as
 * the rows' budget allows, and so does one that takes the packed layout
 * alone, which a step's uniform batches cannot be given (its points of one
 * case are mixes of one, sweep_run_mix). Every sequence drafts its step's
 * K and none is seeded. The built-in samplers keep a run a step: their
 * forks are cheap, and results/ holds sweeps that their commands reproduce
 * draw for draw. */
#include <stdlib.h>
#include <string.h>
#include "sv_cases.h"
#include "sv_check.h"
#include "sv_run.h"
#include "sweep_points.h"

int sweep_steps_mixed(const sweep_args *a)
{
    if (a->tree)
        return 0;
    if (!sv_takes_broadcast(a->sampler))
        return 1;
    for (size_t i = 0; i < sv_registry_count(); i++)
        if (sv_registry_get(i) == a->sampler) {
            const char *origin = sv_registry_origin(i);
            return strcmp(origin, "built-in") != 0 && strcmp(origin, "broken") != 0;
        }
    return 0;
}

/* What one mix of steps holds, each step's. */
typedef struct steps_mix {
    int32_t n;
    sv_case **cases;
    sv_drafter **drafters;
    sv_tally **tallies;
    sv_pair_plan *plans; /* empty: acceptance only, no independence tables */
    uint64_t *draws;
} steps_mix;

static void mix_free(steps_mix *m)
{
    for (int32_t i = 0; i < m->n; i++) {
        if (m->tallies)
            sv_tally_free(m->tallies[i]);
        if (m->drafters)
            sv_drafter_free(m->drafters[i]);
        if (m->cases)
            sv_case_free(m->cases[i]);
    }
    free(m->cases), free(m->drafters), free(m->tallies), free(m->plans), free(m->draws);
    memset(m, 0, sizeof *m);
}

/* Steps first..first+n of spec, each built with its drafter and tally. */
static int mix_make(const sweep_args *a, const char *spec, int64_t steps, int64_t first,
                    int32_t n, steps_mix *m)
{
    memset(m, 0, sizeof *m);
    m->cases = calloc((size_t)n, sizeof *m->cases);
    m->drafters = calloc((size_t)n, sizeof *m->drafters);
    m->tallies = calloc((size_t)n, sizeof *m->tallies);
    m->plans = calloc((size_t)n, sizeof *m->plans);
    m->draws = calloc((size_t)n, sizeof *m->draws);
    if (!m->cases || !m->drafters || !m->tallies || !m->plans || !m->draws) {
        mix_free(m);
        return sv_fail(SV_EENV, "out of memory for %d steps", n);
    }
    m->n = n;
    int rc = SV_OK;
    for (int32_t i = 0; i < n && rc == SV_OK; i++) {
        char step[SV_CASE_NAME_MAX * 2], err[1024];
        if ((size_t)snprintf(step, sizeof step, "%s,step=%lld", spec,
                             (long long)first + i) >= sizeof step)
            rc = sv_fail(SV_EBAD, "sweep: the case spec %s is too long", spec);
        else if (sv_case_from_spec(step, &m->cases[i], err, sizeof err) != 0)
            rc = sv_fail(SV_EBAD, "%s", err);
        if (rc == SV_OK && a->sampler->rule == SV_RULE_EXACT_MATCH)
            sv_case_as_one_hot(m->cases[i]); /* no draft rows; alpha = sum p q */
        if (rc == SV_OK)
            rc = sv_drafter_alloc(m->cases[i], &m->drafters[i]);
        if (rc == SV_OK)
            rc = sv_tally_alloc(m->cases[i], &m->plans[i], &m->tallies[i]);
        m->draws[i] = sweep_step_draws(a, steps, first + i);
    }
    if (rc != SV_OK)
        mix_free(m);
    return rc;
}

int sweep_run_mix(const sweep_args *a, const char *spec, uint64_t seed, int32_t n,
                  const sv_case *const *cases, const sv_drafter *const *drafters,
                  const sv_pair_plan *plans, sv_tally **tallies, const uint64_t *draws)
{
    const sv_mix_config mc = {.cases = cases, .n_cases = n, .draws = draws, .seed = seed,
                              .layouts = a->sampler->layouts, .seeding = SV_SEEDING_NONE,
                              .ragged = 0, .budget = SV_MIX_BUDGET, .alias = 1};
    sv_mix *mix = NULL;
    int rc = sv_mix_build(&mc, &mix);
    if (rc != SV_OK)
        return rc;
    sv_run_config cfg = {a->sampler, mix->draws, seed, a->batch, a->threads, 1, spec,
                         SV_INPUT_PROBS, a->iso.in_process, a->iso.call_timeout, NULL,
                         0, 0, NULL, 0};
    sv_shard_at at;
    const sv_shard_hooks *sh = sv_cmd_shard_next(a->shard, (size_t)n, a->label, &at);
    if (sh && sh->give) {
        const size_t count = sh->count;
        uint64_t *shares = calloc((size_t)n * (count ? count : 1), sizeof *shares);
        rc = shares ? sv_run_mix_shares(&cfg, mix, sh->count, shares)
                    : sv_fail(SV_EENV, "out of memory for %zu shards", count);
        sv_shard_probe none;
        memset(&none, 0, sizeof none);
        for (int32_t i = 0; i < n && rc == SV_OK; i++)
            rc = sh->give(sh->ctx, (size_t)i, cases[i], &plans[i], tallies[i], &none,
                          count ? &shares[(size_t)i * count] : NULL);
        free(shares);
    } else {
        if (sh && sh->take)
            cfg.shard = sh->index, cfg.shards = sh->count;
        rc = sv_run_mix(&cfg, mix, drafters, plans, tallies, 0, NULL);
        for (int32_t i = 0; i < n && rc == SV_OK && sh && sh->take; i++)
            rc = sh->take(sh->ctx, (size_t)i, cases[i], &plans[i], tallies[i], NULL);
        if (rc == SV_OK && sh && sh->take && sv_interrupted()) /* whole points or no file */
            rc = 128 + sv_interrupted();
    }
    sv_mix_free(mix);
    return rc;
}

/* Steps a mix holds: at least two slots a step fit SV_MIX_BUDGET's bytes of
 * rows, as sv_mix_build lays them out (2K + 1 rows of V floats a slot). */
static int32_t steps_a_mix(const sv_case *c, int64_t steps)
{
    const size_t slot = (size_t)(2 * c->K + 1) * (size_t)c->V * sizeof(float);
    const size_t fit = SV_MIX_BUDGET / (2 * slot);
    return (int32_t)(fit < 1 ? 1 : (fit > (size_t)steps ? (size_t)steps : fit));
}

int sweep_run_steps(const sweep_args *a, const char *spec, int64_t steps, sweep_point *each)
{
    sv_case *c0 = NULL;
    int rc = sweep_first_case(spec, &c0);
    if (rc != SV_OK)
        return rc;
    const int32_t per = steps_a_mix(c0, steps);
    sv_case_free(c0);
    for (int64_t first = 0, mix = 0; rc == SV_OK && first < steps; first += per, mix++) {
        const int32_t n = (int32_t)(steps - first < per ? steps - first : per);
        steps_mix m;
        /* a key per mix: sequences are numbered from 0 in each */
        rc = mix_make(a, spec, steps, first, n, &m);
        if (rc == SV_OK)
            rc = sweep_run_mix(a, spec, sweep_step_seed(a, mix), n,
                               (const sv_case *const *)m.cases,
                               (const sv_drafter *const *)m.drafters, m.plans, m.tallies,
                               m.draws);
        for (int32_t i = 0; i < n && rc == SV_OK; i++)
            rc = sweep_point_fill(a, m.cases[i]->name, m.cases[i], m.tallies[i], m.draws[i],
                                  &each[first + i]);
        if (m.n)
            mix_free(&m);
    }
    return rc;
}
