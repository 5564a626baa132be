/* mix_unit.c: one batch of a mixed run: a run of consecutive slots of the
 * mix (mix.c) given to the sampler in one of its layouts, every sequence
 * checked against its own case and counted in its own case's tally. With
 * device staging the device drafts, checks and counts, each sequence in its
 * own case's part, unless it finds the batch broken: then the host drafts
 * the same tokens and checks, notes and counts it as without. */
#include <stdlib.h>
#include <string.h>
#include "device_staging.h"
#include "sampler_host.h"
#include "sv_philox.h"

void sv_mix_unit_span(const sv_mix *m, int32_t B, uint64_t unit, sv_mix_span *span)
{
    if (m->alike) {
        span->g0 = unit * (uint64_t)B;
        span->s0 = 0;
        span->len = span->g0 >= m->draws ? 0
                    : m->draws - span->g0 < (uint64_t)B ? (int32_t)(m->draws - span->g0) : B;
        return;
    }
    const uint64_t L = (uint64_t)m->period, E = m->epoch, U = sv_mix_units_per_epoch(m, B);
    const uint64_t e = unit / U, j = unit % U;
    const uint64_t r = (uint64_t)sv_mix_rotation(m, e);
    uint64_t i0, end;
    if (m->copies > 1) { /* slots r .. r + E - 1 lie back to back in the copies */
        i0 = j * (uint64_t)B;
        end = E;
    } else { /* one copy: slots r..L-1, then 0..r-1, each cut into batches */
        const uint64_t n1 = (L - r + (uint64_t)B - 1) / (uint64_t)B;
        if (j < n1) {
            i0 = j * (uint64_t)B;
            end = L - r;
        } else {
            i0 = L - r + (j - n1) * (uint64_t)B;
            end = L;
        }
    }
    span->len = 0;
    span->g0 = e * E + i0;
    span->s0 = (int32_t)(m->copies > 1 ? i0 + r : (i0 + r) % L);
    if (i0 >= end || span->g0 >= m->draws)
        return;
    uint64_t len = end - i0 < (uint64_t)B ? end - i0 : (uint64_t)B;
    if (span->g0 + len > m->draws)
        len = m->draws - span->g0;
    span->len = (int32_t)len;
}

uint64_t sv_mix_units_per_epoch(const sv_mix *m, int32_t B)
{
    const uint64_t E = m->epoch;
    if (m->alike || m->copies > 1)
        return (E + (uint64_t)B - 1) / (uint64_t)B;
    /* a rotated period is two runs of slots, each cut into batches */
    return (E + (uint64_t)B - 1) / (uint64_t)B + (m->rotate ? 1u : 0u);
}

/* The sequences' drafts in the batch's layout (unless `draw` is 0: the
 * device draws them), and its per-sequence arrays. */
static void fill_inputs(const sv_mix_run *run, const sv_mix_span *sp, int32_t layout,
                        sv_worker_buffers *w, int draw)
{
    const sv_mix *m = run->mix;
    const int32_t K = m->K;
    int32_t tmp[SV_MAX_K];
    const uint64_t sampler_seed = run->cfg->seed ^ run->sampler_seed_xor;
    const int self = (run->cfg->sampler->inputs & SV_INPUT_OWN_DRAFTS);
    w->cu[0] = 0;
    for (int32_t b = 0; b < sp->len; b++) {
        const int32_t s = (sp->s0 + b) % m->period, d = m->drafts[s];
        const uint64_t index = sv_mix_index(m, sp->g0 + (uint64_t)b);
        if (!self && draw)
            sv_drafter_draw(run->drafters[m->case_of[s]], w->philox, run->cfg->seed, index,
                            tmp);
        w->cu[b + 1] = w->cu[b] + d;
        const size_t at = (size_t)(layout == SV_LAYOUT_PACKED ? w->cu[b] : b * K);
        int32_t *x = w->drafts + at;
        if (self) /* no harness drafts: the uniforms they would have used (contract v7) */
            for (int32_t k = 0; k < d; k++) {
                w->draft_uniforms[at + (size_t)k] =
                    sv_philox_uniform(run->cfg->seed, index, (uint32_t)k, SV_PURPOSE_DRAFT, 0);
                x[k] = -1;
            }
        else if (draw)
            memcpy(x, tmp, (size_t)d * sizeof *x);
        for (int32_t k = d; layout == SV_LAYOUT_PADDED && k < K; k++)
            x[k] = -1; /* no draft here: a sampler that reads it finds no token */
        w->indices[b] = index;
        w->seeds[b] = m->seeded[s] ? sv_mix_sequence_seed(sampler_seed, index) : sampler_seed;
    }
}

/* The batch as the sampler sees it. */
static sv_batch make_batch(const sv_mix_run *run, const sv_mix_span *sp, int32_t layout,
                           const sv_worker_buffers *w)
{
    const sv_mix *m = run->mix;
    const sv_mix_view view = sv_host_mix(run->host);
    const size_t size = sv_input_value_bytes(m->input), V = (size_t)m->V, K = (size_t)m->K;
    const size_t s0 = (size_t)sp->s0;
    const char *rows = view.rows[layout];
    const int packed = layout == SV_LAYOUT_PACKED;
    const char *target = rows + (packed ? sv_mix_cu(m, s0) + s0 : s0 * (K + 1)) * V * size;
    const char *draft = rows + sv_mix_draft_rows_offset(m, layout) +
                        (packed ? sv_mix_cu(m, s0) : s0 * K) * V * size;
    const sv_case *first = m->cases[m->case_of[s0 % (size_t)m->period]];
    sv_batch bt = {
        .B = sp->len, .K = m->K, .V = m->V,
        .target_stride = packed ? 0 : (int64_t)((K + 1) * V),
        .draft_stride = packed ? 0 : (int64_t)(K * V),
        .draft_tokens = w->drafts,
        .seed = run->cfg->seed ^ run->sampler_seed_xor,
        .first_index = w->indices[0],
        .input = m->input,
        .draft_uniforms = (run->cfg->sampler->inputs & SV_INPUT_OWN_DRAFTS) ? w->draft_uniforms
                                                                         : NULL,
    };
    if (m->input == SV_INPUT_PROBS) {
        bt.target = (const float *)(const void *)target;
        bt.draft = m->draft_probs ? (const float *)(const void *)draft : NULL;
    } else {
        bt.target_logits = target;
        bt.draft_logits = m->draft_probs ? draft : NULL;
        bt.temperature = first->sampling.T; /* one case per batch for older samplers */
        bt.top_k = first->sampling.top_k;
        bt.top_p = first->sampling.top_p > 0.0 ? first->sampling.top_p : 1.0;
    }
    if (m->v3) {
        bt.layout = layout;
        bt.num_drafts = view.num_drafts + s0;
        bt.cu_num_drafts = w->cu;
        bt.indices = w->indices;
        bt.seeds = w->seeds;
        bt.seeded = view.seeded + s0;
        if (m->input != SV_INPUT_PROBS) {
            bt.temperatures = view.temperatures + s0;
            bt.top_ks = view.top_ks + s0;
            bt.top_ps = view.top_ps + s0;
        }
    }
    return bt;
}

/* Slots past a sequence's drafts in the padded layout are not its own. */
static int check_padding(sv_tally *t, const sv_request *who, const int32_t *y, int32_t d,
                         int32_t K)
{
    for (int32_t k = d + 1; k <= K; k++)
        if (y[k] != SV_POISON) {
            t->violations++;
            char text[SV_NOTE_LEN], name[96];
            sv_request_words(who, name, sizeof name);
            snprintf(text, sizeof text, "%s: wrote %d into output slot %d of the padded "
                     "layout, past its own %d (it has %d draft%s)", name,
                     y[k], k + 1, d + 1, d, d == 1 ? "" : "s");
            sv_tally_note(t, who->index, text);
            return 0;
        }
    return 1;
}

/* What a sequence gave, as the probes keep it: n (-2: it broke the
 * contract), then its own slots y_1..y_{d+1}, -1 past them. */
static void keep_row(int32_t *keep, int ok, int32_t n, const int32_t *y, int32_t d)
{
    keep[0] = ok ? n : -2;
    for (int32_t k = 0; k <= SV_MAX_K; k++)
        keep[1 + k] = ok && k <= d ? y[k] : -1;
}

static void count(const sv_mix_run *run, const sv_mix_span *sp, int32_t layout,
                  const sv_batch *bt, sv_worker_buffers *w, sv_tally **tallies)
{
    const sv_mix *m = run->mix;
    const int32_t K = m->K, V = m->V;
    const int packed = layout == SV_LAYOUT_PACKED;
    for (int32_t b = 0; b < sp->len; b++) {
        const int32_t s = (sp->s0 + b) % m->period, d = m->drafts[s], ci = m->case_of[s];
        const sv_case *c = m->cases[ci];
        const sv_pair_plan *plan = &run->plans[ci];
        sv_tally *t = tallies[ci];
        const int32_t *y = bt->out_tokens + (packed ? w->cu[b] + b : b * (K + 1));
        /* a self-drafting sampler's accepted drafts are those it says it drew */
        const int32_t *x = (bt->out_drafts ? bt->out_drafts : w->drafts) +
                           (packed ? w->cu[b] : b * K);
        const int32_t n = bt->out_accepted[b];
        const sv_request who = {w->indices[b], b, w->seeds[b]};
        int ok = (!bt->out_drafts || sv_check_drafts(t, d, V, c->draft, &who, x)) &&
                 sv_check_sequence(t, d, V, c->target, &who, x, y, n);
        if (ok && !packed)
            ok = check_padding(t, &who, y, d, K);
        w->valid[b] = (unsigned char)ok;
        t->draws++;
        if (run->capture) /* a probe keeps every sequence's own slots */
            keep_row(run->capture + (size_t)(sp->g0 + (uint64_t)b) * (SV_MAX_K + 2), ok, n, y,
                     d);
        if (!ok)
            continue;
        for (int32_t k = 0; k <= n; k++) {
            t->hist[(size_t)k * V + y[k]]++;
            t->reached[k]++;
        }
        if (d == c->K) /* the length test's multinomial: sequences given all K drafts */
            t->length[n]++;
        if (n >= 1 && plan->pos_ok) {
            int32_t r = plan->pos_rows.bin[y[0]], q = plan->pos_cols.bin[y[1]];
            if (r >= 0 && q >= 0)
                t->pairs_pos[r * plan->pos_cols.nbins + q]++;
        }
        /* pairs (2m, 2m+1) of one case: g0 is even, so b odd closes a pair */
        if ((b & 1) && w->valid[b - 1] && m->case_of[s ? s - 1 : m->period - 1] == ci &&
            plan->seq_ok) {
            const int32_t *y0 = bt->out_tokens + (packed ? w->cu[b - 1] + b - 1 : (b - 1) * (K + 1));
            int32_t r = plan->seq_rows.bin[y0[0]], q = plan->seq_cols.bin[y[0]];
            if (r >= 0 && q >= 0)
                t->pairs_seq[r * plan->seq_cols.nbins + q]++;
        }
    }
}

/* verify --dump-failing: a batch in which a sequence broke the contract,
 * or whose call failed (an error status, a crash, a timeout: the finding is
 * about its first sequence), handed on with what every sequence gave (the
 * probes' rows, n kept raw for one that broke the contract) and the first
 * finding's words. */
static void tell_failing(const sv_mix_run *run, const sv_mix_span *sp, int32_t layout,
                         const sv_batch *bt, sv_worker_buffers *w, sv_tally **tallies,
                         int call_failed)
{
    const sv_mix *m = run->mix;
    int32_t first = call_failed ? 0 : -1;
    for (int32_t b = 0; b < sp->len && first < 0; b++)
        first = w->valid[b] ? -1 : b;
    if (first < 0 || !bt->out_tokens || !bt->out_accepted)
        return;
    int32_t *rows = malloc((size_t)sp->len * (SV_MAX_K + 2) * sizeof *rows);
    if (!rows)
        return; /* the verdict stands; only the dump is lost */
    for (int32_t b = 0; b < sp->len; b++) {
        const int32_t s = (sp->s0 + b) % m->period;
        const int32_t *y = bt->out_tokens + (layout == SV_LAYOUT_PACKED ? w->cu[b] + b
                                                                         : b * (m->K + 1));
        keep_row(rows + (size_t)b * (SV_MAX_K + 2), 1, bt->out_accepted[b], y, m->drafts[s]);
    }
    const sv_tally *t = tallies[m->case_of[(sp->s0 + first) % m->period]];
    const char *note = "";
    for (int32_t i = 0; i < t->n_notes; i++)
        if (t->note_at[i] == w->indices[first])
            note = t->notes[i];
    const sv_failing_batch fb = {m, run->drafters, w->philox, run->cfg->seed, sp->s0,
                                 sp->len, layout, w->indices, rows, first};
    run->cfg->failing->contract(run->cfg->failing, &fb, note);
    free(rows);
}

int sv_mix_unit(const sv_mix_run *run, int32_t B, uint64_t unit, sv_worker_buffers *w,
                sv_tally **tallies, atomic_uint_fast64_t *done)
{
    sv_mix_span sp;
    sv_mix_unit_span(run->mix, B, unit, &sp);
    if (sp.len == 0)
        return SV_SAMPLER_OK;
    const int32_t layout = sv_mix_layout(run->mix, sp.g0);
    const sv_staging_slot *staged = run->staging ? sv_staging_parts(run->staging, w->slot) : NULL;
    fill_inputs(run, &sp, layout, w, !staged);
    sv_batch bt = make_batch(run, &sp, layout, w);
    /* a call's failure is noted in the case of its first sequence; the run
     * then stops, and sv_run_mix fails every case of the mix with it */
    int rc = sv_host_verify(run->host, w->slot, &bt,
                            tallies[run->mix->case_of[sp.s0 % run->mix->period]]);
    const int on_device = rc == SV_SAMPLER_OK && staged && !staged->fallback;
    if (on_device) {
        for (int32_t b = 0; b < sp.len; b++) /* counted there, each in its case's part */
            tallies[run->mix->case_of[(sp.s0 + b) % run->mix->period]]->draws++;
        w->device_counted += (uint64_t)sp.len;
    } else if (rc == SV_SAMPLER_OK) {
        if (staged) /* the device's drafts, drawn again on the host */
            fill_inputs(run, &sp, layout, w, 1);
        count(run, &sp, layout, &bt, w, tallies);
    }
    /* a batch the device found whole has no breach; a broken one came back
     * to the host (fallback) and was checked there */
    if (run->cfg->failing && !on_device)
        tell_failing(run, &sp, layout, &bt, w, tallies, rc != SV_SAMPLER_OK);
    atomic_fetch_add(done, (uint64_t)sp.len);
    return rc;
}
