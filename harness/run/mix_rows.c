/* mix_rows.c: a mix's rows as the sampler reads them, laid out once per
 * slot in the padded or the packed layout (sv_sampler.h). Probability rows
 * are float; logits rows the case's rounded logits (float or bfloat16). The
 * padded layout's rows past a slot's drafts are NaN, so a sampler that reads
 * them draws garbage and fails. */
#include <math.h>
#include <string.h>
#include "sv_run.h"

/* A case's row as the sampler is given it: target row k, or draft row k. */
static const void *case_row(const sv_case *c, int draft, int32_t k, size_t size)
{
    const size_t V = (size_t)c->V;
    if (c->input != SV_INPUT_PROBS) /* logits: target rows, then draft rows */
        return (const char *)c->input_logits +
               ((draft ? (size_t)c->K + 1 : 0) + (size_t)k) * V * size;
    return (draft ? c->draft : c->target) + (size_t)k * V;
}

static void poison(void *row, size_t V, int32_t input)
{
    if (input == SV_INPUT_LOGITS_BF16) {
        uint16_t *r = row;
        for (size_t i = 0; i < V; i++)
            r[i] = 0x7fc0; /* a bfloat16 NaN */
    } else {
        float *r = row;
        for (size_t i = 0; i < V; i++)
            r[i] = NAN;
    }
}

void sv_mix_fill_rows(const sv_mix *m, int32_t layout, void *target_rows, void *draft_rows)
{
    const size_t size = sv_input_value_bytes(m->input), V = (size_t)m->V, row = V * size;
    const size_t K = (size_t)m->K;
    char *target = target_rows, *draft = draft_rows;
    for (int32_t s = 0; s < m->period; s++) {
        const sv_case *c = m->cases[m->case_of[s]];
        const size_t d = (size_t)m->drafts[s];
        const int packed = layout == SV_LAYOUT_PACKED;
        char *t = target + (packed ? ((size_t)m->cu[s] + (size_t)s) : (size_t)s * (K + 1)) * row;
        for (size_t k = 0; k <= d; k++) /* row d: the bonus row of a slot of d drafts */
            memcpy(t + k * row, case_row(c, 0, (int32_t)k, size), row);
        for (size_t k = d + 1; !packed && k <= K; k++)
            poison(t + k * row, V, m->input);
        if (!m->draft_probs || !draft)
            continue;
        char *q = draft + (packed ? (size_t)m->cu[s] : (size_t)s * K) * row;
        for (size_t k = 0; k < d; k++)
            memcpy(q + k * row, case_row(c, 1, (int32_t)k, size), row);
        for (size_t k = d; !packed && k < K; k++)
            poison(q + k * row, V, m->input);
    }
}
