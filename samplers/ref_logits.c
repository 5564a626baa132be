/* ref_logits.c: the CPU control of logits input: each row of logits made
 * into probabilities by logits_rows.c (a maximum, a radix-selected rank
 * threshold, one sum: cuda_fused's method), then ref_race on those rows.
 * Given the same seed it emits cuda_fused's tokens in logits mode, so the GPU
 * differential test compares against it; the harness verifies it against
 * distributions/logits.c, written apart. Probs input is ref_race itself.
 *
 * Rows given with stride 0 and one rule (one row set for the whole batch,
 * as the harness gives a version 2 fixed case) are converted once per call;
 * otherwise each sequence's rows by its own rule (contract v3: its own
 * temperature, top-k and top-p, d_b and rows in either layout), kept by
 * logits_memo.c for the next sequence with the same logits. */
#include <stdlib.h>
#include "logits_memo.h"
#include "logits_rows.h"
#include "one_sequence.h"
#include "sv_registry.h"

typedef struct logits_state {
    void *race;         /* ref_race's state */
    float *rows;        /* [2K+1][V]: target rows, then draft rows */
    double *work;       /* 2 V doubles */
    sv_logits_memo *memo;
    int32_t max_K, max_V;
} logits_state;

/* What the memo of converted rows may hold. */
#define MEMO_BYTES ((size_t)128 << 20)

static void logits_destroy(void *state)
{
    logits_state *s = state;
    if (!s)
        return;
    sv_sampler_ref_race.destroy(s->race);
    free(s->rows);
    free(s->work);
    sv_logits_memo_free(s->memo);
    free(s);
}

static int logits_init(void **state, const sv_limits *limits)
{
    logits_state *s = calloc(1, sizeof *s);
    *state = s;
    if (!s)
        return SV_SAMPLER_ENOMEM;
    s->max_K = limits->max_K;
    s->max_V = limits->max_V;
    s->rows = malloc((size_t)(2 * limits->max_K + 1) * (size_t)limits->max_V * sizeof *s->rows);
    s->work = malloc(2 * (size_t)limits->max_V * sizeof *s->work);
    s->memo = sv_logits_memo_alloc(limits->max_K, limits->max_V, MEMO_BYTES);
    int rc = s->rows && s->work && s->memo ? sv_sampler_ref_race.init(&s->race, limits) : SV_SAMPLER_ENOMEM;
    if (rc != SV_SAMPLER_OK) {
        logits_destroy(s);
        *state = NULL;
    }
    return rc;
}

/* Turns bt's logits into probabilities by its batch-wide rule: the K + 1
 * target and K draft rows at offset 0 (sequence 0's, or the one row set of
 * stride 0) into s->rows, and bt into ref_race's view of them. */
static int to_probs(logits_state *s, sv_batch *bt)
{
    if (!(bt->temperature >= 0.0))
        return SV_SAMPLER_EINVAL;
    const int bf16 = bt->input == SV_INPUT_LOGITS_BF16;
    const size_t size = sv_input_value_bytes(bt->input), V = (size_t)bt->V;
    const char *target = bt->target_logits, *draft = bt->draft_logits;
    float *drows = s->rows + ((size_t)bt->K + 1) * V;
    for (int32_t k = 0; k <= bt->K; k++)
        sv_logits_row_probs(target + k * V * size, bf16, bt->V, bt->temperature, bt->top_k,
                            bt->top_p, s->rows + k * V, s->work);
    for (int32_t k = 0; draft && k < bt->K; k++)
        sv_logits_row_probs(draft + k * V * size, bf16, bt->V, bt->temperature, bt->top_k,
                            bt->top_p, drows + k * V, s->work);
    bt->input = SV_INPUT_PROBS;
    bt->target = s->rows;
    bt->draft = draft ? drows : NULL;
    bt->target_logits = bt->draft_logits = NULL;
    bt->target_stride = bt->draft_stride = 0;
    return SV_SAMPLER_OK;
}

static int logits_verify(void *state, const sv_batch *bt)
{
    logits_state *s = state;
    if (bt->input == SV_INPUT_PROBS)
        return sv_sampler_ref_race.verify(s->race, bt);
    if (bt->input != SV_INPUT_LOGITS_F32 && bt->input != SV_INPUT_LOGITS_BF16)
        return SV_SAMPLER_EINVAL;
    if (bt->K > s->max_K || bt->V > s->max_V || !bt->target_logits)
        return SV_SAMPLER_EINVAL;
    /* one row set and one rule for the whole batch (a version 2 fixed case) */
    const int shared = bt->layout == SV_LAYOUT_PADDED && !bt->num_drafts && !bt->temperatures &&
                       !bt->top_ks && !bt->top_ps && bt->target_stride == 0 &&
                       (!bt->draft_logits || bt->draft_stride == 0);
    if (shared) {
        sv_batch all = *bt;
        int rc = to_probs(s, &all);
        return rc != SV_SAMPLER_OK ? rc : sv_sampler_ref_race.verify(s->race, &all);
    }
    for (int32_t b = 0; b < bt->B; b++) { /* each sequence its rows, drafts and rule */
        const int32_t d = sv_batch_num_drafts(bt, b);
        if (d < 0 || d > bt->K)
            return SV_SAMPLER_EINVAL;
        sv_batch one = sv_one_sequence(bt, b);
        if (!(one.temperature >= 0.0))
            return SV_SAMPLER_EINVAL;
        const float *rows = sv_logits_memo_rows(s->memo, &one, s->work);
        one.target = rows;
        one.draft = one.draft_logits ? rows + ((size_t)d + 1) * (size_t)bt->V : NULL;
        one.input = SV_INPUT_PROBS;
        one.target_logits = one.draft_logits = NULL;
        int rc = sv_sampler_ref_race.verify(s->race, &one);
        if (rc != SV_SAMPLER_OK)
            return rc;
    }
    return SV_SAMPLER_OK;
}

const sv_sampler sv_sampler_ref_logits = {
    "ref_logits",
    "control: logits input by rank threshold (cuda_fused's method), then ref_race",
    SV_MEM_HOST, logits_init, logits_verify, logits_destroy,
    SV_INPUT_BIT(SV_INPUT_LOGITS_F32) | SV_INPUT_BIT(SV_INPUT_LOGITS_BF16),
    SV_LAYOUT_BIT(SV_LAYOUT_PADDED) | SV_LAYOUT_BIT(SV_LAYOUT_PACKED), SV_RULE_CHAIN};
