/* hand_batch.c: small v3 batches built by hand (hand_batch.h). */
#include <string.h>
#include "chain.h"
#include "hand_batch.h"
#include "logits_rows.h"

void hb_hand(ragged *r, int32_t B, int32_t V)
{
    memset(r, 0, sizeof *r);
    r->B = B;
    r->V = V;
    r->input = SV_INPUT_PROBS;
    for (int32_t b = 0; b < B; b++) {
        r->seeds[b] = 7;
        r->indices[b] = 100 + (uint64_t)b;
        r->seeded[b] = 1;
        r->T[b] = 1.0;
        r->top_p[b] = 1.0;
    }
}

void hb_done(ragged *r)
{
    r->K = 0;
    for (int32_t b = 0; b < r->B; b++)
        r->K = r->d[b] > r->K ? r->d[b] : r->K;
}

int hb_run(const sv_sampler *s, const ragged *r, int32_t layout, ragged_run *run)
{
    ragged_lay_out(r, layout, run);
    return ragged_call(s, run);
}

int32_t hb_y(const ragged *r, const ragged_run *run, int32_t b, int32_t k)
{
    return ragged_out(r, run, b)[k];
}

int hb_record_is(const ragged *r, const ragged_run *run, int32_t b, int32_t n,
                 const int32_t *y)
{
    if (run->accepted[b] != n)
        return 0;
    for (int32_t k = 0; k <= r->d[b]; k++)
        if (hb_y(r, run, b, k) != (k <= n ? y[k] : -1))
            return 0;
    return 1;
}

int hb_same_record(const ragged *r, const ragged_run *run, int32_t b, const ragged_run *other,
                   int32_t c)
{
    if (run->accepted[b] != other->accepted[c] || r->d[b] != r->d[c])
        return 0;
    return memcmp(ragged_out(r, run, b), ragged_out(r, other, c),
                  (size_t)(r->d[b] + 1) * sizeof(int32_t)) == 0;
}

int hb_same_outputs(const ragged_run *a, const ragged_run *b)
{
    return memcmp(a->out, b->out, sizeof a->out) == 0 &&
           memcmp(a->accepted, b->accepted, sizeof a->accepted) == 0;
}

void hb_one_hot(float *row, int32_t V, int32_t t)
{
    for (int32_t i = 0; i < V; i++)
        row[i] = i == t ? 1.0f : 0.0f;
}

void hb_uniform(float *row, int32_t V)
{
    for (int32_t i = 0; i < V; i++)
        row[i] = 1.0f / (float)V;
}

void hb_set_row(float *row, const float *w)
{
    float sum = 0.0f;
    for (int32_t i = 0; i < 8; i++)
        sum += w[i];
    for (int32_t i = 0; i < 8; i++)
        row[i] = w[i] / sum;
}

void hb_set_logits(float *row, const float *l, int32_t n, float rest)
{
    for (int32_t i = 0; i < 8; i++)
        row[i] = i < n ? l[i] : rest;
}

static int correct_verify(void *state, const sv_batch *bt)
{
    return sv_chain_verify(state, bt, NULL);
}

const sv_sampler hb_correct = {"correct_chain", "ref's chain", SV_MEM_HOST, sv_chain_init,
                               correct_verify, sv_chain_destroy, 0, SV_CHAIN_LAYOUTS,
                               SV_RULE_CHAIN};

hb_rule hb_own_rule(const ragged *r, int32_t b, int draft, int32_t k)
{
    (void)draft;
    (void)k;
    return (hb_rule){r->T[b], r->top_k[b], r->top_p[b]};
}

void hb_probs_from_logits(ragged *r, hb_rule_fn *by)
{
    double work[2 * RB_MAXV];
    float p[RB_MAXV];
    for (int32_t b = 0; b < r->B; b++) {
        for (int32_t k = 0; k <= 2 * r->d[b]; k++) { /* target rows 0..d, then draft rows */
            const int draft = k > r->d[b];
            const int32_t j = draft ? k - r->d[b] - 1 : k;
            float *row = draft ? r->q[b][j] : r->p[b][j];
            hb_rule u = by(r, b, draft, j);
            sv_logits_row_probs(row, 0, r->V, u.T, u.top_k, u.top_p, p, work);
            memcpy(row, p, (size_t)r->V * sizeof *p);
        }
    }
    r->input = SV_INPUT_PROBS;
}
