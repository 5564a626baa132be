/* row_fixture.c: the broken variants' and controls' shared fixture
 * (row_fixture.h). */
#include <math.h>
#include <string.h>
#include "row_fixture.h"

fixture fx;

/* K drafts x for every sequence; rows zero until set. */
void setup(int32_t K, int32_t V, const int32_t *x)
{
    memset(&fx, 0, sizeof fx);
    fx.B = NSEQ;
    fx.K = K;
    fx.V = V;
    fx.seed = 7;
    fx.use_draft = 1;
    for (int32_t b = 0; b < NSEQ; b++)
        for (int32_t k = 0; k < K; k++)
            fx.drafts[b * K + k] = x[k];
}

void set_p(int32_t k, const float *row)
{
    memcpy(fx.target + k * fx.V, row, (size_t)fx.V * sizeof *row);
}

void set_q(int32_t k, const float *row)
{
    memcpy(fx.draft + k * fx.V, row, (size_t)fx.V * sizeof *row);
}

int run(const sv_sampler *s, uint64_t first)
{
    void *state = NULL;
    sv_limits limits = {.max_B = NSEQ, .max_K = fx.K, .max_V = fx.V};
    if (s->init(&state, &limits) != SV_SAMPLER_OK)
        return -1;
    for (int32_t i = 0; i < NSEQ * (fx.K + 1); i++)
        fx.out[i] = 12345;
    sv_batch bt = {.B = fx.B, .K = fx.K, .V = fx.V, .target = fx.target,
                   .draft = fx.use_draft ? fx.draft : NULL, .draft_tokens = fx.drafts,
                   .seed = fx.seed, .first_index = first, .out_tokens = fx.out,
                   .out_accepted = fx.accepted};
    int rc = s->verify(state, &bt);
    s->destroy(state);
    return rc;
}

int32_t y(int32_t b, int32_t k)
{
    return fx.out[b * (fx.K + 1) + k];
}

double frac_accepted(int32_t n)
{
    int32_t c = 0;
    for (int32_t b = 0; b < fx.B; b++)
        c += fx.accepted[b] == n;
    return (double)c / fx.B;
}

/* Fraction of the sequences with n accepted (n < 0: all) that emit `token` at k. */
double frac_token(int32_t k, int32_t token, int32_t n)
{
    int32_t c = 0, m = 0;
    for (int32_t b = 0; b < fx.B; b++)
        if (n < 0 || fx.accepted[b] == n) {
            m++;
            c += y(b, k) == token;
        }
    return m ? (double)c / m : NAN;
}

int32_t count_accepted(int32_t n)
{
    int32_t c = 0;
    for (int32_t b = 0; b < fx.B; b++)
        c += fx.accepted[b] == n;
    return c;
}

/* 6 binomial standard deviations for probability p over m draws. */
double tol(double p, double m)
{
    return 6.0 * sqrt(p * (1.0 - p) / m) + 1e-12;
}
