/* ragged_batch.c: ragged batches in both layouts and their sequences alone
 * (ragged_batch.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "ragged_batch.h"
#include "sv_bf16.h"

/* ---- making the batch ---------------------------------------------------------- */

static uint64_t mix(uint64_t *state) /* splitmix64 */
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double unit(uint64_t *state)
{
    return (double)(mix(state) >> 11) / 9007199254740992.0;
}

/* A token drawn from the weights w[0..V) (not all 0). */
static int32_t draw(const double *w, int32_t V, uint64_t *state)
{
    double total = 0.0, acc = 0.0;
    for (int32_t i = 0; i < V; i++)
        total += w[i];
    double u = unit(state) * total;
    int32_t last = 0;
    for (int32_t i = 0; i < V; i++) {
        if (!(w[i] > 0.0))
            continue;
        last = i;
        if (u < (acc += w[i]))
            return i;
    }
    return last;
}

/* A probability row with about a fifth of its tokens at 0. */
static void prob_row(float *row, int32_t V, uint64_t *state)
{
    double w[RB_MAXV], total = 0.0;
    for (int32_t i = 0; i < V; i++) {
        double u = unit(state);
        w[i] = u < 0.2 ? 0.0 : u * u * u + 1e-3;
        total += w[i];
    }
    for (int32_t i = 0; i < V; i++)
        row[i] = (float)(w[i] / total);
}

/* A logits row: p's (or noise) plus spread, as bfloat16 would hold it in that mode. */
static void logit_row(float *row, const float *near, int32_t V, int bf16, uint64_t *state)
{
    for (int32_t i = 0; i < V; i++) {
        double g = (unit(state) + unit(state) + unit(state) - 1.5) * 4.0;
        float v = near ? (float)(near[i] + 0.3 * g) : (float)g;
        row[i] = bf16 ? sv_bf16_to_float(sv_bf16_from_float(v)) : v;
    }
}

void ragged_random(ragged *r, int32_t B, int32_t K, int32_t V, int32_t input, int one_hot,
                   uint64_t seed)
{
    static const double rules[5][3] = {{0.0, 0, 1.0}, {1.0, 5, 1.0}, {0.7, 0, 0.8},
                                       {1.3, 8, 0.9}, {1.0, 0, 1.0}}; /* T, top-k, top-p */
    uint64_t state = seed;
    memset(r, 0, sizeof *r);
    r->B = B;
    r->V = V;
    r->input = input;
    r->one_hot = one_hot;
    const int logits = input != SV_INPUT_PROBS, bf16 = input == SV_INPUT_LOGITS_BF16;
    for (int32_t b = 0; b < B; b++) {
        const int32_t d = (int32_t)(((uint64_t)b * 7919u + 3u) % (uint64_t)(K + 1));
        r->d[b] = d;
        r->K = d > r->K ? d : r->K;
        r->indices[b] = 1000u + ((uint64_t)b * 7919u) % (uint64_t)B; /* a permutation */
        r->seeds[b] = seed * 1000003u + (uint64_t)b * 0x9e3779b97f4a7c15ull;
        r->seeded[b] = (uint8_t)(b % 3 != 0);
        const double *rule = logits ? rules[b % 5] : rules[4];
        r->T[b] = rule[0];
        r->top_k[b] = (int32_t)rule[1];
        r->top_p[b] = rule[2];
        for (int32_t k = 0; k <= d; k++) {
            if (logits)
                logit_row(r->p[b][k], NULL, V, bf16, &state);
            else
                prob_row(r->p[b][k], V, &state);
        }
        for (int32_t k = 0; k < d; k++) {
            double w[RB_MAXV];
            if (logits) {
                logit_row(r->q[b][k], r->p[b][k], V, bf16, &state);
                for (int32_t i = 0; i < V; i++)
                    w[i] = exp(r->q[b][k][i]);
                r->x[b][k] = draw(w, V, &state);
            } else { /* q near p, so that drafts are often accepted */
                double total = 0.0;
                for (int32_t i = 0; i < V; i++) {
                    w[i] = r->p[b][k][i] * (0.5 + unit(&state)) + (unit(&state) < 0.1 ? 0.02 : 0);
                    total += w[i];
                }
                for (int32_t i = 0; i < V; i++)
                    r->q[b][k][i] = (float)(w[i] / total);
                r->x[b][k] = draw(w, V, &state);
            }
        }
    }
}

/* ---- laying it out ------------------------------------------------------------- */

/* Value i of a row buffer: a float, or bfloat16 bits in logits-bf16 mode. */
static void put(float *buf, int64_t i, float v, int32_t input)
{
    if (input == SV_INPUT_LOGITS_BF16)
        ((uint16_t *)(void *)buf)[i] = sv_bf16_from_float(v);
    else
        buf[i] = v;
}

static void fill(float *buf, int64_t n, float v, int32_t input)
{
    for (int64_t i = 0; i < n; i++)
        put(buf, i, v, input);
}

/* Sequence b's rows and drafts at the given element offsets of run's buffers. */
static void place(const ragged *r, int32_t b, ragged_run *run, int64_t target, int64_t draft,
                  int64_t drafts)
{
    const int32_t V = r->V;
    for (int32_t k = 0; k <= r->d[b]; k++)
        for (int32_t i = 0; i < V; i++)
            put(run->target, target + (int64_t)k * V + i, r->p[b][k][i], r->input);
    for (int32_t k = 0; k < r->d[b]; k++) {
        for (int32_t i = 0; i < V; i++)
            put(run->draft, draft + (int64_t)k * V + i, r->q[b][k][i], r->input);
        run->tokens[drafts + k] = r->x[b][k];
    }
}

/* The fields every layout shares: rows by input mode, outputs all canary. */
static void common(const ragged *r, ragged_run *run, int32_t B, int32_t K)
{
    const int logits = r->input != SV_INPUT_PROBS;
    run->bt = (sv_batch){.B = B, .K = K, .V = r->V, .draft_tokens = run->tokens,
                         .out_tokens = run->out, .out_accepted = run->accepted,
                         .input = r->input};
    if (logits) {
        run->bt.target_logits = run->target;
        run->bt.draft_logits = r->one_hot ? NULL : run->draft;
    } else {
        run->bt.target = run->target;
        run->bt.draft = r->one_hot ? NULL : run->draft;
    }
    for (size_t i = 0; i < sizeof run->out / sizeof run->out[0]; i++)
        run->out[i] = RB_CANARY;
    for (size_t i = 0; i < sizeof run->accepted / sizeof run->accepted[0]; i++)
        run->accepted[i] = RB_CANARY;
}

void ragged_lay_out(const ragged *r, int32_t layout, ragged_run *run)
{
    const int32_t B = r->B, K = r->K, V = r->V;
    common(r, run, B, K);
    run->cu[0] = 0;
    for (int32_t b = 0; b < B; b++)
        run->cu[b + 1] = run->cu[b] + r->d[b];
    sv_batch *bt = &run->bt;
    bt->layout = layout;
    bt->num_drafts = r->d;
    bt->cu_num_drafts = run->cu;
    bt->indices = r->indices;
    bt->seeds = r->seeds;
    bt->seeded = r->seeded;
    if (r->input != SV_INPUT_PROBS) {
        bt->temperatures = r->T;
        bt->top_ks = r->top_k;
        bt->top_ps = r->top_p;
    }
    /* decoys: the batch-wide fields the version 3 arrays replace */
    bt->seed = 0xdecafbadull;
    bt->first_index = 77777;
    bt->temperature = r->input != SV_INPUT_PROBS ? 0.5 : 0.0;
    bt->top_k = r->input != SV_INPUT_PROBS ? 3 : 0;
    bt->top_p = r->input != SV_INPUT_PROBS ? 0.5 : 0.0;
    if (layout == SV_LAYOUT_PACKED) {
        run->n_out = run->cu[B] + B;
        for (int32_t b = 0; b < B; b++)
            place(r, b, run, ((int64_t)run->cu[b] + b) * V, (int64_t)run->cu[b] * V,
                  run->cu[b]);
        return;
    }
    run->n_out = B * (K + 1);
    bt->target_stride = (int64_t)(K + 1) * V;
    bt->draft_stride = (int64_t)K * V;
    fill(run->target, (int64_t)B * (K + 1) * V, NAN, r->input);
    fill(run->draft, (int64_t)B * K * V, NAN, r->input);
    for (int32_t i = 0; i < B * K; i++)
        run->tokens[i] = -1;
    for (int32_t b = 0; b < B; b++)
        place(r, b, run, b * bt->target_stride, b * bt->draft_stride, (int64_t)b * K);
}

void ragged_one(const ragged *r, int32_t b, ragged_run *run)
{
    const int32_t d = r->d[b];
    common(r, run, 1, d);
    run->n_out = d + 1;
    run->bt.target_stride = (int64_t)(d + 1) * r->V;
    run->bt.draft_stride = (int64_t)d * r->V;
    run->bt.seed = r->seeds[b];
    run->bt.first_index = r->indices[b];
    if (r->input != SV_INPUT_PROBS) {
        run->bt.temperature = r->T[b];
        run->bt.top_k = r->top_k[b];
        run->bt.top_p = r->top_p[b];
    }
    place(r, b, run, 0, 0, 0);
}

int ragged_call(const sv_sampler *s, ragged_run *run)
{
    void *state = NULL;
    sv_limits limits = {.max_B = RB_MAXB, .max_K = RB_MAXK, .max_V = RB_MAXV};
    if (s->init(&state, &limits) != SV_SAMPLER_OK)
        return -1;
    int rc = s->verify(state, &run->bt);
    s->destroy(state);
    return rc;
}

int32_t *ragged_out(const ragged *r, const ragged_run *run, int32_t b)
{
    if (!run->bt.num_drafts)
        return (int32_t *)run->out;
    return (int32_t *)run->out + (run->bt.layout == SV_LAYOUT_PACKED
                                      ? run->cu[b] + b : b * (r->K + 1));
}

/* ---- the check ------------------------------------------------------------------ */

/* 1 when the slots from..to-1 of `out` all keep the canary. */
static int untouched(const int32_t *out, int32_t from, int32_t to)
{
    for (int32_t i = from; i < to; i++)
        if (out[i] != RB_CANARY)
            return 0;
    return 1;
}

int ragged_agrees(const sv_sampler *s, const ragged *r, int quiet)
{
    static ragged_run run;
    static int32_t alone[RB_MAXB][RB_MAXK + 1], alone_n[RB_MAXB];
    const uint32_t both = SV_LAYOUT_BIT(SV_LAYOUT_PADDED) | SV_LAYOUT_BIT(SV_LAYOUT_PACKED);
    const char *names[2] = {"padded", "packed"};
    int ok = s->layouts == both;
    if (!ok && !quiet)
        fprintf(stderr, "  %s: layouts 0x%x, not both (0x%x)\n", s->name, s->layouts, both);
    for (int32_t b = 0; b < r->B; b++) {
        const int32_t d = r->d[b];
        ragged_one(r, b, &run);
        int rc = ragged_call(s, &run);
        if (rc != SV_SAMPLER_OK || !untouched(run.out, d + 1, d + 1 + RB_GUARD)) {
            if (!quiet)
                fprintf(stderr, "  %s: sequence %d alone: status %d or a slot past its own written\n",
                        s->name, b, rc);
            return 0;
        }
        memcpy(alone[b], run.out, (size_t)(d + 1) * sizeof run.out[0]);
        alone_n[b] = run.accepted[0];
    }
    for (int32_t layout = SV_LAYOUT_PADDED; layout <= SV_LAYOUT_PACKED; layout++) {
        ragged_lay_out(r, layout, &run);
        int rc = ragged_call(s, &run);
        int same = rc == SV_SAMPLER_OK;
        if (!same && !quiet)
            fprintf(stderr, "  %s, %s: status %d\n", s->name, names[layout], rc);
        if (same && !(untouched(run.out, run.n_out, run.n_out + RB_GUARD) &&
                      untouched(run.accepted, r->B, r->B + RB_GUARD))) {
            same = 0;
            if (!quiet)
                fprintf(stderr, "  %s, %s: wrote past the batch's last slot\n", s->name,
                        names[layout]);
        }
        for (int32_t b = 0; same && b < r->B; b++) {
            const int32_t d = r->d[b], *y = ragged_out(r, &run, b);
            int seq = run.accepted[b] == alone_n[b] &&
                      memcmp(y, alone[b], (size_t)(d + 1) * sizeof *y) == 0 &&
                      (layout == SV_LAYOUT_PACKED || untouched(y, d + 1, r->K + 1));
            if (!seq && !quiet)
                fprintf(stderr, "  %s, %s: sequence %d (d_b %d): n %d, y_1 %d, y_%d %d; alone: "
                        "n %d, y_1 %d, y_%d %d; its first slot past d_b: %d\n", s->name,
                        names[layout], b, d, run.accepted[b], y[0], d + 1, y[d], alone_n[b],
                        alone[b][0], d + 1, alone[b][d],
                        layout == SV_LAYOUT_PADDED && d < r->K ? y[d + 1] : RB_CANARY);
            same &= seq;
        }
        ok &= same;
    }
    return ok;
}
