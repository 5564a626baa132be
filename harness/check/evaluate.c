/* evaluate.c: every check of docs/statistics.md on one run's tallies, with verdicts.
 * Contract first (deterministic), then per position goodness of fit and TV,
 * then the accepted length, then independence. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_cdf.h>
#include "sv_check.h"

/* Categories with fewer expected draws than this go to the pooled tail. */
#define MIN_EXPECTED 10.0

static void add_finding(sv_run_eval *ev, const char *text)
{
    if (ev->n_findings < SV_MAX_FINDINGS)
        snprintf(ev->findings[ev->n_findings++], SV_FINDING_LEN, "%s", text);
}

static int evaluate_position(const sv_case *c, const sv_tally *t, int32_t k, double split,
                             double *p, sv_run_eval *ev)
{
    sv_position_eval *pe = &ev->pos[k];
    pe->N = t->reached[k];
    if (pe->N == 0) {
        pe->verdict = SV_NA;
        pe->chi2 = pe->g = (sv_gof){0.0, 0, 1.0, 0};
        pe->tv_p = 1.0;
        pe->dist = sv_distance_none();
        return SV_OK;
    }
    const uint64_t *counts = t->hist + (size_t)k * c->V;
    sv_case_target_dist(c, k, p);
    sv_pooled pooled;
    int rc = sv_pool(p, counts, c->V, pe->N, MIN_EXPECTED, &pooled);
    if (rc != SV_OK)
        return rc;
    pe->bins = pooled.nbins;
    pe->tail_mass = pooled.tail_mass;
    pe->tail_categories = pooled.tail_categories;
    pe->chi2 = sv_pearson(&pooled);
    pe->g = sv_gtest(&pooled);

    double margin = sv_mcdiarmid_margin(pe->N, split);
    pe->tv = sv_tv(p, counts, c->V, pe->N);
    pe->dist = sv_distance_estimate(p, counts, c->V, pe->N, SV_MEASURE_LEVEL);
    pe->tv_expected = sv_tv_expected(p, c->V, pe->N);
    pe->tv_threshold = pe->tv_expected + margin;
    /* a sampler this far from p in TV exceeds the threshold with probability
     * at least 1 - split (the same McDiarmid bound, applied twice) */
    pe->tv_min_detectable = 2.0 * (pe->tv_expected + margin);
    pe->tv_p = sv_tv_pvalue(pe->tv, pe->tv_expected, pe->N);
    /* the chi-square effect this N catches at the split level with the same
     * probability (noncentral chi-square power, power.c) */
    pe->w2_min_detectable = pe->chi2.df > 0
                                ? sv_min_detectable_w2(pe->chi2.df, pe->N, split, 1.0 - split)
                                : NAN;

    pe->verdict = SV_PASS;
    if (pe->chi2.df > 0) {
        pe->verdict = sv_verdict_worst(pe->verdict, sv_verdict_of(pe->chi2.p, split));
        pe->verdict = sv_verdict_worst(pe->verdict, sv_verdict_of(pe->g.p, split));
    }
    pe->verdict = sv_verdict_worst(pe->verdict, sv_verdict_of(pe->tv_p, split));
    if (pe->verdict > SV_PASS) {
        char text[SV_FINDING_LEN];
        sv_describe_position(&pooled, pe, k, text, sizeof text);
        add_finding(ev, text);
    }
    pe->binned = pooled; /* kept for the report's counts */
    return SV_OK;
}

void sv_run_eval_free(sv_run_eval *ev)
{
    for (int32_t k = 0; k <= SV_MAX_K; k++)
        sv_pooled_free(&ev->pos[k].binned);
}

/* P(n = j): the first j drafts accepted, then a rejection (or all K), each
 * draft's acceptance rate alpha(c, j). */
static void length_law(const sv_case *c, double (*alpha_of)(const sv_case *, int32_t),
                       double *probs)
{
    double reach = 1.0;
    for (int32_t j = 0; j < c->K; j++) {
        double alpha = alpha_of(c, j);
        probs[j] = reach * (1.0 - alpha);
        reach *= alpha;
    }
    probs[c->K] = reach;
}

/* P(n = j) under the case's rule */
static void length_distribution(const sv_case *c, double *probs)
{
    length_law(c, sv_case_alpha, probs);
}

/* A chain-rule sampler whose lengths failed the chain's law: do they follow
 * exact match's (sum p q), the law of a verifier that ignores q and keeps a
 * draft while a fresh target sample equals it? Its tokens then fit p, and
 * the one thing wrong is the declared rule; the finding says so. */
static int other_rule(const sv_case *c, const sv_tally *t, const sv_run_eval *ev,
                      uint64_t valid, char *text, size_t len)
{
    double law[SV_MAX_K + 1], mean = 0.0, mean_chain = 0.0, mean_exact = 0.0;
    length_law(c, sv_case_alpha_exact_match, law);
    sv_pooled pooled;
    if (sv_pool(law, t->length, c->K + 1, valid, MIN_EXPECTED, &pooled) != SV_OK)
        return 0;
    const sv_gof fit = sv_pearson(&pooled);
    const int follows = !pooled.stray && fit.df > 0 && fit.p >= SV_SUSPECT_P;
    sv_pooled_free(&pooled);
    if (!follows)
        return 0;
    for (int32_t j = 0; j <= c->K; j++) {
        mean += j * (double)t->length[j] / (double)valid;
        mean_chain += j * ev->length_expected[j];
        mean_exact += j * law[j];
    }
    snprintf(text, len, "accepted length: mean n %.4f, the chain rule's law %.4f (p = %.3g), "
             "exact match's %.4f (p = %.3g): the accepted lengths follow exact match's law "
             "(sum p q), not the chain rule's: is the declared rule right?", mean, mean_chain,
             ev->length.p, mean_exact, fit.p);
    return 1;
}

static int evaluate_length(const sv_case *c, const sv_tally *t, double split, sv_run_eval *ev)
{
    uint64_t valid = 0;
    for (int32_t j = 0; j <= c->K; j++) {
        ev->length_observed[j] = t->length[j];
        valid += t->length[j];
    }
    length_distribution(c, ev->length_expected);
    ev->length_verdict = SV_NA;
    ev->length = (sv_gof){0.0, 0, 1.0, 0};
    if (valid == 0)
        return SV_OK;
    sv_pooled pooled;
    int rc = sv_pool(ev->length_expected, t->length, c->K + 1, valid, MIN_EXPECTED, &pooled);
    if (rc != SV_OK)
        return rc;
    ev->length = sv_pearson(&pooled);
    if (pooled.stray) { /* lengths of probability 0 were seen: no statistics needed */
        ev->length.p = 0.0;
        ev->length.df = ev->length.df > 0 ? ev->length.df : 1;
    }
    if (ev->length.df > 0)
        ev->length_verdict = sv_verdict_of(ev->length.p, split);
    if (ev->length_verdict > SV_PASS) {
        char text[SV_FINDING_LEN];
        if (!c->draft_probs_given || ev->length_verdict != SV_FAIL ||
            !other_rule(c, t, ev, valid, text, sizeof text))
            sv_describe_length(ev, &pooled, text, sizeof text);
        add_finding(ev, text);
    }
    sv_pooled_free(&pooled);
    return SV_OK;
}

/* The histogram of n beside the chain's law, for a rule the chain's law
 * does not test: the verdict n/a until a rule's own test sets it. */
static void length_untested(const sv_case *c, const sv_tally *t, sv_run_eval *ev)
{
    for (int32_t j = 0; j <= c->K; j++)
        ev->length_observed[j] = t->length[j];
    length_distribution(c, ev->length_expected);
    ev->length_verdict = SV_NA;
    ev->length = (sv_gof){0.0, 0, 1.0, 0};
}

/* Block verification: its law of n has no closed form, but it accepts at
 * least as many drafts as the chain rule in expectation (Sun et al. 2024,
 * Theorem 2), with equality at K = 1 where the rules are one. A one-sided
 * z-test of the mean n against the chain's sum_j alpha_1..alpha_j: under a
 * right block verifier the mean falls that far below with probability at
 * most split (normal approximation; n is bounded, N is thousands). At K = 1
 * the chain's whole law applies. */
static int evaluate_length_block(const sv_case *c, const sv_tally *t, double split,
                                 sv_run_eval *ev)
{
    if (c->K == 1)
        return evaluate_length(c, t, split, ev);
    length_untested(c, t, ev);
    uint64_t valid = 0;
    double sum = 0.0, chain = 0.0, reach = 1.0;
    for (int32_t j = 0; j <= c->K; j++) {
        valid += t->length[j];
        sum += (double)j * (double)t->length[j];
    }
    for (int32_t j = 0; j < c->K; j++) {
        reach *= sv_case_alpha(c, j);
        chain += reach;
    }
    ev->mean_accepted_chain = chain;
    if (valid < 2)
        return SV_OK;
    const double N = (double)valid, mean = sum / N;
    double ss = 0.0;
    for (int32_t j = 0; j <= c->K; j++)
        ss += (double)t->length[j] * ((double)j - mean) * ((double)j - mean);
    const double se = sqrt(ss / (N - 1.0) / N);
    ev->mean_accepted = mean;
    double z, p;
    if (se > 0.0) {
        z = (mean - chain) / se;
        p = gsl_cdf_ugaussian_P(z);
    } else { /* every step accepted the same count: exact */
        z = mean < chain - 1e-9 ? -INFINITY : 0.0;
        p = mean < chain - 1e-9 ? 0.0 : 1.0;
    }
    ev->length = (sv_gof){z, 1, p, 0};
    ev->length_verdict = sv_verdict_of(p, split);
    if (ev->length_verdict > SV_PASS) {
        char text[SV_FINDING_LEN];
        snprintf(text, sizeof text, "accepted length: block verification accepted %.4f drafts "
                 "per step on average over %.0f steps, fewer than the chain rule's %.4f on "
                 "the same case (z = %.1f, p = %.3g); a right block verifier accepts at least "
                 "as many in expectation", mean, N, chain, z, p);
        add_finding(ev, text);
    }
    return SV_OK;
}

static sv_verdict evaluate_pairs(const uint64_t *table, const sv_binmap *rows,
                                 const sv_binmap *cols, int ok, const char *which, double split,
                                 sv_gof *g, sv_run_eval *ev)
{
    *g = (sv_gof){0.0, 0, 1.0, 0};
    if (!ok)
        return SV_NA;
    *g = sv_independence(table, rows->nbins, cols->nbins);
    if (g->df == 0)
        return SV_NA;
    sv_verdict v = sv_verdict_of(g->p, split);
    if (v > SV_PASS) {
        char text[SV_FINDING_LEN];
        sv_describe_independence(which, g, text, sizeof text);
        add_finding(ev, text);
    }
    return v;
}

int sv_evaluate(const sv_case *c, const sv_tally *t, const sv_pair_plan *plan,
                double split_alpha, sv_run_eval *ev)
{
    uint64_t seed = ev->seed; /* set by the caller */
    uint32_t rule = ev->rule;
    memset(ev, 0, sizeof *ev);
    ev->seed = seed;
    ev->rule = rule;
    ev->draws = t->draws;
    ev->seconds = t->seconds;
    ev->K = c->K;
    ev->violations = t->violations;
    ev->batch_verdict = ev->seed_verdict = SV_NA; /* probes.c's, for mixed batches */

    /* contract and support: one violation fails the case */
    ev->contract_verdict = (t->violations || t->sampler_error) ? SV_FAIL : SV_PASS;
    for (int32_t i = 0; i < t->n_notes; i++)
        add_finding(ev, t->notes[i]);
    if (t->violations > (uint64_t)t->n_notes) {
        char text[SV_FINDING_LEN];
        snprintf(text, sizeof text, "%llu draws broke the contract in all",
                 (unsigned long long)t->violations);
        add_finding(ev, text);
    }

    if (c->chain) { /* rows change every step: the sequence check replaces the rest */
        for (int32_t k = 0; k <= c->K; k++)
            ev->pos[k].verdict = SV_NA;
        ev->length_verdict = ev->indep_seq_verdict = ev->indep_pos_verdict = SV_NA;
        int rc = sv_evaluate_chain(c, t, split_alpha, ev);
        if (rc == SV_OK && t->tree) /* the depth's whole law, in place of draft 1's */
            rc = sv_evaluate_length_tree(c, t, split_alpha, ev);
        ev->verdict = sv_verdict_worst(ev->contract_verdict, ev->seq_verdict);
        ev->verdict = sv_verdict_worst(ev->verdict, ev->length_verdict);
        if (ev->verdict == SV_NA)
            ev->verdict = SV_PASS;
        return rc;
    }
    double *p = malloc((size_t)c->V * sizeof *p);
    if (!p)
        return sv_fail(SV_EENV, "case %s: out of memory", c->name);
    int rc = SV_OK;
    for (int32_t k = 0; k <= c->K && rc == SV_OK; k++)
        rc = evaluate_position(c, t, k, split_alpha, p, ev);
    free(p);
    if (rc == SV_OK && rule == SV_RULE_TYPICAL) /* its own law: --measure reports it */
        length_untested(c, t, ev);
    else if (rc == SV_OK && t->tree)
        rc = sv_evaluate_length_tree(c, t, split_alpha, ev);
    else if (rc == SV_OK)
        rc = rule == SV_RULE_BLOCK ? evaluate_length_block(c, t, split_alpha, ev)
                                   : evaluate_length(c, t, split_alpha, ev);
    if (rc != SV_OK)
        return rc;
    ev->indep_seq_verdict = evaluate_pairs(t->pairs_seq, &plan->seq_rows, &plan->seq_cols,
                                           plan->seq_ok, "consecutive sequences", split_alpha,
                                           &ev->indep_seq, ev);
    /* every rule's y_1 and y_2 are independent given n >= 1 (for block
     * verification it follows from losslessness: docs/statistics.md) */
    ev->indep_pos_verdict = evaluate_pairs(t->pairs_pos, &plan->pos_rows, &plan->pos_cols,
                                           plan->pos_ok, "positions 1 and 2", split_alpha,
                                           &ev->indep_pos, ev);

    sv_verdict v = ev->contract_verdict;
    for (int32_t k = 0; k <= c->K; k++)
        v = sv_verdict_worst(v, ev->pos[k].verdict);
    v = sv_verdict_worst(v, ev->length_verdict);
    v = sv_verdict_worst(v, ev->indep_seq_verdict);
    v = sv_verdict_worst(v, ev->indep_pos_verdict);
    v = sv_verdict_worst(v, ev->seq_verdict);
    ev->verdict = v == SV_NA ? SV_PASS : v;
    return SV_OK;
}

/* Keeps the smaller p-value and its check's name. */
static void consider(double p, const char *name, int32_t position, double *best, char *out,
                     size_t len)
{
    if (p >= *best)
        return;
    *best = p;
    if (position > 0)
        snprintf(out, len, "position %d %s", position, name);
    else
        snprintf(out, len, "%s", name);
}

double sv_weakest_check(const sv_run_eval *ev, char *name, size_t len)
{
    double best = INFINITY;
    snprintf(name, len, "none");
    for (int32_t k = 0; !ev->chain && k <= ev->K; k++) {
        const sv_position_eval *pe = &ev->pos[k];
        if (pe->verdict == SV_NA)
            continue;
        if (pe->chi2.df > 0) {
            consider(pe->chi2.p, "chi-square", k + 1, &best, name, len);
            consider(pe->g.p, "G", k + 1, &best, name, len);
        }
        consider(pe->tv_p, "TV", k + 1, &best, name, len);
    }
    if (ev->length_verdict != SV_NA)
        consider(ev->length.p, ev->chain ? "draft 1 acceptance" : "accepted length", 0, &best,
                 name, len);
    if (ev->indep_seq_verdict != SV_NA && !ev->chain)
        consider(ev->indep_seq.p, "independence of consecutive sequences", 0, &best, name, len);
    if (ev->indep_pos_verdict != SV_NA && !ev->chain)
        consider(ev->indep_pos.p, "independence of positions 1 and 2", 0, &best, name, len);
    if (ev->seq_verdict != SV_NA && ev->chain) {
        consider(ev->seq_chi2.p, "transitions chi-square", 0, &best, name, len);
        consider(ev->seq_g.p, "transitions G", 0, &best, name, len);
    }
    return best;
}
