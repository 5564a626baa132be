/* sweep_points.c: the points of `specverify sweep`: a point's case spec,
 * and its run through the sampler (one case, or every step of a recording
 * pooled) into acceptance, tokens per step and, per position, the distance
 * from p. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sv_cases.h"
#include "sv_run.h"
#include "sweep_points.h"

/* A whole recording ("recorded:..." without step=) is one case per step. */
int sweep_whole_recording(const char *spec, int64_t *steps)
{
    char err[2048];
    int has_step = 1;
    *steps = 1;
    if (strncmp(spec, "recorded:", 9) != 0)
        return 0;
    if (sv_recorded_spec_steps(spec, steps, &has_step, err, sizeof err) != 0)
        return 0; /* building the case reports the error */
    return !has_step;
}

/* The case a spec names; for a whole recording its first step, whose V and
 * K every step shares. */
int sweep_first_case(const char *spec, sv_case **c)
{
    char err[2048], step0[SV_CASE_NAME_MAX * 2];
    int64_t steps;
    if (sweep_whole_recording(spec, &steps)) {
        snprintf(step0, sizeof step0, "%s,step=0", spec);
        spec = step0;
    }
    return sv_case_from_spec(spec, c, err, sizeof err) == 0 ? SV_OK
                                                           : sv_fail(SV_EBAD, "%s", err);
}

/* SPEC with its own T= and K= removed, then the point's appended. */
void sweep_point_spec(const char *spec, int has_T, double T, int has_K, int32_t K, char *out,
                       size_t len)
{
    const char *colon = strchr(spec, ':');
    size_t family = colon ? (size_t)(colon - spec) : strlen(spec);
    snprintf(out, len, "%.*s", (int)family, spec);
    char sep = ':';
    if (colon) {
        char buf[SV_CASE_NAME_MAX * 2];
        snprintf(buf, sizeof buf, "%s", colon + 1);
        char *save = NULL;
        for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            if ((has_T && strncmp(t, "T=", 2) == 0) || (has_K && strncmp(t, "K=", 2) == 0))
                continue;
            snprintf(out + strlen(out), len - strlen(out), "%c%s", sep, t);
            sep = ',';
        }
    }
    if (has_T)
        snprintf(out + strlen(out), len - strlen(out), "%cT=%.6g", sep, T), sep = ',';
    if (has_K)
        snprintf(out + strlen(out), len - strlen(out), "%cK=%d", sep, K);
}

/* A tree sampler's K deeper than its tree: bad input, naming both. */
static int deeper_than_tree(const sweep_args *a, const sv_sampler *sampler, const sv_tree *tree,
                            int32_t K)
{
    return sv_fail(SV_EBAD, "sweep: K = %d is deeper than the tree %s (depth %d) of sampler %s: "
                   "give --tree a shape of depth %d or more, or --K up to %d", K,
                   a->tree_args.shape ? a->tree_args.shape : SV_TREE_DEFAULT, tree->depth,
                   sampler->name, K, tree->depth);
}

/* A Markov pair at a point: sweep measures fixed rows only. */
static int markov_refused(const char *spec)
{
    return sv_fail(SV_EBAD, "sweep: %s is a Markov pair, whose rows change every step; sweep "
                   "takes fixed-row cases", spec);
}

/* Every point's case, built once before the first draw: a --T or --K the
 * case cannot take (a family without T, a K past its limit, a K deeper
 * than a tree sampler's tree), or a Markov pair, is bad input named at
 * once, not an exit after the points before it have run. A whole
 * recording's points are checked at their first step (each step shares
 * its parameters), and only the first point of each axis' ends: its file
 * is read in a child of its own each time. */
int sweep_check_points(const sweep_args *a)
{
    const int has_T = a->n_T > 0, has_K = a->n_K > 0, n_T = has_T ? a->n_T : 1;
    const int n_K = has_K ? a->n_K : 1, recorded = strncmp(a->spec, "recorded:", 9) == 0;
    int rc = SV_OK;
    const sv_sampler *treed = NULL; /* the first tree sampler; --tree is every one's */
    sv_tree shape;
    const sv_tree *tree = NULL;
    for (int i = 0; !treed && i < a->n_samplers; i++)
        if (sv_rule_is_tree(a->samplers[i]->rule))
            treed = a->samplers[i];
    if (treed)
        rc = sv_tree_resolve("sweep", &a->tree_args, treed, SV_INPUT_PROBS, &shape, &tree);
    for (int i = 0; rc == SV_OK && i < n_T; i++)
        for (int j = 0; rc == SV_OK && j < n_K; j++) {
            if (recorded && !((i == 0 || i == n_T - 1) && (j == 0 || j == n_K - 1)))
                continue;
            char spec[SV_CASE_NAME_MAX * 2];
            sweep_point_spec(a->spec, has_T, has_T ? a->T[i] : 0, has_K, has_K ? a->K[j] : 0,
                             spec, sizeof spec);
            sv_case *c = NULL;
            if ((rc = sweep_first_case(spec, &c)) != SV_OK && (has_T || has_K)) {
                char why[2048];
                snprintf(why, sizeof why, "%s", sv_error_message());
                rc = sv_fail(rc, "sweep: the point %s: %s (%s set%s the case's own %s)", spec, why,
                             has_T && has_K ? "--T and --K" : has_T ? "--T" : "--K",
                             has_T && has_K ? "" : "s",
                             has_T && has_K ? "T= and K=" : has_T ? "T=" : "K=");
            }
            if (rc == SV_OK && c->chain)
                rc = markov_refused(spec);
            if (rc == SV_OK && tree && c->K > tree->depth)
                rc = deeper_than_tree(a, treed, tree, c->K);
            sv_case_free(c);
        }
    return rc;
}

/* Each position's distance from p, at the sweep's level (a lossy rule's
 * table shows them). */
static int point_distances(const sv_case *c, const sv_tally *t, double level, sweep_point *pt)
{
    double *p = malloc((size_t)c->V * sizeof *p);
    if (!p)
        return sv_fail(SV_EENV, "out of memory for a row of %d", c->V);
    for (int32_t k = 0; k <= c->K; k++) {
        sv_case_target_dist(c, k, p);
        pt->dist[k] = sv_distance_estimate(p, t->hist + (size_t)k * (size_t)c->V, c->V,
                                           t->reached[k], level);
    }
    free(p);
    return SV_OK;
}

int sweep_point_fill(const sweep_args *a, const char *spec, const sv_case *c,
                     const sv_tally *t, uint64_t draws, sweep_point *pt)
{
    if (t->sampler_error || t->violations)
        return sv_fail(SV_EVERIFY, "sweep: sampler %s broke the contract on %s (run "
                       "'specverify verify' on this case)", a->sampler->name, spec);
    pt->K = c->K;
    pt->draws = draws;
    for (int32_t k = 0; k < c->K; k++)
        pt->analytic[k] = sv_case_alpha(c, k);
    sv_measured_alpha(t->length, c->K, a->level, pt->measured);
    memcpy(pt->length, t->length, sizeof pt->length);
    pt->tokens_analytic = sv_expected_tokens(pt->analytic, c->K);
    pt->tokens_measured = sv_mean_tokens(t->length, c->K);
    sv_mean_tokens_interval(t->length, c->K, a->level, &pt->tokens_lo, &pt->tokens_hi);
    return point_distances(c, t, a->level, pt);
}

/* Runs the sampler on one case for `draws` draws. */
static int run_case(const sweep_args *a, const char *spec, uint64_t seed, uint64_t draws,
                    sweep_point *pt)
{
    char err[1024];
    sv_case *c = NULL;
    sv_drafter *d = NULL;
    sv_tally *t = NULL;
    sv_pair_plan plan;
    memset(&plan, 0, sizeof plan); /* no independence tables: acceptance only */
    if (sv_case_from_spec(spec, &c, err, sizeof err) != 0)
        return sv_fail(SV_EBAD, "%s", err);
    if (a->sampler->rule == SV_RULE_EXACT_MATCH) /* no draft rows; alpha = sum p q */
        sv_case_as_one_hot(c);
    if (c->chain) { /* sweep_check_points refused it before any draw; kept as the guard */
        sv_case_free(c);
        return markov_refused(spec);
    }
    sv_tree cut; /* a tree sampler's tree, cut to the point's K: the depth it is judged by */
    if (a->tree) {
        sv_tree_cut(a->tree, c->K, &cut);
        if (cut.depth < c->K) {
            const int32_t K = c->K;
            sv_case_free(c);
            return deeper_than_tree(a, a->sampler, a->tree, K);
        }
    }
    int rc = sv_drafter_alloc(c, &d);
    if (rc == SV_OK)
        rc = sv_tally_alloc(c, &plan, &t);
    if (rc == SV_OK) {
        sv_run_config cfg = {a->sampler, draws, seed, a->batch, a->threads,
                             1, spec, SV_INPUT_PROBS, /* progress, as verify shows it */
                             a->iso.in_process, a->iso.call_timeout, a->tree ? &cut : NULL,
                             0, 0, NULL, 0};
        if (!a->tree && !sv_takes_broadcast(a->sampler)) {
            /* the packed layout alone (vLLM's shape) cannot be given one row
             * set broadcast to every sequence: a mix of the one case, rows
             * per sequence, every one at the point's K, none seeded */
            const sv_case *const one[1] = {c};
            const sv_drafter *const drafter[1] = {d};
            rc = sweep_run_mix(a, spec, seed, 1, one, drafter, &plan, &t, &draws);
        } else {
            sv_shard_at at; /* a shard runs its share of the point; a merge sums the
                             * shards' */
            const sv_shard_hooks *sh = sv_cmd_shard_next(a->shard, 1, a->label, &at);
            rc = sv_shard_run(sh, 0, &cfg, c, d, &plan, t);
            if (rc == SV_OK && sh && sh->take && sv_interrupted()) /* whole points or none */
                rc = 128 + sv_interrupted();
        }
    }
    if (rc == SV_OK)
        rc = sweep_point_fill(a, spec, c, t, draws, pt);
    sv_tally_free(t);
    sv_drafter_free(d);
    sv_case_free(c);
    return rc;
}

uint64_t sweep_step_draws(const sweep_args *a, int64_t steps, int64_t s)
{
    return a->draws / (uint64_t)steps + ((uint64_t)s < a->draws % (uint64_t)steps);
}

uint64_t sweep_step_seed(const sweep_args *a, int64_t s)
{
    return a->seed + (uint64_t)s * 0x9E3779B97F4A7C15ull;
}

/* The steps' points pooled into one. */
static void pool_steps(const sweep_args *a, const sweep_point *each, int64_t steps,
                       sweep_point *pt)
{
    double reach_alpha[SV_MAX_K] = {0}, reach[SV_MAX_K] = {0}, tokens = 0.0;
    memset(pt->length, 0, sizeof pt->length);
    for (int64_t s = 0; s < steps; s++) {
        const sweep_point *one = &each[s];
        const uint64_t draws = sweep_step_draws(a, steps, s);
        pt->K = one->K;
        double r = (double)draws; /* draws x P(reach draft k) */
        for (int32_t k = 0; k < one->K; k++) {
            reach[k] += r;
            reach_alpha[k] += r * one->analytic[k];
            r *= one->analytic[k];
        }
        for (int32_t m = 0; m <= one->K; m++)
            pt->length[m] += one->length[m];
        tokens += (double)draws * one->tokens_analytic;
    }
    pt->draws = a->draws;
    for (int32_t k = 0; k <= pt->K; k++) /* each step its own p: no one distance */
        pt->dist[k] = sv_distance_none();
    for (int32_t k = 0; k < pt->K; k++)
        pt->analytic[k] = reach[k] > 0.0 ? reach_alpha[k] / reach[k] : 0.0;
    sv_measured_alpha(pt->length, pt->K, a->level, pt->measured);
    pt->tokens_analytic = tokens / (double)a->draws;
    pt->tokens_measured = sv_mean_tokens(pt->length, pt->K);
    sv_mean_tokens_interval(pt->length, pt->K, a->level, &pt->tokens_lo, &pt->tokens_hi);
}

/* Runs one point: its case, or every step of a recording with the draws
 * spread evenly, pooled. The analytic values are what the pooled counts
 * estimate: E is the draws-weighted mean of the steps' E, and alpha_k the
 * mean of the steps' alpha_k weighted by draws x P(reach draft k), since a
 * draw counts at position k only when it got there. */
int sweep_run_point(const sweep_args *a, const char *spec, sweep_point *pt)
{
    int64_t steps;
    if (!sweep_whole_recording(spec, &steps))
        return run_case(a, spec, a->seed, a->draws, pt);
    sweep_point *each = calloc((size_t)steps, sizeof *each);
    if (!each)
        return sv_fail(SV_EENV, "out of memory for %lld steps", (long long)steps);
    const int mixed = sweep_steps_mixed(a);
    int rc = mixed ? sweep_run_steps(a, spec, steps, each) : SV_OK;
    for (int64_t s = 0; rc == SV_OK && !mixed && s < steps; s++) {
        char step[SV_CASE_NAME_MAX * 2];
        if ((size_t)snprintf(step, sizeof step, "%s,step=%lld", spec, (long long)s) >=
            sizeof step)
            rc = sv_fail(SV_EBAD, "sweep: the case spec %s is too long", spec);
        /* a key per step: the steps' counts are independent, as the
         * binomial interval of the pooled count assumes */
        else
            rc = run_case(a, step, sweep_step_seed(a, s), sweep_step_draws(a, steps, s),
                          &each[s]);
    }
    if (rc == SV_OK)
        pool_steps(a, each, steps, pt);
    free(each);
    return rc;
}
