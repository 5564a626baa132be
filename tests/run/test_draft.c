/* test_draft.c: the harness's own random numbers and drafting.
 *
 * The GSL generator over addressed Philox must give exactly the numbers of
 * sv_philox.h, and the drafter must draw x_k from q_k. The drafting checks
 * are chi-square tests with a fixed seed: each has a false-alarm rate of
 * 1e-4 (the threshold), and each is paired with the same counts tested
 * against a wrong row, which must be rejected at p < 1e-12 (the power). */
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_cdf.h>
#include "check.h"
#include "sv_philox.h"
#include "sv_base.h"
#include "sv_cases.h"
#include "sv_run.h"
#include "sv_sampler.h"
#include "sv_stats.h"

#define FALSE_ALARM 1e-4

static void test_philox_rng(void)
{
    gsl_rng *r = gsl_rng_alloc(sv_gsl_rng_philox);
    CHECK(r != NULL);
    CHECK(strcmp(gsl_rng_name(r), "sv-philox4x32-10") == 0);
    CHECK(gsl_rng_max(r) == 0xffffffffUL && gsl_rng_min(r) == 0);

    /* uniforms: lane after lane of one address, bit for bit */
    sv_gsl_philox_seek(r, 42, 123456789012ull, 3, SV_PURPOSE_DRAFT);
    int same = 1;
    for (uint32_t lane = 0; lane < 16; lane++)
        same &= gsl_rng_uniform(r) == sv_philox_uniform(42, 123456789012ull, 3,
                                                        SV_PURPOSE_DRAFT, lane);
    CHECK(same);
    /* seeking again restarts the address */
    sv_gsl_philox_seek(r, 42, 123456789012ull, 3, SV_PURPOSE_DRAFT);
    CHECK(gsl_rng_uniform(r) == sv_philox_uniform(42, 123456789012ull, 3, SV_PURPOSE_DRAFT, 0));

    /* raw integers: words 0 and 2 of successive blocks */
    sv_gsl_philox_seek(r, 7, 5, 0, SV_PURPOSE_ACCEPT);
    philox4x32_ctr_t b0 = sv_philox_block(7, 5, 0, SV_PURPOSE_ACCEPT, 0);
    philox4x32_ctr_t b1 = sv_philox_block(7, 5, 0, SV_PURPOSE_ACCEPT, 1);
    CHECK(gsl_rng_get(r) == b0.v[0]);
    CHECK(gsl_rng_get(r) == b0.v[2]);
    CHECK(gsl_rng_get(r) == b1.v[0]);
    feature("philox gsl_rng: the numbers of sv_philox.h at the sought address");

    /* 1e6 uniforms over many addresses: inside (0, 1), mean 1/2 and
     * variance 1/12 within 5 standard errors (false alarm ~6e-7 each) */
    const int n = 1000000;
    double s = 0.0, s2 = 0.0, lo = 1.0, hi = 0.0;
    for (int i = 0; i < n; i++) {
        sv_gsl_philox_seek(r, 2026, (uint64_t)i, 0, SV_PURPOSE_FINAL);
        double u = gsl_rng_uniform(r);
        s += u;
        s2 += u * u;
        lo = u < lo ? u : lo;
        hi = u > hi ? u : hi;
    }
    double mean = s / n, var = s2 / n - mean * mean;
    CHECK(lo > 0.0 && hi < 1.0);
    CHECK_NEAR(mean, 0.5, 5.0 * sqrt(1.0 / 12.0 / n));
    /* Var of the sample variance: (mu4 - sigma^4) / n = (1/80 - 1/144) / n */
    CHECK_NEAR(var, 1.0 / 12.0, 5.0 * sqrt(1.0 / 180.0 / n));
    feature("philox gsl_rng: uniforms in (0, 1) with mean 1/2 and variance 1/12");
    gsl_rng_free(r);
}

/* Pearson chi-square of counts against row q (bins with expected >= 5). */
static double chi2_p(const uint64_t *counts, const float *q, int32_t V, uint64_t N)
{
    double *p = malloc((size_t)V * sizeof *p);
    double sum = 0.0;
    for (int32_t i = 0; i < V; i++)
        sum += (p[i] = q[i]);
    for (int32_t i = 0; i < V; i++)
        p[i] /= sum;
    sv_pooled pooled;
    double pv = -1.0;
    if (sv_pool(p, counts, V, N, 5.0, &pooled) == 0) {
        pv = sv_pearson(&pooled).p;
        if (pooled.stray)
            pv = 0.0;
        sv_pooled_free(&pooled);
    }
    free(p);
    return pv;
}

static void test_drafter(const char *spec)
{
    sv_case *c = NULL;
    char err[512];
    CHECK(sv_case_from_spec(spec, &c, err, sizeof err) == 0);
    if (!c) {
        fprintf(stderr, "  %s\n", err);
        feature(spec);
        return;
    }
    sv_drafter *d = NULL;
    CHECK(sv_drafter_alloc(c, &d) == SV_OK);
    gsl_rng *r = gsl_rng_alloc(sv_gsl_rng_philox);
    const uint64_t N = 400000;
    uint64_t *counts = calloc((size_t)c->K * (size_t)c->V, sizeof *counts);
    int32_t tokens[SV_MAX_K], again[SV_MAX_K];
    int reproducible = 1;
    for (uint64_t i = 0; i < N; i++) {
        sv_drafter_draw(d, r, 99, i, tokens);
        for (int32_t k = 0; k < c->K; k++)
            counts[(size_t)k * c->V + tokens[k]]++;
        if (i % 1000 == 0) { /* the same address gives the same drafts */
            sv_drafter_draw(d, r, 99, i, again);
            reproducible &= memcmp(tokens, again, (size_t)c->K * sizeof *tokens) == 0;
        }
    }
    CHECK(reproducible);
    for (int32_t k = 0; k < c->K; k++) {
        const float *q = c->draft + (size_t)k * c->V;
        double p = chi2_p(counts + (size_t)k * c->V, q, c->V, N);
        /* power: the target row of the same position differs from q_k */
        double wrong = chi2_p(counts + (size_t)k * c->V, c->target + (size_t)k * c->V, c->V, N);
        printf("  %s draft %d: chi-square p = %.4f against q_k, %.3g against p_k\n", spec,
               k + 1, p, wrong);
        CHECK(p > FALSE_ALARM);
        CHECK(wrong < 1e-12);
    }
    free(counts);
    gsl_rng_free(r);
    sv_drafter_free(d);
    sv_case_free(c);
    char name[256];
    snprintf(name, sizeof name, "drafter: x_k ~ q_k on %s (400000 draws, chi-square)", spec);
    feature(name);
}

/* A drafting row with all its mass on one token gives that token, always. */
static void test_drafter_one_token(void)
{
    sv_case *c = sv_case_alloc(2, 8);
    snprintf(c->name, sizeof c->name, "one-token");
    c->draft[5] = 1.0f;         /* q_1 = delta at 5 */
    c->draft[8 + 0] = 1.0f;     /* q_2 = delta at 0 */
    for (int32_t i = 0; i < 3 * 8; i++)
        c->target[i] = 1.0f / 8.0f;
    sv_drafter *d = NULL;
    CHECK(sv_drafter_alloc(c, &d) == SV_OK);
    gsl_rng *r = gsl_rng_alloc(sv_gsl_rng_philox);
    int ok = 1;
    for (uint64_t i = 0; i < 10000; i++) {
        int32_t x[SV_MAX_K];
        sv_drafter_draw(d, r, 1, i, x);
        ok &= x[0] == 5 && x[1] == 0;
    }
    CHECK(ok);
    gsl_rng_free(r);
    sv_drafter_free(d);
    sv_case_free(c);
    feature("drafter: a one-token row always drafts that token");
}

int main(void)
{
    test_philox_rng();
    test_drafter("zipf:V=200,K=3");
    test_drafter("logits:V=1000,K=2");
    test_drafter_one_token();
    return check_exit();
}
