/* rules.h: the verification rules beyond the chain (sv_rule), each written
 * once with the flaws the broken variants need as switches: ref_exact and
 * ref_block are the flawless ones, samplers/broken/ holds the rest (one
 * file each, with its bug and where it shipped). */
#ifndef SV_RULES_H
#define SV_RULES_H

#include "sv_sampler.h"

/* Both rules' state: the inverse-CDF workspace for the largest V. */
int sv_rule_init(void **state, const sv_limits *limits);
void sv_rule_destroy(void *state);

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

#endif
