/* ref_logits.c: the CPU control of logits input: each row of logits made
 * into probabilities by logits_rows.c (a maximum, a radix-selected rank
 * threshold, one sum: cuda_fused's method), then ref_race on those rows.
 * Given the same seed it emits cuda_fused's tokens in logits mode, so the GPU
 * differential test compares against it; the harness verifies it against
 * distributions/logits.c, written apart. Probs input is ref_race itself.
 *
 * Rows given with stride 0 (one row set for the whole batch, as the harness
 * gives fixed cases) are converted once per call; otherwise once per
 * sequence. */
#include <stdlib.h>
#include "logits_rows.h"
#include "sv_registry.h"

typedef struct logits_state {
    void *race;         /* ref_race's state */
    float *rows;        /* [2K+1][V]: target rows, then draft rows */
    double *work;       /* 2 V doubles */
    int32_t max_K, max_V;
} logits_state;

static void logits_destroy(void *state)
{
    logits_state *s = state;
    if (!s)
        return;
    sv_sampler_ref_race.destroy(s->race);
    free(s->rows);
    free(s->work);
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
    int rc = s->rows && s->work ? sv_sampler_ref_race.init(&s->race, limits) : SV_SAMPLER_ENOMEM;
    if (rc != SV_SAMPLER_OK) {
        logits_destroy(s);
        *state = NULL;
    }
    return rc;
}

/* The K+1 target and K draft rows of sequence b, as probabilities in s->rows. */
static void convert(logits_state *s, const sv_batch *bt, int32_t b)
{
    const int bf16 = bt->input == SV_INPUT_LOGITS_BF16;
    const size_t size = sv_input_value_bytes(bt->input), V = (size_t)bt->V;
    const char *target = (const char *)bt->target_logits + (size_t)b * bt->target_stride * size;
    const char *draft =
        bt->draft_logits ? (const char *)bt->draft_logits + (size_t)b * bt->draft_stride * size
                         : NULL;
    for (int32_t k = 0; k <= bt->K; k++)
        sv_logits_row_probs(target + k * V * size, bf16, bt->V, bt->temperature, bt->top_k,
                            bt->top_p, s->rows + k * V, s->work);
    for (int32_t k = 0; draft && k < bt->K; k++)
        sv_logits_row_probs(draft + k * V * size, bf16, bt->V, bt->temperature, bt->top_k,
                            bt->top_p, s->rows + ((size_t)bt->K + 1 + k) * V, s->work);
}

static int logits_verify(void *state, const sv_batch *bt)
{
    logits_state *s = state;
    if (bt->input == SV_INPUT_PROBS)
        return sv_sampler_ref_race.verify(s->race, bt);
    if (bt->input != SV_INPUT_LOGITS_F32 && bt->input != SV_INPUT_LOGITS_BF16)
        return SV_SAMPLER_EINVAL;
    if (bt->K > s->max_K || bt->V > s->max_V || !bt->target_logits || !(bt->temperature >= 0.0))
        return SV_SAMPLER_EINVAL;
    const int32_t K = bt->K;
    const size_t V = (size_t)bt->V;
    const int shared = bt->target_stride == 0 && (!bt->draft_logits || bt->draft_stride == 0);
    sv_batch one = *bt; /* ref_race's view: probability rows, stride 0 */
    one.input = SV_INPUT_PROBS;
    one.target_logits = one.draft_logits = NULL;
    one.target = s->rows;
    one.draft = bt->draft_logits ? s->rows + ((size_t)K + 1) * V : NULL;
    one.target_stride = one.draft_stride = 0;
    if (shared) {
        convert(s, bt, 0);
        return sv_sampler_ref_race.verify(s->race, &one);
    }
    one.B = 1;
    for (int32_t b = 0; b < bt->B; b++) {
        convert(s, bt, b);
        one.draft_tokens = bt->draft_tokens + (size_t)b * K;
        one.first_index = bt->first_index + (uint64_t)b;
        one.out_tokens = bt->out_tokens + (size_t)b * (K + 1);
        one.out_accepted = bt->out_accepted + b;
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
    SV_INPUT_BIT(SV_INPUT_LOGITS_F32) | SV_INPUT_BIT(SV_INPUT_LOGITS_BF16), 0};
