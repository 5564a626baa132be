/* chain.c: the chain-sampler skeleton (see chain.h) and ref's steps as hooks. */
#include <stdatomic.h>
#include <stdlib.h>
#include "chain.h"
#include "inverse_cdf.h"
#include "sv_philox.h"

int sv_chain_init(void **state, const sv_limits *limits)
{
    size_t n_cdf = (size_t)sv_inverse_cdf_workspace(limits->max_V);
    sv_chain_state *st = malloc(sizeof *st + n_cdf * sizeof(double) +
                                (size_t)limits->max_V * sizeof(float));
    if (!st)
        return SV_SAMPLER_ENOMEM;
    st->cdf = (double *)(st + 1);
    st->row = (float *)(st->cdf + n_cdf);
    st->call = 0;
    *state = st;
    return SV_SAMPLER_OK;
}

void sv_chain_destroy(void *state)
{
    free(state);
}

double sv_chain_uniform(const sv_step *s, int32_t position, uint32_t purpose)
{
    return sv_philox_uniform(s->seed, s->index, (uint32_t)position, purpose, 0);
}

int sv_chain_accept(const sv_step *s, int32_t k, float p, float q)
{
    double u = sv_chain_uniform(s, k, SV_PURPOSE_ACCEPT);
    return u * (double)q < (double)p; /* min(1, p/q) without dividing */
}

double sv_chain_final_u(const sv_step *s, int32_t n)
{
    return sv_chain_uniform(s, n, SV_PURPOSE_FINAL);
}

int32_t sv_chain_draw_p(const sv_step *s, int32_t k, double u)
{
    return sv_inverse_cdf(sv_chain_p_row(s, k), NULL, -1, s->V, u, s->ws->cdf);
}

int32_t sv_chain_draw_or_p(const sv_step *s, int32_t n, const float *w, double u)
{
    int32_t t = sv_inverse_cdf(w, NULL, -1, s->V, u, s->ws->cdf);
    return t >= 0 ? t : sv_chain_draw_p(s, n, u);
}

int32_t sv_chain_residual(const sv_step *s, int32_t n, double u)
{
    const float *row = sv_chain_p_row(s, n);
    int32_t t = s->Q ? sv_inverse_cdf(row, s->Q + (int64_t)n * s->V, -1, s->V, u, s->ws->cdf)
                     : sv_inverse_cdf(row, NULL, s->x[n], s->V, u, s->ws->cdf);
    return t >= 0 ? t : sv_chain_draw_p(s, n, u); /* empty residual: p == q up to rounding */
}

int32_t sv_chain_bonus(const sv_step *s, double u)
{
    return sv_chain_draw_p(s, s->K, u);
}

/* Stop at the first rejection, then one final token, then -1 padding. */
static int32_t chain_sequence(const sv_step *s, const sv_chain_hooks *h)
{
    int (*accept)(const sv_step *, int32_t, float, float) = h->accept ? h->accept : sv_chain_accept;
    double (*final_u)(const sv_step *, int32_t) = h->final_u ? h->final_u : sv_chain_final_u;
    int32_t n = 0;
    while (n < s->K) {
        int32_t xn = s->x[n];
        float q = s->Q ? s->Q[(int64_t)n * s->V + xn] : 1.0f;
        if (!accept(s, n, sv_chain_p_row(s, n)[xn], q))
            break;
        s->y[n++] = xn;
    }
    double u = final_u(s, n);
    int32_t last = n < s->K ? (h->residual ? h->residual : sv_chain_residual)(s, n, u)
                            : (h->bonus ? h->bonus : sv_chain_bonus)(s, u);
    if (last < 0)
        return -1; /* an all-zero target row */
    s->y[n] = last;
    for (int32_t k = n + 1; k <= s->K; k++)
        s->y[k] = -1;
    return n;
}

int sv_chain_verify(void *state, const sv_batch *bt, const sv_chain_hooks *hooks)
{
    static const sv_chain_hooks ref_hooks;
    static atomic_uint_least64_t calls;
    const sv_chain_hooks *h = hooks ? hooks : &ref_hooks;
    ((sv_chain_state *)state)->call = atomic_fetch_add(&calls, 1) + 1;
    const int32_t V = bt->V;
    for (int32_t b = 0; b < bt->B; b++) {
        const int32_t K = sv_batch_num_drafts(bt, b);
        if (K < 0 || K > bt->K)
            return SV_SAMPLER_EINVAL;
        sv_step s = {bt, K, V, sv_batch_index(bt, b), sv_batch_seed(bt, b),
                     bt->target + sv_batch_target_offset(bt, b),
                     bt->draft ? bt->draft + sv_batch_draft_offset(bt, b) : NULL,
                     bt->draft_tokens + sv_batch_drafts_offset(bt, b),
                     bt->out_tokens + sv_batch_out_offset(bt, b), state};
        for (int32_t k = 0; k < K; k++)
            if (s.x[k] < 0 || s.x[k] >= V)
                return SV_SAMPLER_EINVAL;
        int32_t n = h->sequence ? h->sequence(&s) : chain_sequence(&s, h);
        if (n < 0)
            return SV_SAMPLER_EINVAL;
        bt->out_accepted[b] = n;
    }
    return SV_SAMPLER_OK;
}
