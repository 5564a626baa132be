/* emu_ragged.h: test_emu_ragged's batch (and test_gpu_ragged's): RB
 * sequences of their own d_b drafts (0 to RK), rows, seeds and indices, and
 * in logits mode their own rules, laid out padded and packed, with no CUDA
 * in it (the rows are host memory; the test copies them to the device). */
#ifndef SV_EMU_RAGGED_H
#define SV_EMU_RAGGED_H

#include <stdint.h>
#include "sv_sampler.h"

enum { RB = 7, RK = 4, CANARY = -7, TAIL = 8 };
/* d_b: none, some and K drafts, a sequence of 0 at the end; and all K */
extern const int32_t ragged_d[RB], full_d[RB];

/* One batch's data in both layouts. Rows hold probabilities or logits
 * (float, and bf16 copies); the padded ones past d_b are NaN, its drafts
 * past d_b -1. */
typedef struct ragged {
    int32_t V, d[RB], cu[RB + 1];
    uint64_t seeds[RB], indices[RB];
    double T[RB], top_p[RB];
    int32_t top_k[RB];
    float *target, *draft;           /* padded: [RB][RK + 1][V], [RB][RK][V] */
    uint16_t *target16, *draft16;
    float *ptarget, *pdraft;         /* packed: [cu[RB] + RB][V], [cu[RB]][V] */
    uint16_t *ptarget16, *pdraft16;
    int32_t drafts[RB * RK], pdrafts[RB * RK];
} ragged;

/* V tokens, d[b] drafts each, probability rows (logits = 0) or logits. */
void ragged_make(ragged *r, int32_t V, const int32_t *d, int logits);
void ragged_free(ragged *r);
/* Each sequence's rule: greedy, plain, top-k, top-p and both mixed; or all
 * plain (T > 0, nothing cut), each its own temperature. */
void set_rules(ragged *r, int mixed);

enum { DRAFT_ROWS = 0, ONE_HOT = 1 };

/* r's batch in `layout` (input: probabilities, or logits with each
 * sequence's rule). The batch-wide seed, index and rule are no sequence's. */
sv_batch ragged_batch(const ragged *r, int layout, int input, int drafter);

#endif
