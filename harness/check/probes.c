/* probes.c: two checks no distribution can make, run on a few sequences of
 * a mix after its main run (docs/statistics.md, "Mixed batches").
 *
 * Batch-composition invariance: the same seeded sequences run twice, once
 * in order with one set of neighbours, once in reverse with others, in
 * another batch size and (when the sampler takes both) the other layout;
 * a seeded sequence's tokens must be identical (vLLM's seeded-request
 * guarantee). Deterministic: any difference fails its case. A sampler of
 * contract version 1 or 2 addresses every sequence by the batch's seed and
 * first index + b, so its sequences must stay consecutive: every one is
 * bound, and is run again at the same index in another batch size (so at
 * another place, after another first index).
 *
 * Seed sensitivity: the first composition again with every sampler seed
 * changed and the same drafts. A sampler whose randomness follows its
 * seeds gives sequence j the same tokens again with probability pi_j (the
 * collision probability of its outputs, exact from its rows and drafts);
 * a case fails when all its probed sequences came out the same while the
 * product of their pi_j is below SV_SEED_FALSE_ALARM. It needs only a
 * batch's seed and first index, so it runs for every contract version. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sv_check.h"

/* Probed sequences per mix, at most (two slots each: a target and a neighbour). */
#define PROBE_TARGETS 128
/* The second composition's batch size: small, unlike any default. */
#define PROBE_SMALL_BATCH 6
/* Indices of the probe's sequences: far from any run's (sv_run.h). */
#define PROBE_INDEX SV_PROBE_INDEX

/* sum_t f(t)^2 of the final token's distribution after n accepted drafts. */
static double final_collision(const sv_case *c, int32_t n, int32_t d, const int32_t *x,
                              double *w)
{
    const int32_t V = c->V;
    const float *p = c->target + (size_t)n * V;
    double total = 0.0;
    for (int32_t i = 0; i < V; i++) {
        double q = n >= d ? 0.0 : c->draft_probs_given ? c->draft[(size_t)n * V + i]
                                                       : (i == x[n] ? 1.0 : 0.0);
        w[i] = p[i] > q ? p[i] - q : 0.0;
        total += w[i];
    }
    if (!(total > 0.0)) { /* an empty residual: samplers fall back to p */
        total = 0.0;
        for (int32_t i = 0; i < V; i++)
            total += (w[i] = p[i]);
    }
    double s = 0.0;
    for (int32_t i = 0; i < V; i++)
        s += (w[i] / total) * (w[i] / total);
    return s;
}

/* pi: the chance two independent runs on these drafts give the same tokens. */
static double collision(const sv_case *c, int32_t d, const int32_t *x, double *w)
{
    double reach = 1.0, pi = 0.0;
    for (int32_t n = 0; n <= d; n++) {
        double a = 0.0; /* draft n accepted */
        if (n < d) {
            double p = c->target[(size_t)n * c->V + x[n]];
            double q = c->draft_probs_given ? c->draft[(size_t)n * c->V + x[n]] : 1.0;
            a = q > 0.0 ? fmin(1.0, p / q) : (p > 0.0);
        }
        double stop = reach * (1.0 - a); /* P(exactly n accepted) */
        if (stop > 0.0)
            pi += stop * stop * final_collision(c, n, d, x, w);
        reach *= a;
    }
    return pi;
}

static int same_tokens(const int32_t *a, const int32_t *b)
{
    return memcmp(a, b, (SV_MAX_K + 2) * sizeof *a) == 0;
}

typedef struct probe_run {
    sv_mix *mix;
    int32_t *capture;
} probe_run;

static int run_probe(const sv_verify_config *cfg, const sv_mix *from, const int32_t *slots,
                     const uint64_t *indices, int32_t L, int32_t batch, int last_layout,
                     uint64_t seed, uint64_t xor_seed, const sv_drafter *const *drafters,
                     probe_run *out, sv_tally **tallies)
{
    int rc = sv_mix_build_probe(from, slots, indices, L, &out->mix);
    if (rc != SV_OK)
        return rc;
    if (last_layout) /* the other layout, when the sampler takes two */
        out->mix->layout_list[0] = from->layout_list[from->n_layouts - 1];
    out->mix->n_layouts = 1;
    out->capture = malloc((size_t)L * (SV_MAX_K + 2) * sizeof *out->capture);
    sv_pair_plan *plans = calloc((size_t)from->n_cases, sizeof *plans);
    if (!out->capture || !plans) {
        free(plans);
        return sv_fail(SV_EENV, "out of memory for a probe");
    }
    sv_run_config run = {cfg->sampler, (uint64_t)L, seed, batch, 1, 0, "probe", cfg->input,
                         cfg->in_process, cfg->call_timeout, NULL, 0, 0, NULL, 0};
    rc = sv_run_mix(&run, out->mix, drafters, plans, tallies, xor_seed, out->capture);
    free(plans);
    return rc;
}

static void probe_free(probe_run *p)
{
    sv_mix_free(p->mix);
    free(p->capture);
}

/* A probe whose calls failed fails every case of the mix, with the note. */
static int probe_failed(sv_tally **tallies, const sv_mix *m, sv_run_eval *evals)
{
    for (int32_t c = 0; c < m->n_cases; c++) {
        if (!tallies[c]->sampler_error) /* a broken contract: the main run tells it */
            continue;
        for (int32_t i = 0; i < m->n_cases; i++) {
            evals[i].batch_verdict = SV_FAIL;
            if (tallies[c]->n_notes && evals[i].n_findings < SV_MAX_FINDINGS)
                snprintf(evals[i].findings[evals[i].n_findings++], SV_FINDING_LEN,
                         "probe of mixed batches: %.280s", tallies[c]->notes[0]);
        }
        return 1;
    }
    return 0;
}

static void finding(sv_run_eval *ev, const char *text)
{
    if (ev->n_findings < SV_MAX_FINDINGS)
        snprintf(ev->findings[ev->n_findings++], SV_FINDING_LEN, "%s", text);
}

/* --dump-failing: the batch of probe run r (calls of `batch`) holding its
 * sequence j. */
static sv_failing_batch batch_of(const probe_run *r, int32_t batch, int32_t j,
                                 const sv_drafter *const *drafters, gsl_rng *philox,
                                 uint64_t seed)
{
    const sv_run_config cut = {.batch = batch};
    const int32_t B = sv_run_mix_cut(&cut, r->mix).batch, s0 = j / B * B;
    const int32_t len = r->mix->period - s0 < B ? r->mix->period - s0 : B;
    return (sv_failing_batch){r->mix, drafters, philox, seed, s0, len, r->mix->layout_list[0],
                              r->mix->index_of + s0, r->capture + (size_t)s0 * (SV_MAX_K + 2),
                              j - s0};
}

/* Compositions A (targets in order) and B (reversed, other neighbours), and
 * A again under other seeds: judged into evals. */
static void judge(const sv_verify_config *cfg, const sv_mix *m,
                  const sv_drafter *const *drafters, uint64_t seed, const probe_run *a,
                  const probe_run *b, const probe_run *s, int32_t P, sv_run_eval *evals,
                  double *w, gsl_rng *philox)
{
    const size_t row = SV_MAX_K + 2;
    const int v3 = a->mix->v3;
    /* invariance: v3's seeded targets (B holds target i at 2(P-1-i)+1); an
     * older sampler's every sequence (B holds sequence j at j) */
    for (int32_t i = 0; i < (v3 ? P : 2 * P); i++) {
        const int32_t ja = v3 ? 2 * i : i, jb = v3 ? 2 * (P - 1 - i) + 1 : i;
        const int32_t ci = a->mix->case_of[ja];
        if (v3 && !a->mix->seeded[ja])
            continue;
        const int32_t *ta = a->capture + (size_t)ja * row;
        const int32_t *tb = b->capture + (size_t)jb * row;
        if (ta[0] < 0 || tb[0] < 0)
            continue; /* broke the contract: the main run says so */
        sv_run_eval *ev = &evals[ci];
        ev->batch_probed++;
        if (same_tokens(ta, tb))
            continue;
        if (ev->batch_changed++ == 0) {
            char text[SV_FINDING_LEN];
            snprintf(text, sizeof text, "batch composition: %ssequence %llu gave n = %d, "
                     "first token %d, %s, and n = %d, first token %d, in another batch (its "
                     "seed%s and drafts the same)", v3 ? "seeded " : "",
                     (unsigned long long)a->mix->index_of[ja], ta[0], ta[1],
                     v3 ? "beside one set of neighbours" : "in one batch size", tb[0], tb[1],
                     v3 ? "" : ", index");
            finding(ev, text);
            if (cfg->dump) {
                const sv_failing_batch fa = batch_of(a, cfg->batch, ja, drafters, philox, seed);
                const sv_failing_batch fb = batch_of(b, PROBE_SMALL_BATCH, jb, drafters, philox,
                                                     seed);
                sv_dump_composition(cfg->dump, m->cases[ci], text, &fa, &fb);
            }
        }
    }
    int32_t x[SV_MAX_K];
    for (int32_t j = 0; j < 2 * P; j++) { /* seed sensitivity: every sequence of A */
        const int32_t ci = a->mix->case_of[j], d = a->mix->drafts[j];
        const int32_t *ta = a->capture + (size_t)j * row, *ts = s->capture + (size_t)j * row;
        if (ta[0] < 0 || ts[0] < 0)
            continue;
        sv_drafter_draw(drafters[ci], philox, seed, a->mix->index_of[j], x);
        sv_run_eval *ev = &evals[ci];
        ev->seed_probed++;
        ev->seed_same += same_tokens(ta, ts);
        ev->seed_chance *= collision(m->cases[ci], d, x, w);
    }
    for (int32_t c = 0; c < m->n_cases; c++) {
        sv_run_eval *ev = &evals[c];
        ev->batch_verdict = ev->batch_probed == 0 ? SV_NA
                            : ev->batch_changed   ? SV_FAIL
                                                  : SV_PASS;
        ev->seed_verdict = ev->seed_probed == 0                    ? SV_NA
                           : ev->seed_same < ev->seed_probed       ? SV_PASS
                           : ev->seed_chance > SV_SEED_FALSE_ALARM ? SV_NA
                                                                   : SV_FAIL;
        if (ev->seed_verdict == SV_FAIL) {
            char text[SV_FINDING_LEN];
            snprintf(text, sizeof text, "seed sensitivity: all %llu probed sequences gave the "
                     "same tokens under other seeds (chance %.3g for a sampler whose "
                     "randomness follows its seeds)", (unsigned long long)ev->seed_probed,
                     ev->seed_chance);
            finding(ev, text);
        }
        if (ev->batch_verdict == SV_FAIL) {
            char text[SV_FINDING_LEN];
            snprintf(text, sizeof text, "batch composition: %llu of %llu %ssequences "
                     "changed their tokens with their %s", (unsigned long long)ev->batch_changed,
                     (unsigned long long)ev->batch_probed, m->v3 ? "seeded " : "",
                     m->v3 ? "neighbours" : "batch");
            finding(ev, text);
        }
    }
}

int sv_probe_mix(const sv_verify_config *cfg, const sv_mix *m, const sv_drafter *const *drafters,
                 uint64_t seed, sv_run_eval *evals)
{
    const int32_t L = m->period, P = L / 2 < PROBE_TARGETS ? L / 2 : PROBE_TARGETS;
    int32_t *slots = malloc((size_t)6 * P * sizeof *slots);
    uint64_t *idx = malloc((size_t)6 * P * sizeof *idx);
    sv_tally **tallies = calloc((size_t)m->n_cases, sizeof *tallies);
    double *w = malloc((size_t)m->V * sizeof *w);
    gsl_rng *philox = gsl_rng_alloc(sv_gsl_rng_philox);
    probe_run a = {0}, b = {0}, s = {0};
    sv_pair_plan none;
    memset(&none, 0, sizeof none);
    int rc = slots && idx && tallies && w && philox ? SV_OK
                                                    : sv_fail(SV_EENV, "out of memory for a probe");
    for (int32_t c = 0; c < m->n_cases && rc == SV_OK; c++)
        rc = sv_tally_alloc(m->cases[c], &none, &tallies[c]);
    if (rc == SV_OK) {
        int32_t *sa = slots, *sb = slots + 2 * (size_t)P;
        uint64_t *ia = idx, *ib = idx + 2 * (size_t)P;
        for (int32_t j = 0; !m->v3 && j < 2 * P; j++) {
            /* an older sampler's indices run on from first_index: A and B
             * the same consecutive sequences, cut into other batches */
            sa[j] = sb[j] = j;
            ia[j] = ib[j] = PROBE_INDEX + (uint64_t)j;
        }
        for (int32_t i = 0; m->v3 && i < P; i++) {
            /* A: target i, then a neighbour; B: another neighbour, then target P-1-i */
            sa[2 * (size_t)i] = i;
            ia[2 * (size_t)i] = PROBE_INDEX + (uint64_t)i;
            sa[2 * (size_t)i + 1] = (P + i) % L;
            ia[2 * (size_t)i + 1] = PROBE_INDEX + (uint64_t)(P + i);
            sb[2 * (size_t)i] = L - 1 - i;
            ib[2 * (size_t)i] = PROBE_INDEX + (uint64_t)(2 * P + i);
            sb[2 * (size_t)i + 1] = P - 1 - i;
            ib[2 * (size_t)i + 1] = PROBE_INDEX + (uint64_t)(P - 1 - i);
        }
        rc = run_probe(cfg, m, sa, ia, 2 * P, cfg->batch, 0, seed, 0, drafters, &a, tallies);
        if (rc == SV_OK)
            rc = run_probe(cfg, m, sb, ib, 2 * P, PROBE_SMALL_BATCH, 1, seed, 0, drafters, &b,
                           tallies);
        if (rc == SV_OK)
            rc = run_probe(cfg, m, sa, ia, 2 * P, cfg->batch, 0, seed, 0x5eed0f5eed0f5eedull,
                           drafters, &s, tallies);
    }
    for (int32_t c = 0; c < m->n_cases; c++)
        evals[c].seed_chance = 1.0;
    if (rc == SV_OK && !sv_interrupted() && !probe_failed(tallies, m, evals))
        judge(cfg, m, drafters, seed, &a, &b, &s, P, evals, w, philox);
    for (int32_t c = 0; c < m->n_cases; c++) {
        evals[c].verdict = sv_verdict_worst(evals[c].verdict, evals[c].batch_verdict);
        evals[c].verdict = sv_verdict_worst(evals[c].verdict, evals[c].seed_verdict);
        sv_tally_free(tallies ? tallies[c] : NULL);
    }
    probe_free(&a);
    probe_free(&b);
    probe_free(&s);
    free(tallies);
    free(slots);
    free(idx);
    free(w);
    if (philox)
        gsl_rng_free(philox);
    return rc;
}
