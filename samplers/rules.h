/* rules.h: the verification rules beyond the chain (sv_rule), each written
 * once with the flaws the broken variants need as switches: ref_exact and
 * ref_block are the flawless ones (ref_typical is lossy by design), samplers/broken/ holds the rest (one
 * file each, with its bug and where it shipped). */
#ifndef SV_RULES_H
#define SV_RULES_H

#include "sv_sampler.h"

/* Both rules' state: the inverse-CDF workspace for the largest V. */
int sv_rule_init(void **state, const sv_limits *limits);
void sv_rule_destroy(void *state);

/* Sequence b of a batch in either layout, as the rules read it. */
typedef struct sv_rule_seq {
    const float *P;   /* [d+1][V] target rows */
    const float *Q;   /* [d][V] draft rows, NULL for a one-hot drafter (or exact match) */
    const int32_t *x; /* [d] drafts */
    int32_t *y;       /* [d+1] its own output slots */
    int32_t d, V;
    uint64_t seed, index;
} sv_rule_seq;
/* 0, or -1 when its number of drafts or a draft is out of range. */
int sv_rule_seq_of(const sv_batch *bt, int32_t b, sv_rule_seq *s);

/* exact_rule.c: SV_RULE_EXACT_MATCH. */
typedef enum sv_exact_flaw {
    SV_EXACT_RIGHT = 0,
    SV_EXACT_ARGMAX_AT_DRAFTS = 1, /* the target's argmax at draft positions, a sample
                                    * only for the bonus (a sampled request verified greedily) */
    SV_EXACT_ONE_SAMPLE = 2        /* one uniform for every position's draw */
} sv_exact_flaw;
int sv_exact_verify(void *state, const sv_batch *bt, sv_exact_flaw flaw);

/* block_rule.c: SV_RULE_BLOCK. */
typedef enum sv_block_flaw {
    SV_BLOCK_RIGHT = 0,
    SV_BLOCK_TOKENWISE_RESIDUAL = 1 /* the chain's residual max(p - q, 0) after a block's n */
} sv_block_flaw;
int sv_block_verify(void *state, const sv_batch *bt, sv_block_flaw flaw);

/* typical_rule.c: SV_RULE_TYPICAL, Medusa's defaults. */
#define SV_TYPICAL_EPS 0.09
#define SV_TYPICAL_DELTA 0.3
/* min(eps, delta exp(-H(row))), the row normalized first. */
double sv_typical_threshold(const float *row, int32_t V, double eps, double delta);

#endif
