/* batch_fixture.h: hand-built contract v3 batches for the tests of the
 * broken variants of issue 25: a few sequences, each with its own rows,
 * drafts, number of drafts, seed, index and sampling rule, laid out padded
 * or packed (sv_sampler.h), run through a sampler, and read back per
 * sequence whatever the layout. */
#ifndef SV_BATCH_FIXTURE_H
#define SV_BATCH_FIXTURE_H

#include <stdint.h>
#include "sv_sampler.h"

#define BF_B 8
#define BF_K 4
#define BF_V 8
#define BF_UNTOUCHED 777 /* what every out slot holds before a run */

typedef struct bf_seq {
    int32_t d;                /* its number of drafts */
    float p[BF_K + 1][BF_V];  /* target rows: probabilities, or logits for logits input */
    float q[BF_K][BF_V];      /* draft rows, likewise */
    int32_t x[BF_K];          /* its drafts */
    uint64_t seed, index;
    double T;                 /* its rule (logits input) */
    int32_t top_k;
    double top_p;
} bf_seq;

typedef struct bf_batch {
    int32_t B, V;
    int layout;     /* SV_LAYOUT_PADDED or SV_LAYOUT_PACKED */
    int logits;     /* 1: p and q are float logits (SV_INPUT_LOGITS_F32) */
    int broadcast;  /* padded only: strides 0, sequence 0's rows for all (the version 2 shape) */
    bf_seq s[BF_B];
    /* laid out by bf_run */
    float target[BF_B * (BF_K + 1) * BF_V], draft[BF_B * BF_K * BF_V];
    int32_t drafts[BF_B * BF_K], out[BF_B * (BF_K + 1)], accepted[BF_B];
    int32_t num_drafts[BF_B], cu[BF_B + 1];
    uint64_t seeds[BF_B], indices[BF_B];
    uint8_t seeded[BF_B];
    double temperatures[BF_B], top_ps[BF_B];
    int32_t top_ks[BF_B];
    sv_batch bt;
} bf_batch;

/* B sequences of V tokens: no drafts, zero rows, seed 7, index 100 + b,
 * rule T = 1 with no cut; padded probs input. */
void bf_clear(bf_batch *f, int32_t B, int32_t V);
/* Lays the sequences out into f->bt, every out slot BF_UNTOUCHED and every
 * count -2. */
void bf_lay_out(bf_batch *f);
/* bf_lay_out, then s run on f->bt (init, verify, destroy): its status, -1
 * if init failed. */
int bf_run(const sv_sampler *s, bf_batch *f);
/* Sequence b's slot k (k <= d_b, or past it: what the slot holds) and count. */
int32_t bf_y(const bf_batch *f, int32_t b, int32_t k);
int32_t bf_n(const bf_batch *f, int32_t b);
/* 1 if sequence b of f and sequence c of g have the same count and slots 0..d. */
int bf_same_record(const bf_batch *f, int32_t b, const bf_batch *g, int32_t c);
/* 1 if f and g (laid out alike) hold the same out slots and counts, all of them. */
int bf_same_outputs(const bf_batch *f, const bf_batch *g);

/* row = e_t over V tokens; row = 1/V each. */
void bf_one_hot(float *row, int32_t V, int32_t t);
void bf_uniform(float *row, int32_t V);

/* The rule sequence b's row k is made by (draft: a draft row). */
typedef struct bf_rule {
    double T;
    int32_t top_k;
    double top_p;
} bf_rule;
typedef bf_rule bf_rule_fn(const bf_batch *f, int32_t b, int draft, int32_t k);
/* Each sequence's own rule. */
bf_rule bf_own_rule(const bf_batch *f, int32_t b, int draft, int32_t k);
/* A logits batch made into a probs batch, each row by `rule` (logits_rows.h). */
void bf_probs_from_logits(bf_batch *f, bf_rule_fn *rule);

/* The correct chain: the skeleton with ref's steps (chain.h), both layouts. */
extern const sv_sampler bf_correct_chain;

#endif
