/* chain.h: the chain-sampler skeleton with hooks, shared by the controls
 * (ref_race, ref_float, ref_layout) and the broken variants (samplers/broken/).
 *
 * The skeleton is ref's method: per sequence, test drafts k = 0, 1, ... until
 * the first rejection n, emit x_0..x_{n-1}, then one token from the residual
 * (n < K) or the bonus row (n = K), then -1 padding. A variant replaces only
 * the step it changes; a NULL hook is ref's behaviour (see chain.c). */
#ifndef SV_CHAIN_H
#define SV_CHAIN_H

#include "sv_sampler.h"

/* Per-instance state: the inverse-CDF workspace and a scratch row of V floats. */
typedef struct sv_chain_state {
    double *cdf;   /* sv_inverse_cdf_workspace(max_V) doubles */
    float *row;    /* max_V floats, for weights a variant computes */
    uint64_t call; /* the verify call running now, unique in the process (from 1): a key
                      for what a variant computes once per call from the const rows */
} sv_chain_state;

/* One sequence of a batch, as the hooks see it. */
typedef struct sv_step {
    const sv_batch *bt;
    int32_t K, V;        /* K: this sequence's number of drafts, d_b (contract v3) */
    uint64_t index;      /* global index of this sequence */
    uint64_t seed;       /* this sequence's seed */
    const float *P;      /* [K+1][V] target rows (row K: the bonus row) */
    const float *Q;      /* [K][V] draft rows, NULL for a one-hot drafter */
    const int32_t *x;    /* [K] draft tokens, all in [0, V) */
    int32_t *y;          /* [K+1] output slots: its own, in either layout */
    sv_chain_state *ws;
} sv_step;

typedef struct sv_chain_hooks {
    /* 1 if draft k is accepted; p = p_k(x_k), q = q_k(x_k) (1 for a one-hot drafter). */
    int (*accept)(const sv_step *s, int32_t k, float p, float q);
    /* The uniform of the final draw after n accepted drafts. */
    double (*final_u)(const sv_step *s, int32_t n);
    /* The token after a rejection at n < K, from uniform u; -1 on bad input. */
    int32_t (*residual)(const sv_step *s, int32_t n, double u);
    /* The token after all K drafts pass, from uniform u; -1 on bad input. */
    int32_t (*bonus)(const sv_step *s, double u);
    /* Replaces the whole sequence: writes y, returns n, or -1 on bad input. */
    int32_t (*sequence)(const sv_step *s);
} sv_chain_hooks;

int sv_chain_init(void **state, const sv_limits *limits);
void sv_chain_destroy(void *state);
/* Runs the skeleton over the batch, sequence by sequence in either layout
 * (sv_sampler.h); hooks may be NULL (then it is ref). */
int sv_chain_verify(void *state, const sv_batch *bt, const sv_chain_hooks *hooks);

/* ref's steps, for hooks that change only part of one. */
int sv_chain_accept(const sv_step *s, int32_t k, float p, float q);
double sv_chain_final_u(const sv_step *s, int32_t n);
int32_t sv_chain_residual(const sv_step *s, int32_t n, double u);
int32_t sv_chain_bonus(const sv_step *s, double u);

/* The uniform at (seed, index, position, purpose, lane 0). */
double sv_chain_uniform(const sv_step *s, int32_t position, uint32_t purpose);
/* A draw from target row k itself. */
int32_t sv_chain_draw_p(const sv_step *s, int32_t k, double u);
/* A draw from the weights w[0..V) (e.g. ws->row); from p_n when they are all 0. */
int32_t sv_chain_draw_or_p(const sv_step *s, int32_t n, const float *w, double u);

/* q_n(i), with a one-hot drafter's q_n = e_{x_n}; so max(p - q, 0) is the
 * residual weight in both cases (p <= 1 removes x_n from a one-hot residual). */
static inline float sv_chain_q(const sv_step *s, int32_t n, int32_t i)
{
    if (s->Q)
        return s->Q[(int64_t)n * s->V + i];
    return i == s->x[n] ? 1.0f : 0.0f;
}

static inline const float *sv_chain_p_row(const sv_step *s, int32_t k)
{
    return s->P + (int64_t)k * s->V;
}

/* A sampler value whose verify is the skeleton with `hooks`. */
#define SV_CHAIN_SAMPLER(var, name, description, hooks)                           \
    static int var##_verify(void *state, const sv_batch *bt)                        \
    {                                                                               \
        return sv_chain_verify(state, bt, &(hooks));                                \
    }                                                                               \
    const sv_sampler var = {name, description, SV_MEM_HOST, sv_chain_init,          \
                            var##_verify, sv_chain_destroy, 0, SV_CHAIN_LAYOUTS,    \
                            SV_RULE_CHAIN}

/* The layouts every chain sampler takes. */
#define SV_CHAIN_LAYOUTS (SV_LAYOUT_BIT(SV_LAYOUT_PADDED) | SV_LAYOUT_BIT(SV_LAYOUT_PACKED))

#endif
