/* ragged_batch.h: a version 3 batch whose sequences have their own rows,
 * number of drafts, seed, index and sampling rule, laid out padded or
 * packed; each sequence alone as a version 2 batch of one; and the check
 * that a sampler gives in both layouts, token for token, what it gives each
 * sequence alone. Padded rows past d_b are NaN, draft tokens past d_b -1,
 * and every output slot a sequence does not own keeps RB_CANARY. */
#ifndef SV_RAGGED_BATCH_H
#define SV_RAGGED_BATCH_H

#include <stdint.h>
#include "sv_sampler.h"

#define RB_MAXB 32
#define RB_MAXK 6
#define RB_MAXV 64
#define RB_GUARD 4          /* canary slots after the last output slot */
#define RB_CANARY 0x5eed5eed

/* The batch as the test makes it, sequence by sequence. */
typedef struct ragged {
    int32_t B, K, V;   /* K: the largest d_b */
    int32_t input;     /* an sv_input: p and q hold probabilities or logits */
    int one_hot;       /* no draft rows (draft == NULL) */
    int32_t d[RB_MAXB];
    uint64_t seeds[RB_MAXB], indices[RB_MAXB];
    uint8_t seeded[RB_MAXB];
    double T[RB_MAXB], top_p[RB_MAXB];
    int32_t top_k[RB_MAXB];
    float p[RB_MAXB][RB_MAXK + 1][RB_MAXV]; /* logits rounded to bfloat16 in that mode */
    float q[RB_MAXB][RB_MAXK][RB_MAXV];
    int32_t x[RB_MAXB][RB_MAXK];
} ragged;

/* A laid-out batch and the buffers its sv_batch points into. */
typedef struct ragged_run {
    sv_batch bt;
    int32_t n_out;     /* output slots before the guard */
    int32_t cu[RB_MAXB + 1];
    float target[RB_MAXB * (RB_MAXK + 1) * RB_MAXV]; /* or bfloat16 bits */
    float draft[RB_MAXB * RB_MAXK * RB_MAXV];
    int32_t tokens[RB_MAXB * RB_MAXK];
    int32_t out[RB_MAXB * (RB_MAXK + 1) + RB_GUARD], accepted[RB_MAXB + RB_GUARD];
} ragged_run;

/* B sequences with drafts d_b from 0 to K (each value at least once where
 * B > K), distinct seeds and indices in scrambled order, rows of their own
 * (probabilities or logits by `input`), drafts from q; for logits a rule
 * per sequence cycling through greedy, top-k, top-p, both and none. */
void ragged_random(ragged *r, int32_t B, int32_t K, int32_t V, int32_t input, int one_hot,
                   uint64_t seed);
/* r in `layout` (SV_LAYOUT_PADDED or SV_LAYOUT_PACKED), outputs all RB_CANARY. */
void ragged_lay_out(const ragged *r, int32_t layout, ragged_run *run);
/* Sequence b alone, as a version 1/2 sampler is given it: B = 1, K = d_b,
 * seed = seeds[b], first_index = indices[b], its rule batch-wide, the
 * version 3 arrays NULL. */
void ragged_one(const ragged *r, int32_t b, ragged_run *run);
/* s on run->bt with limits RB_MAXB, RB_MAXK, RB_MAXV: its status (-1: init failed). */
int ragged_call(const sv_sampler *s, ragged_run *run);
/* Where sequence b's output slots start in run. */
int32_t *ragged_out(const ragged *r, const ragged_run *run, int32_t b);

/* 1 when s takes both layouts and, given r padded and packed, returns OK and
 * gives every sequence the tokens and count its one-sequence batch gives,
 * touching no slot it does not own; else 0, each difference on stderr
 * unless quiet. */
int ragged_agrees(const sv_sampler *s, const ragged *r, int quiet);

#endif
