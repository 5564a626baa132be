/* rules.h: the verification rules beyond the chain (sv_rule), each written
 * once with the flaws the broken variants need as switches: ref_exact,
 * ref_block, ref_tree and ref_tree_target_only are the flawless ones
 * (ref_typical is lossy by design), samplers/broken/ holds the rest (one
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

/* tree_rule.c and tree_target_only.c: the tree rules (SV_RULE_TREE,
 * SV_RULE_TREE_TARGET_ONLY). A sequence of a tree batch: its chain view
 * (the nodes as drafts), its parents and its path slots. */
typedef struct sv_tree_seq {
    sv_rule_seq s;
    const int32_t *parents; /* [d]: node k+1's parent, in [0, k] */
    int32_t *path;          /* [d+1] */
} sv_tree_seq;
/* 0, or -1 when the batch has no tree or a parent is out of order. */
int sv_tree_seq_of(const sv_batch *bt, int32_t b, sv_tree_seq *t);
/* -1 in the path slots n..d and the token slots n+1..d. */
void sv_tree_finish(const sv_tree_seq *t, int32_t n);
int sv_tree_init(void **state, const sv_limits *limits);
void sv_tree_destroy(void *state);
typedef enum sv_tree_flaw {
    SV_TREE_RIGHT = 0,
    SV_TREE_SIBLINGS_AS_DISTINCT = 1, /* every tree verified as if its siblings were drawn
                                       * without replacement */
    SV_TREE_CDF_BOUNDARY = 2          /* target-only: a float32 coin in [0, 1) tested with <= */
} sv_tree_flaw;
/* One node's step of a tree rule: the child accepted (a node index), or 0
 * with the token that ends the step in *token; -1 on bad input. */
typedef int32_t (*sv_tree_step)(const sv_tree_seq *t, int32_t u, void *ctx, int32_t *token);
/* Walks every sequence of a tree batch from its root by `step`, writing its
 * path, tokens and count. */
int sv_tree_walk(const sv_batch *bt, sv_tree_step step, void *ctx);
int sv_tree_verify(void *state, const sv_batch *bt, sv_tree_flaw flaw);
int sv_tree_target_only_verify(void *state, const sv_batch *bt, sv_tree_flaw flaw);

/* max(x, 0) for the residuals' loops over V: GCC calls libm's fmax out of
 * line (its NaN rule), which was half of ref_block's time (perf); the same
 * value for every x but -0, which sums and compares as +0. */
static inline double sv_positive_part(double x)
{
    return x > 0.0 ? x : 0.0;
}

#endif
