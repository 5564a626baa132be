/* seq_view.h: one sequence of a contract v3 batch as a batch of its own, for
 * the broken variants of the batch-shaped bug classes (issue 25).
 *
 * Each of those variants gets one thing about a sequence wrong: the rows it
 * reads (a wrong offset or stride), the rule its rows are made by (logits
 * input), the slots it writes, or the key of its random numbers. The view
 * lets it change just that and hand the rest to the chain skeleton
 * (chain.h): sequence b becomes a one-sequence batch of the version 2 shape
 * (one_sequence.h: K = d_b, seed seeds[b], first_index indices[b]), which draws
 * exactly the random numbers the whole batch would give it, so a variant
 * differs from the correct chain only where its bug is. */
#ifndef SV_SEQ_VIEW_H
#define SV_SEQ_VIEW_H

#include "chain.h"

struct sv_logits_memo;

typedef struct sv_seq_state {
    void *chain;    /* the chain skeleton's state (sv_chain_init) */
    float *rows;    /* [2 max_K + 1][max_V]: rows a variant builds: target rows, then draft rows */
    double *work;   /* 2 max_V doubles, for sv_logits_row_probs */
    int32_t *out;   /* [max_K + 1]: a sequence's record before a variant places it */
    struct sv_logits_memo *memo; /* logits rows converted (logits_memo.h); NULL until needed */
    int32_t max_K, max_V;
} sv_seq_state;

int sv_seq_init(void **state, const sv_limits *limits);
void sv_seq_destroy(void *state);

/* Sequence b as a batch of its own (one_sequence.h): its drafts, out slots
 * and count, its seed and index, its rows (probabilities or logits) and
 * rule. SV_SAMPLER_EINVAL when d_b is outside [0, K]. */
int sv_seq_view(const sv_batch *bt, int32_t b, sv_batch *view);

/* Elements of the rows a batch holds, in its layout: target (or target
 * logits) and draft buffers; and slots of out_tokens. What a variant whose
 * bug reads or writes past a sequence's own keeps its accesses inside. */
int64_t sv_seq_target_extent(const sv_batch *bt);
int64_t sv_seq_draft_extent(const sv_batch *bt);
int64_t sv_seq_out_extent(const sv_batch *bt);

/* ---- logits input: each sequence's rows made by a rule ---------------------- */

typedef struct sv_seq_rule {
    double temperature; /* 0: greedy */
    int32_t top_k;
    double top_p;
} sv_seq_rule;

/* What a variant may know about the whole batch when it picks a rule. */
typedef struct sv_seq_batch_facts {
    int any_greedy;     /* some sequence has temperature 0 */
    int any_random;     /* some sequence has temperature > 0 */
} sv_seq_batch_facts;

/* Sequence b's own rule (sv_batch_temperature, _top_k, _top_p). */
sv_seq_rule sv_seq_own_rule(const sv_batch *bt, int32_t b);

/* The rule a variant makes row k of sequence b by: its draft row k (draft =
 * 1), or its target row k (k = d_b: its bonus row). A correct sampler
 * returns sv_seq_own_rule(bt, b) for every row. */
typedef sv_seq_rule sv_seq_rule_fn(const sv_batch *bt, int32_t b, int draft, int32_t k,
                                   const sv_seq_batch_facts *facts);

/* A logits variant's verify: for logits input, each sequence's rows made
 * into probabilities by `rule` (logits_rows.h), then ref's chain on them;
 * for probs input, ref's chain on the batch as it is. */
int sv_seq_verify_logits(void *state, const sv_batch *bt, sv_seq_rule_fn *rule);

/* The inputs a logits variant takes (as ref_logits). */
#define SV_SEQ_LOGITS_INPUTS                                                              \
    (SV_INPUT_BIT(SV_INPUT_LOGITS_F32) | SV_INPUT_BIT(SV_INPUT_LOGITS_BF16))

/* A logits variant: the view's state, sv_seq_verify_logits with `rule`. */
#define SV_SEQ_LOGITS_SAMPLER(var, name, description, rule)                             \
    static int var##_verify(void *state, const sv_batch *bt)                            \
    {                                                                                   \
        return sv_seq_verify_logits(state, bt, rule);                                   \
    }                                                                                   \
    const sv_sampler var = {name, description, SV_MEM_HOST, sv_seq_init, var##_verify,  \
                            sv_seq_destroy, SV_SEQ_LOGITS_INPUTS, SV_CHAIN_LAYOUTS, \
                            SV_RULE_CHAIN}

#endif
