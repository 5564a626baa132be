/* batch_fixture.c: hand-built contract v3 batches (batch_fixture.h). */
#include <math.h>
#include <string.h>
#include "batch_fixture.h"
#include "chain.h"
#include "logits_rows.h"

void bf_clear(bf_batch *f, int32_t B, int32_t V)
{
    memset(f, 0, sizeof *f);
    f->B = B;
    f->V = V;
    f->layout = SV_LAYOUT_PADDED;
    for (int32_t b = 0; b < B; b++) {
        f->s[b].seed = 7;
        f->s[b].index = 100 + (uint64_t)b;
        f->s[b].T = 1.0;
        f->s[b].top_p = 1.0;
    }
}

/* Where sequence b's target row k, draft row k, draft k and slot 0 go. */
static int64_t at_target(const bf_batch *f, int32_t K, int32_t b, int32_t k)
{
    return f->layout == SV_LAYOUT_PACKED ? ((int64_t)f->cu[b] + b + k) * f->V
                                         : ((int64_t)b * (K + 1) + k) * f->V;
}
static int64_t at_draft(const bf_batch *f, int32_t K, int32_t b, int32_t k)
{
    return f->layout == SV_LAYOUT_PACKED ? ((int64_t)f->cu[b] + k) * f->V
                                         : ((int64_t)b * K + k) * f->V;
}

void bf_lay_out(bf_batch *f)
{
    const int32_t B = f->B, V = f->V;
    int32_t K = 0;
    f->cu[0] = 0;
    for (int32_t b = 0; b < B; b++) {
        K = f->s[b].d > K ? f->s[b].d : K;
        f->num_drafts[b] = f->s[b].d;
        f->cu[b + 1] = f->cu[b] + f->s[b].d;
        f->seeds[b] = f->s[b].seed;
        f->indices[b] = f->s[b].index;
        f->seeded[b] = 1;
        f->temperatures[b] = f->s[b].T;
        f->top_ks[b] = f->s[b].top_k;
        f->top_ps[b] = f->s[b].top_p;
    }
    /* padding: NaN rows, -1 drafts (sv_sampler.h) */
    for (size_t i = 0; i < sizeof f->target / sizeof *f->target; i++)
        f->target[i] = NAN;
    for (size_t i = 0; i < sizeof f->draft / sizeof *f->draft; i++)
        f->draft[i] = NAN;
    for (size_t i = 0; i < sizeof f->drafts / sizeof *f->drafts; i++)
        f->drafts[i] = -1;
    for (size_t i = 0; i < sizeof f->out / sizeof *f->out; i++)
        f->out[i] = BF_UNTOUCHED;
    for (int32_t b = 0; b < B; b++) {
        const bf_seq *s = &f->s[b];
        f->accepted[b] = -2;
        for (int32_t k = 0; k <= s->d; k++)
            memcpy(f->target + at_target(f, K, b, k), s->p[k], (size_t)V * sizeof(float));
        for (int32_t k = 0; k < s->d; k++) {
            memcpy(f->draft + at_draft(f, K, b, k), s->q[k], (size_t)V * sizeof(float));
            f->drafts[at_draft(f, K, b, k) / V] = s->x[k];
        }
    }
    const int padded = f->layout == SV_LAYOUT_PADDED;
    const int64_t stride_t = padded && !f->broadcast ? (int64_t)(K + 1) * V : 0;
    const int64_t stride_d = padded && !f->broadcast ? (int64_t)K * V : 0;
    f->bt = (sv_batch){
        .B = B, .K = K, .V = V,
        .target = f->logits ? NULL : f->target, .target_stride = stride_t,
        .draft = f->logits ? NULL : f->draft, .draft_stride = stride_d,
        .draft_tokens = f->drafts,
        .seed = 7, .first_index = 100,
        .out_tokens = f->out, .out_accepted = f->accepted,
        .input = f->logits ? SV_INPUT_LOGITS_F32 : SV_INPUT_PROBS,
        .target_logits = f->logits ? f->target : NULL,
        .draft_logits = f->logits ? f->draft : NULL,
        .temperature = 1.0, .top_k = 0, .top_p = 1.0,
        .layout = f->layout,
        .num_drafts = f->num_drafts, .cu_num_drafts = f->cu,
        .indices = f->indices, .seeds = f->seeds, .seeded = f->seeded,
        .temperatures = f->temperatures, .top_ks = f->top_ks, .top_ps = f->top_ps,
    };
}

int bf_run(const sv_sampler *s, bf_batch *f)
{
    bf_lay_out(f);
    void *state = NULL;
    sv_limits limits = {BF_B, BF_K, BF_V};
    if (s->init(&state, &limits) != SV_SAMPLER_OK)
        return -1;
    int rc = s->verify(state, &f->bt);
    s->destroy(state);
    return rc;
}

int32_t bf_y(const bf_batch *f, int32_t b, int32_t k)
{
    return f->out[sv_batch_out_offset(&f->bt, b) + k];
}

int32_t bf_n(const bf_batch *f, int32_t b)
{
    return f->accepted[b];
}

int bf_same_record(const bf_batch *f, int32_t b, const bf_batch *g, int32_t c)
{
    if (bf_n(f, b) != bf_n(g, c) || f->s[b].d != g->s[c].d)
        return 0;
    for (int32_t k = 0; k <= f->s[b].d; k++)
        if (bf_y(f, b, k) != bf_y(g, c, k))
            return 0;
    return 1;
}

int bf_same_outputs(const bf_batch *f, const bf_batch *g)
{
    return f->B == g->B && memcmp(f->out, g->out, sizeof f->out) == 0 &&
           memcmp(f->accepted, g->accepted, sizeof f->accepted) == 0;
}

void bf_one_hot(float *row, int32_t V, int32_t t)
{
    for (int32_t i = 0; i < V; i++)
        row[i] = i == t ? 1.0f : 0.0f;
}

void bf_uniform(float *row, int32_t V)
{
    for (int32_t i = 0; i < V; i++)
        row[i] = 1.0f / (float)V;
}

bf_rule bf_own_rule(const bf_batch *f, int32_t b, int draft, int32_t k)
{
    (void)draft;
    (void)k;
    return (bf_rule){f->s[b].T, f->s[b].top_k, f->s[b].top_p};
}

void bf_probs_from_logits(bf_batch *f, bf_rule_fn *rule)
{
    double work[2 * BF_V];
    float p[BF_V];
    for (int32_t b = 0; b < f->B; b++) {
        bf_seq *s = &f->s[b];
        for (int32_t k = 0; k <= s->d + s->d; k++) {
            const int draft = k > s->d;
            float *row = draft ? s->q[k - s->d - 1] : s->p[k];
            bf_rule r = rule(f, b, draft, draft ? k - s->d - 1 : k);
            sv_logits_row_probs(row, 0, f->V, r.T, r.top_k, r.top_p, p, work);
            memcpy(row, p, (size_t)f->V * sizeof *p);
        }
    }
    f->logits = 0;
}

static int correct_verify(void *state, const sv_batch *bt)
{
    return sv_chain_verify(state, bt, NULL);
}

const sv_sampler bf_correct_chain = {"correct_chain", "ref's chain, both layouts",
                                     SV_MEM_HOST, sv_chain_init, correct_verify,
                                     sv_chain_destroy, 0, SV_CHAIN_LAYOUTS};
