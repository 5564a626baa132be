/* emu_ragged.c: the ragged batch of test_emu_ragged (emu_ragged.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "emu_ragged.h"
#include "emu_rows.h"
#include "sv_bf16.h"

const int32_t ragged_d[RB] = {3, 0, 4, 1, 4, 2, 0};
const int32_t full_d[RB] = {RK, RK, RK, RK, RK, RK, RK};

static int32_t argmax(const float *row, int32_t V)
{
    int32_t best = 0;
    for (int32_t i = 1; i < V; i++)
        best = row[i] > row[best] ? i : best;
    return best;
}

/* Sequence b's rows: probabilities (q a mix of p and noise, drafts from q),
 * or logits (in [-4, 4), q's the target's plus noise, drafts q's first-
 * ranked token or any, half and half). */
static void make_rows(float *P, float *Q, int32_t *x, int32_t d, int32_t V, int logits)
{
    for (int32_t k = 0; k <= d; k++)
        if (logits)
            for (int32_t i = 0; i < V; i++)
                P[(size_t)k * V + i] = (float)(8.0 * lcg_unit() - 4.0);
        else
            random_row(P + (size_t)k * V, V);
    for (int32_t k = 0; k < d; k++) {
        float *q = Q + (size_t)k * V;
        const float *p = P + (size_t)k * V;
        if (logits) {
            for (int32_t i = 0; i < V; i++)
                q[i] = p[i] + (float)(lcg_unit() - 0.5);
            x[k] = lcg32() % 2u ? argmax(q, V) : (int32_t)(lcg32() % (uint32_t)V);
        } else {
            random_row(q, V);
            for (int32_t i = 0; i < V; i++)
                q[i] = 0.5f * q[i] + 0.5f * p[i];
            x[k] = draw(q, V);
        }
    }
}

void ragged_make(ragged *r, int32_t V, const int32_t *d, int logits)
{
    memset(r, 0, sizeof *r);
    r->V = V;
    const size_t row = (size_t)V, nt = (size_t)RB * (RK + 1) * row, nd = (size_t)RB * RK * row;
    r->target = malloc(nt * sizeof(float)), r->draft = malloc(nd * sizeof(float));
    r->target16 = malloc(nt * sizeof(uint16_t)), r->draft16 = malloc(nd * sizeof(uint16_t));
    for (size_t i = 0; i < nt; i++)
        r->target[i] = NAN;
    for (size_t i = 0; i < nd; i++)
        r->draft[i] = NAN;
    for (int32_t b = 0; b < RB; b++) {
        r->d[b] = d[b];
        r->cu[b + 1] = r->cu[b] + d[b];
        r->seeds[b] = 0x9e3779b97f4a7c15u * (uint64_t)(b + 1) ^ 20261124u;
        r->indices[b] = 5000u - 313u * (uint64_t)b; /* neither contiguous nor increasing */
        for (int32_t k = 0; k < RK; k++)
            r->drafts[b * RK + k] = -1;
        make_rows(r->target + (size_t)b * (RK + 1) * row, r->draft + (size_t)b * RK * row,
                  r->drafts + b * RK, d[b], V, logits);
    }
    for (size_t i = 0; i < nt; i++)
        r->target16[i] = sv_bf16_from_float(r->target[i]);
    for (size_t i = 0; i < nd; i++)
        r->draft16[i] = sv_bf16_from_float(r->draft[i]);
    /* the packed copies: sequence b's rows and drafts at cu[b] (+ b for target rows) */
    const int32_t total = r->cu[RB];
    r->ptarget = malloc((size_t)(total + RB) * row * sizeof(float));
    r->ptarget16 = malloc((size_t)(total + RB) * row * sizeof(uint16_t));
    r->pdraft = malloc(((size_t)total + 1) * row * sizeof(float));
    r->pdraft16 = malloc(((size_t)total + 1) * row * sizeof(uint16_t));
    for (int32_t b = 0; b < RB; b++) {
        const size_t from_t = (size_t)b * (RK + 1) * row, to_t = (size_t)(r->cu[b] + b) * row;
        const size_t from_d = (size_t)b * RK * row, to_d = (size_t)r->cu[b] * row;
        memcpy(r->ptarget + to_t, r->target + from_t, (size_t)(d[b] + 1) * row * sizeof(float));
        memcpy(r->ptarget16 + to_t, r->target16 + from_t, (size_t)(d[b] + 1) * row * 2);
        memcpy(r->pdraft + to_d, r->draft + from_d, (size_t)d[b] * row * sizeof(float));
        memcpy(r->pdraft16 + to_d, r->draft16 + from_d, (size_t)d[b] * row * 2);
        memcpy(r->pdrafts + r->cu[b], r->drafts + b * RK, (size_t)d[b] * sizeof(int32_t));
    }
}

void ragged_free(ragged *r)
{
    free(r->target), free(r->draft), free(r->target16), free(r->draft16);
    free(r->ptarget), free(r->pdraft), free(r->ptarget16), free(r->pdraft16);
}

void set_rules(ragged *r, int mixed)
{
    static const double T[RB] = {1.0, 0.0, 0.7, 1.2, 0.0, 0.8, 1.5};
    static const int32_t top_k[RB] = {0, 0, 40, 0, 0, 100, 0};
    static const double top_p[RB] = {1.0, 1.0, 1.0, 0.9, 1.0, 0.8, 1.0};
    for (int32_t b = 0; b < RB; b++) {
        r->T[b] = mixed ? T[b] : 0.6 + 0.2 * b;
        r->top_k[b] = mixed ? top_k[b] : 0;
        r->top_p[b] = mixed ? top_p[b] : 1.0;
    }
}

sv_batch ragged_batch(const ragged *r, int layout, int input, int drafter)
{
    const int packed = layout == SV_LAYOUT_PACKED, bf16 = input == SV_INPUT_LOGITS_BF16;
    const int32_t V = r->V;
    sv_batch bt = {.B = RB, .K = RK, .V = V, .seed = 424242, .first_index = 7,
                   .layout = layout, .num_drafts = r->d, .cu_num_drafts = r->cu,
                   .indices = r->indices, .seeds = r->seeds, .input = input,
                   .temperature = 2.5, .top_k = 1, .top_p = 0.05};
    bt.target_stride = packed ? 0 : (int64_t)(RK + 1) * V;
    bt.draft_stride = packed ? 0 : (int64_t)RK * V;
    bt.draft_tokens = packed ? r->pdrafts : r->drafts;
    const void *t = packed ? (bf16 ? (const void *)r->ptarget16 : r->ptarget)
                           : (bf16 ? (const void *)r->target16 : r->target);
    const void *q = packed ? (bf16 ? (const void *)r->pdraft16 : r->pdraft)
                           : (bf16 ? (const void *)r->draft16 : r->draft);
    if (drafter == ONE_HOT)
        q = NULL;
    if (input == SV_INPUT_PROBS) {
        bt.target = t, bt.draft = q;
    } else {
        bt.target_logits = t, bt.draft_logits = q;
        bt.temperatures = r->T, bt.top_ks = r->top_k, bt.top_ps = r->top_p;
    }
    return bt;
}
