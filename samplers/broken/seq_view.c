/* seq_view.c: one sequence of a batch as a batch of its own (seq_view.h). */
#include <stdlib.h>
#include <string.h>
#include "logits_memo.h"
#include "one_sequence.h"
#include "seq_view.h"

/* What the memo of converted rows may hold (as ref_logits's): allocated at
 * the first logits call, so the probs variants never pay for it. */
#define MEMO_BYTES ((size_t)128 << 20)

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
    int rc = st->rows && st->work && st->out ? sv_chain_init(&st->chain, limits)
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
    sv_logits_memo_free(st->memo);
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

static int same_rule(sv_seq_rule a, sv_seq_rule b)
{
    return a.temperature == b.temperature && a.top_k == b.top_k && a.top_p == b.top_p;
}

/* Sequence b's probability rows ([d+1] target rows, then [d] draft rows)
 * into one.target and one.draft, row i made by rules[i], through the memo:
 * where one rule makes them all, the memo's rows themselves; else each
 * rule's rows copied from the memo into st->rows before the next lookup
 * (which may reuse that entry). */
static void make_rows(sv_seq_state *st, sv_batch *one, const sv_seq_rule *rules, int32_t n)
{
    const size_t V = (size_t)one->V;
    int uniform = 1;
    for (int32_t i = 1; i < n; i++)
        uniform &= same_rule(rules[i], rules[0]);
    const float *rows = st->rows;
    for (int32_t i = 0; i < n; i++) {
        int first = 1; /* rules[i] not met before i */
        for (int32_t j = 0; j < i && first; j++)
            first = !same_rule(rules[j], rules[i]);
        if (!first)
            continue;
        one->temperature = rules[i].temperature;
        one->top_k = rules[i].top_k;
        one->top_p = rules[i].top_p;
        const float *made = sv_logits_memo_rows(st->memo, one, st->work);
        if (uniform) {
            rows = made;
            break;
        }
        for (int32_t j = i; j < n; j++)
            if (same_rule(rules[j], rules[i]))
                memcpy(st->rows + (size_t)j * V, made + (size_t)j * V, V * sizeof *made);
    }
    one->target = rows;
    one->draft = one->draft_logits ? rows + ((size_t)one->K + 1) * V : NULL;
}

int sv_seq_verify_logits(void *state, const sv_batch *bt, sv_seq_rule_fn *rule)
{
    sv_seq_state *st = state;
    if (bt->input == SV_INPUT_PROBS)
        return sv_chain_verify(st->chain, bt, NULL);
    if (bt->input != SV_INPUT_LOGITS_F32 && bt->input != SV_INPUT_LOGITS_BF16)
        return SV_SAMPLER_EINVAL;
    if (bt->K > st->max_K || bt->K > SV_MAX_K || bt->V > st->max_V || !bt->target_logits)
        return SV_SAMPLER_EINVAL;
    if (!st->memo && !(st->memo = sv_logits_memo_alloc(st->max_K, st->max_V, MEMO_BYTES)))
        return SV_SAMPLER_ENOMEM;
    sv_seq_batch_facts facts = {0, 0};
    for (int32_t b = 0; b < bt->B; b++) {
        const double T = sv_batch_temperature(bt, b);
        if (!(T >= 0.0))
            return SV_SAMPLER_EINVAL;
        facts.any_greedy |= T == 0.0;
        facts.any_random |= T > 0.0;
    }
    sv_seq_rule rules[2 * SV_MAX_K + 1];
    for (int32_t b = 0; b < bt->B; b++) {
        sv_batch one;
        int rc = sv_seq_view(bt, b, &one);
        if (rc != SV_SAMPLER_OK)
            return rc;
        const int32_t d = one.K, n = one.draft_logits ? 2 * d + 1 : d + 1;
        for (int32_t i = 0; i < n; i++) { /* target rows 0..d, then draft rows */
            rules[i] = i <= d ? rule(bt, b, 0, i, &facts) : rule(bt, b, 1, i - d - 1, &facts);
            if (!(rules[i].temperature >= 0.0))
                return SV_SAMPLER_EINVAL;
        }
        make_rows(st, &one, rules, n);
        if ((rc = sv_chain_verify(st->chain, &one, NULL)) != SV_SAMPLER_OK)
            return rc;
    }
    return SV_SAMPLER_OK;
}
