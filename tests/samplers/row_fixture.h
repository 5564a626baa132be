/* row_fixture.h: one batch of sequences sharing hand-made rows, run through
 * a sampler's contract, and the frequencies of what it emitted: what the
 * tests of the broken variants and of the controls share. */
#ifndef SV_ROW_FIXTURE_H
#define SV_ROW_FIXTURE_H

#include <stdint.h>
#include "sv_sampler.h"

#define MAXV 200
#define MAXK 4
#define NSEQ 20000

/* One batch of up to NSEQ sequences sharing rows (stride 0). */
typedef struct fixture {
    int32_t B, K, V;
    uint64_t seed;
    float target[(MAXK + 1) * MAXV], draft[MAXK * MAXV];
    int use_draft;
    int32_t drafts[NSEQ * MAXK];
    int32_t out[NSEQ * (MAXK + 1)], accepted[NSEQ];
} fixture;

extern fixture fx;
/* K drafts x for every sequence; rows zero until set. */
void setup(int32_t K, int32_t V, const int32_t *x);
void set_p(int32_t k, const float *row);
void set_q(int32_t k, const float *row);
/* s over the batch, its first sequence `first`: its status (-1: init failed). */
int run(const sv_sampler *s, uint64_t first);
/* Sequence b's token at position k. */
int32_t y(int32_t b, int32_t k);
double frac_accepted(int32_t n);
/* Fraction of the sequences with n accepted (n < 0: all) that emit `token` at k. */
double frac_token(int32_t k, int32_t token, int32_t n);
int32_t count_accepted(int32_t n);
/* 6 binomial standard deviations for probability p over m draws. */
double tol(double p, double m);

#endif
