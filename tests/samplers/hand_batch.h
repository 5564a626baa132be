/* hand_batch.h: small contract v3 batches built by hand on ragged_batch.h,
 * each sequence with rows chosen so that the tokens in question are
 * certain; run, read back and compared per sequence in either layout, and
 * the correct chain to compare with. What test_broken_batches.c builds its
 * cases from. */
#ifndef SV_HAND_BATCH_H
#define SV_HAND_BATCH_H

#include <stdint.h>
#include "ragged_batch.h"

/* B sequences of V tokens, no drafts yet, zero rows: seed 7, index 100 + b,
 * seeded, rule T = 1 with no cut, probabilities. hb_done once the d_b are set. */
void hb_hand(ragged *r, int32_t B, int32_t V);
void hb_done(ragged *r);

/* r laid out in `layout` and run through s: its status. */
int hb_run(const sv_sampler *s, const ragged *r, int32_t layout, ragged_run *run);
/* Sequence b's slot k. */
int32_t hb_y(const ragged *r, const ragged_run *run, int32_t b, int32_t k);
/* 1 if sequence b emitted y[0..n], then -1 up to its slot d_b, with count n. */
int hb_record_is(const ragged *r, const ragged_run *run, int32_t b, int32_t n,
                 const int32_t *y);
/* 1 if sequence b of run and sequence c of other have the same count and slots 0..d. */
int hb_same_record(const ragged *r, const ragged_run *run, int32_t b, const ragged_run *other,
                   int32_t c);
/* 1 if two runs of one layout hold the same slots and counts, canaries included. */
int hb_same_outputs(const ragged_run *a, const ragged_run *b);

/* Rows over V tokens: e_t; 1/V each. Rows over 8 tokens: weights w
 * normalized; logits l[0..n) then `rest`. */
void hb_one_hot(float *row, int32_t V, int32_t t);
void hb_uniform(float *row, int32_t V);
void hb_set_row(float *row, const float *w);
void hb_set_logits(float *row, const float *l, int32_t n, float rest);

/* The correct chain: the skeleton with ref's steps (chain.h), both layouts. */
extern const sv_sampler hb_correct;

/* The rule sequence b's row k is made by (draft: a draft row). */
typedef struct hb_rule {
    double T;
    int32_t top_k;
    double top_p;
} hb_rule;
typedef hb_rule hb_rule_fn(const ragged *r, int32_t b, int draft, int32_t k);
/* Each sequence's own rule. */
hb_rule hb_own_rule(const ragged *r, int32_t b, int draft, int32_t k);
/* A logits batch made into a probs batch, each row by `by` (logits_rows.h). */
void hb_probs_from_logits(ragged *r, hb_rule_fn *by);

#endif
