/* tally.c: what a run counts (sv_tally) and the bins of its independence
 * tables (sv_pair_plan): allocated, noted into, summed across workers. */
#include <stdlib.h>
#include <string.h>
#include "sampler_host.h"

/* ---- tallies ------------------------------------------------------------------ */

int sv_tally_alloc(const sv_case *c, const sv_pair_plan *plan, sv_tally **out)
{
    sv_tally *t = calloc(1, sizeof *t);
    if (!t)
        return sv_fail(SV_EENV, "out of memory for a tally");
    t->K = c->K;
    t->V = c->V;
    t->hist = calloc((size_t)(c->K + 1) * (size_t)c->V, sizeof *t->hist);
    size_t seq = (size_t)plan->seq_rows.nbins * (size_t)plan->seq_cols.nbins;
    size_t pos = (size_t)plan->pos_rows.nbins * (size_t)plan->pos_cols.nbins;
    t->pairs_seq = calloc(seq ? seq : 1, sizeof *t->pairs_seq);
    t->pairs_pos = calloc(pos ? pos : 1, sizeof *t->pairs_pos);
    if (c->chain)
        t->transitions = calloc((size_t)c->V * (size_t)c->V, sizeof *t->transitions);
    if (!t->hist || !t->pairs_seq || !t->pairs_pos || (c->chain && !t->transitions)) {
        sv_tally_free(t);
        return sv_fail(SV_EENV, "case %s: out of memory for histograms of %d x %d", c->name,
                       c->K + 1, c->V);
    }
    *out = t;
    return SV_OK;
}

/* Keeps text, already printable, as a note about sequence `at`. */
void sv_tally_note_escaped(sv_tally *t, uint64_t at, const char *text)
{
    int32_t i = t->n_notes;
    while (i > 0 && t->note_at[i - 1] > at) /* where it goes: after the notes at or before it */
        i--;
    if (i == SV_MAX_NOTES)
        return;
    int32_t last = t->n_notes < SV_MAX_NOTES ? t->n_notes : SV_MAX_NOTES - 1;
    for (int32_t j = last; j > i; j--) { /* the last one falls off when full */
        memcpy(t->notes[j], t->notes[j - 1], SV_NOTE_LEN);
        t->note_at[j] = t->note_at[j - 1];
    }
    snprintf(t->notes[i], SV_NOTE_LEN, "%s", text);
    t->note_at[i] = at;
    if (t->n_notes < SV_MAX_NOTES)
        t->n_notes++;
}

/* A note carries the sampler's own words (its message, its exception's
 * text): escaped here, once, so that every report shows the same safe text. */
void sv_tally_note(sv_tally *t, uint64_t at, const char *text)
{
    char safe[SV_NOTE_LEN];
    sv_escape(safe, sizeof safe, text, strlen(text));
    sv_tally_note_escaped(t, at, safe);
}

void sv_tally_free(sv_tally *t)
{
    if (!t)
        return;
    free(t->hist);
    free(t->pairs_seq);
    free(t->pairs_pos);
    free(t->transitions);
    free(t);
}

void sv_tally_counts_of(const sv_tally *t, const sv_pair_plan *plan,
                        sv_tally_counts out[SV_TALLY_COUNTS])
{
    const size_t V = (size_t)t->V;
    sv_tally *w = (sv_tally *)t; /* the arrays are the caller's to read or to fill */
    out[0] = (sv_tally_counts){"hist", w->hist, (size_t)(t->K + 1) * V};
    out[1] = (sv_tally_counts){"reached", w->reached, SV_MAX_K + 1};
    out[2] = (sv_tally_counts){"length", w->length, SV_MAX_K + 1};
    out[3] = (sv_tally_counts){"pairs_seq", w->pairs_seq,
                               (size_t)plan->seq_rows.nbins * (size_t)plan->seq_cols.nbins};
    out[4] = (sv_tally_counts){"pairs_pos", w->pairs_pos,
                               (size_t)plan->pos_rows.nbins * (size_t)plan->pos_cols.nbins};
    out[5] = (sv_tally_counts){"transitions", w->transitions, t->transitions ? V * V : 0};
    out[6] = (sv_tally_counts){"law", w->law_fx, SV_MAX_K + 1};
    out[7] = (sv_tally_counts){"law2", w->law2_fx, (size_t)(SV_MAX_K + 1) * (SV_MAX_K + 1)};
}

void sv_tally_add(sv_tally *into, const sv_tally *t, const sv_pair_plan *plan)
{
    sv_tally_counts to[SV_TALLY_COUNTS], from[SV_TALLY_COUNTS];
    sv_tally_counts_of(into, plan, to);
    sv_tally_counts_of(t, plan, from);
    for (int a = 0; a < SV_TALLY_COUNTS; a++)
        for (size_t i = 0; to[a].data && from[a].data && i < from[a].n; i++)
            to[a].data[i] += from[a].data[i];
    into->first_accepted += t->first_accepted;
    into->first_chance_fx += t->first_chance_fx;
    into->first_variance_fx += t->first_variance_fx;
    into->tree |= t->tree;
    into->draws += t->draws;
    into->violations += t->violations;
    for (int32_t i = 0; i < t->n_notes; i++)
        sv_tally_note_escaped(into, t->note_at[i], t->notes[i]);
    if (!into->sampler_error)
        into->sampler_error = t->sampler_error;
}

void sv_tally_count(sv_tally *t, const sv_pair_plan *plan, const int32_t *y, int32_t n)
{
    for (int32_t k = 0; k <= n; k++) {
        t->hist[(size_t)k * t->V + y[k]]++;
        t->reached[k]++;
    }
    t->length[n]++;
    if (n >= 1 && plan->pos_ok) {
        int32_t r = plan->pos_rows.bin[y[0]], s = plan->pos_cols.bin[y[1]];
        if (r >= 0 && s >= 0)
            t->pairs_pos[r * plan->pos_cols.nbins + s]++;
    }
}

/* A fixed-row batch: each sequence checked, the kept ones counted. */
void sv_count_batch(sv_tally *t, const sv_case *c, const sv_pair_plan *plan, uint64_t first,
                    uint64_t seed, int32_t B, const int32_t *drafts, const int32_t *out,
                    const int32_t *accepted, unsigned char *valid)
{
    const int32_t K = c->K, V = c->V;
    for (int32_t b = 0; b < B; b++) {
        const int32_t *y = out + (size_t)b * (K + 1);
        int32_t n = accepted[b];
        const sv_request who = {first + (uint64_t)b, b, seed};
        valid[b] = (unsigned char)sv_check_sequence(t, K, V, c->target, &who,
                                                    drafts + (size_t)b * K, y, n);
        if (valid[b])
            sv_tally_count(t, plan, y, n);
    }
    /* pairs (2m, 2m+1): `first` is even, so b even is a global even index */
    for (int32_t b = 0; plan->seq_ok && b + 1 < B; b += 2) {
        if (!valid[b] || !valid[b + 1])
            continue;
        int32_t r = plan->seq_rows.bin[out[(size_t)b * (K + 1)]];
        int32_t s = plan->seq_cols.bin[out[(size_t)(b + 1) * (K + 1)]];
        if (r >= 0 && s >= 0)
            t->pairs_seq[r * plan->seq_cols.nbins + s]++;
    }
    t->draws += (uint64_t)B;
}

/* ---- the pair plan: bins for the independence tables --------------------------- */

int sv_pair_plan_build(const sv_case *c, uint64_t draws, sv_pair_plan *plan)
{
    /* consecutive sequences: draws/2 whole pairs (an odd last draw has no partner) */
    return sv_pair_plan_build_counts(c, draws / 2, draws, plan);
}

int sv_pair_plan_build_counts(const sv_case *c, uint64_t seq_pairs, uint64_t drafted,
                              sv_pair_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    double *a = malloc(2 * (size_t)c->V * sizeof *a);
    if (!a)
        return sv_fail(SV_EENV, "case %s: out of memory", c->name);
    double *b = a + c->V;
    int rc;

    /* consecutive sequences: both y_1 ~ p_1 */
    sv_case_target_dist(c, 0, a);
    rc = sv_pair_bins(a, a, c->V, (double)seq_pairs, &plan->seq_rows, &plan->seq_cols);
    plan->seq_ok = rc == 0;
    /* positions 1 and 2 of draws that accepted draft 1: y_1 follows the
     * accepted distribution, y_2 ~ p_2, about alpha_1 * draws pairs */
    if (rc >= 0 && c->K >= 1 && sv_case_accepted_dist(c, 0, a) == 0) {
        sv_case_target_dist(c, 1, b);
        double pos_pairs = sv_case_alpha(c, 0) * (double)drafted;
        rc = sv_pair_bins(a, b, c->V, pos_pairs, &plan->pos_rows, &plan->pos_cols);
        plan->pos_ok = rc == 0;
    }
    free(a);
    if (rc < 0) {
        sv_pair_plan_free(plan);
        return sv_fail(SV_EENV, "case %s: out of memory", c->name);
    }
    return SV_OK;
}

void sv_pair_plan_free(sv_pair_plan *plan)
{
    sv_binmap_free(&plan->seq_rows);
    sv_binmap_free(&plan->seq_cols);
    sv_binmap_free(&plan->pos_rows);
    sv_binmap_free(&plan->pos_cols);
}

