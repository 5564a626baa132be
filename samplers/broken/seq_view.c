/* seq_view.c: one sequence of a batch as a batch of its own (seq_view.h). */
#include <stdlib.h>
#include "logits_rows.h"
#include "one_sequence.h"
#include "seq_view.h"

/* The logits row and rule a row of sv_seq_state.rows was made from in this
 * verify call: rows given with stride 0 (one row set for the batch) are made
 * once, not once per sequence, unless the rule changes. */
struct sv_seq_made {
    const void *from; /* NULL: nothing made yet in this call */
    sv_seq_rule rule;
};

int sv_seq_init(void **state, const sv_limits *limits)
{
    sv_seq_state *st = calloc(1, sizeof *st);
    *state = st;
    if (!st)
        return SV_SAMPLER_ENOMEM;
    st->max_K = limits->max_K;
    st->max_V = limits->max_V;
    const size_t V = (size_t)limits->max_V, K = (size_t)limits->max_K;
    st->rows = malloc((2 * K + 1) * V * sizeof *st->rows);
    st->work = malloc(2 * V * sizeof *st->work);
    st->out = malloc((K + 1) * sizeof *st->out);
    st->made = malloc((2 * K + 1) * sizeof *st->made);
    int rc = st->rows && st->work && st->out && st->made ? sv_chain_init(&st->chain, limits)
                                                         : SV_SAMPLER_ENOMEM;
    if (rc != SV_SAMPLER_OK) {
        sv_seq_destroy(st);
        *state = NULL;
    }
    return rc;
}

void sv_seq_destroy(void *state)
{
    sv_seq_state *st = state;
    if (!st)
        return;
    sv_chain_destroy(st->chain);
    free(st->rows);
    free(st->work);
    free(st->out);
    free(st->made);
    free(st);
}

int sv_seq_view(const sv_batch *bt, int32_t b, sv_batch *view)
{
    const int32_t d = sv_batch_num_drafts(bt, b);
    if (d < 0 || d > bt->K)
        return SV_SAMPLER_EINVAL;
    *view = sv_one_sequence(bt, b);
    return SV_SAMPLER_OK;
}

int64_t sv_seq_target_extent(const sv_batch *bt)
{
    if (bt->B <= 0)
        return 0;
    if (bt->layout == SV_LAYOUT_PACKED)
        return ((int64_t)bt->cu_num_drafts[bt->B] + bt->B) * bt->V;
    return (int64_t)(bt->B - 1) * bt->target_stride + (int64_t)(bt->K + 1) * bt->V;
}

int64_t sv_seq_draft_extent(const sv_batch *bt)
{
    if (bt->B <= 0)
        return 0;
    if (bt->layout == SV_LAYOUT_PACKED)
        return (int64_t)bt->cu_num_drafts[bt->B] * bt->V;
    return (int64_t)(bt->B - 1) * bt->draft_stride + (int64_t)bt->K * bt->V;
}

int64_t sv_seq_out_extent(const sv_batch *bt)
{
    if (bt->layout == SV_LAYOUT_PACKED)
        return bt->B > 0 ? (int64_t)bt->cu_num_drafts[bt->B] + bt->B : 0;
    return (int64_t)bt->B * (bt->K + 1);
}

sv_seq_rule sv_seq_own_rule(const sv_batch *bt, int32_t b)
{
    return (sv_seq_rule){sv_batch_temperature(bt, b), sv_batch_top_k(bt, b),
                         sv_batch_top_p(bt, b)};
}

/* Row k of the logits at `row0` made by `r` into row `slot` of st->rows;
 * EINVAL for a bad temperature. */
static int make_row(sv_seq_state *st, const sv_batch *bt, const void *row0, int32_t k,
                    sv_seq_rule r, size_t slot)
{
    if (!(r.temperature >= 0.0))
        return SV_SAMPLER_EINVAL;
    const size_t size = sv_input_value_bytes(bt->input), V = (size_t)bt->V;
    const void *from = (const char *)row0 + (size_t)k * V * size;
    struct sv_seq_made *made = &st->made[slot];
    if (made->from == from && made->rule.temperature == r.temperature &&
        made->rule.top_k == r.top_k && made->rule.top_p == r.top_p)
        return SV_SAMPLER_OK;
    sv_logits_row_probs(from, bt->input == SV_INPUT_LOGITS_BF16, bt->V, r.temperature, r.top_k,
                        r.top_p, st->rows + slot * V, st->work);
    *made = (struct sv_seq_made){from, r};
    return SV_SAMPLER_OK;
}

int sv_seq_verify_logits(void *state, const sv_batch *bt, sv_seq_rule_fn *rule)
{
    sv_seq_state *st = state;
    if (bt->input == SV_INPUT_PROBS)
        return sv_chain_verify(st->chain, bt, NULL);
    if (bt->input != SV_INPUT_LOGITS_F32 && bt->input != SV_INPUT_LOGITS_BF16)
        return SV_SAMPLER_EINVAL;
    if (bt->K > st->max_K || bt->V > st->max_V || !bt->target_logits)
        return SV_SAMPLER_EINVAL;
    sv_seq_batch_facts facts = {0, 0};
    for (int32_t b = 0; b < bt->B; b++) {
        const double T = sv_batch_temperature(bt, b);
        if (!(T >= 0.0))
            return SV_SAMPLER_EINVAL;
        facts.any_greedy |= T == 0.0;
        facts.any_random |= T > 0.0;
    }
    const size_t V = (size_t)bt->V, first_draft = (size_t)st->max_K + 1;
    for (size_t i = 0; i < 2 * (size_t)st->max_K + 1; i++)
        st->made[i].from = NULL; /* the caller may have rewritten its rows since the last call */
    for (int32_t b = 0; b < bt->B; b++) {
        sv_batch one;
        int rc = sv_seq_view(bt, b, &one);
        if (rc != SV_SAMPLER_OK)
            return rc;
        const int32_t d = one.K;
        for (int32_t k = 0; rc == SV_SAMPLER_OK && k <= d; k++)
            rc = make_row(st, bt, one.target_logits, k, rule(bt, b, 0, k, &facts), (size_t)k);
        for (int32_t k = 0; rc == SV_SAMPLER_OK && one.draft_logits && k < d; k++)
            rc = make_row(st, bt, one.draft_logits, k, rule(bt, b, 1, k, &facts),
                          first_draft + (size_t)k);
        if (rc != SV_SAMPLER_OK)
            return rc;
        one.target = st->rows;
        one.draft = one.draft_logits ? st->rows + first_draft * V : NULL;
        if ((rc = sv_chain_verify(st->chain, &one, NULL)) != SV_SAMPLER_OK)
            return rc;
    }
    return SV_SAMPLER_OK;
}
