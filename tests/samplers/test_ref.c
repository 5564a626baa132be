/* test_ref.c: the reference sampler's guards, one deterministic case each,
 * through the sampler contract; and the inverse CDF it draws with. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "inverse_cdf.h"
#include "sv_registry.h"

#define MAXV 64
#define MAXK 4
#define NSEQ 20000

/* One batch of NSEQ sequences sharing rows (stride 0) and drafts. */
typedef struct fixture {
    int32_t K, V;
    float target[(MAXK + 1) * MAXV], draft[MAXK * MAXV];
    int use_draft;
    int32_t drafts[NSEQ * MAXK];
    int32_t out[NSEQ * (MAXK + 1)], accepted[NSEQ];
} fixture;

static fixture fx;

static void setup(int32_t K, int32_t V, const int32_t *x)
{
    memset(&fx, 0, sizeof fx);
    fx.K = K;
    fx.V = V;
    fx.use_draft = 1;
    for (int32_t b = 0; b < NSEQ; b++)
        for (int32_t k = 0; k < K; k++)
            fx.drafts[b * K + k] = x[k];
}

static int run(const sv_sampler *s, uint64_t first)
{
    void *state = NULL;
    sv_limits limits = {.max_B = NSEQ, .max_K = fx.K, .max_V = fx.V};
    if (s->init(&state, &limits) != SV_SAMPLER_OK)
        return -1;
    for (int32_t i = 0; i < NSEQ * (fx.K + 1); i++)
        fx.out[i] = 12345;
    sv_batch bt = {.B = NSEQ, .K = fx.K, .V = fx.V, .target = fx.target,
                   .draft = fx.use_draft ? fx.draft : NULL, .draft_tokens = fx.drafts,
                   .seed = 7, .first_index = first, .out_tokens = fx.out,
                   .out_accepted = fx.accepted};
    int rc = s->verify(state, &bt);
    s->destroy(state);
    return rc;
}

/* Fraction of sequences with n accepted, and the tokens seen at position k. */
static double frac_accepted(int32_t n)
{
    int32_t c = 0;
    for (int32_t b = 0; b < NSEQ; b++)
        c += fx.accepted[b] == n;
    return (double)c / NSEQ;
}

static int token_seen(int32_t k, int32_t token)
{
    for (int32_t b = 0; b < NSEQ; b++)
        if (fx.out[b * (fx.K + 1) + k] == token)
            return 1;
    return 0;
}

static int format_ok(void)
{
    for (int32_t b = 0; b < NSEQ; b++) {
        int32_t n = fx.accepted[b];
        if (n < 0 || n > fx.K)
            return 0;
        for (int32_t k = 0; k <= fx.K; k++) {
            int32_t y = fx.out[b * (fx.K + 1) + k];
            if (k <= n ? (y < 0 || y >= fx.V) : y != -1)
                return 0;
            if (k < n && y != fx.drafts[b * fx.K + k])
                return 0;
        }
    }
    return 1;
}

int main(void)
{
    const sv_sampler *ref = &sv_sampler_ref;

    /* p(x) = 0 is never accepted, however large q(x) is */
    {
        int32_t x[1] = {0};
        setup(1, 4, x);
        float p[4] = {0.0f, 0.5f, 0.5f, 0.0f}, q[4] = {0.97f, 0.01f, 0.01f, 0.01f};
        memcpy(fx.target, p, sizeof p);
        memcpy(fx.target + 4, p, sizeof p);
        memcpy(fx.draft, q, sizeof q);
        CHECK(run(ref, 0) == SV_SAMPLER_OK);
        CHECK(frac_accepted(0) == 1.0);
        CHECK(!token_seen(0, 0) && !token_seen(0, 3));
        CHECK(token_seen(0, 1) && token_seen(0, 2));
        CHECK(format_ok());
    }
    feature("p(x) = 0: never accepted, residual avoids p = 0");

    /* q(x) = 0 with p(x) > 0: the ratio is infinite, always accept */
    {
        int32_t x[1] = {1};
        setup(1, 3, x);
        float p[3] = {0.2f, 0.3f, 0.5f}, q[3] = {0.5f, 0.0f, 0.5f};
        memcpy(fx.target, p, sizeof p);
        memcpy(fx.target + 3, p, sizeof p);
        memcpy(fx.draft, q, sizeof q);
        CHECK(run(ref, 0) == SV_SAMPLER_OK);
        CHECK(frac_accepted(1) == 1.0);
        CHECK(format_ok());
    }
    feature("q(x) = 0, p(x) > 0: always accepted");

    /* a draft outside [0, V) is refused even where the chain never reaches
     * it (draft 1 is rejected: p(x_1) = 0), by ref and by the chain samplers */
    {
        int32_t x[2] = {0, 3};
        setup(2, 3, x);
        float p[3] = {0.0f, 0.5f, 0.5f}, q[3] = {0.5f, 0.25f, 0.25f};
        for (int k = 0; k < 3; k++)
            memcpy(fx.target + 3 * k, p, sizeof p);
        memcpy(fx.draft, q, sizeof q);
        memcpy(fx.draft + 3, q, sizeof q);
        CHECK(run(ref, 0) == SV_SAMPLER_EINVAL);
        CHECK(run(&sv_sampler_ref_race, 0) == SV_SAMPLER_EINVAL);
        for (int32_t b = 0; b < NSEQ; b++) /* in range: the same batch passes */
            fx.drafts[b * 2 + 1] = 1;
        CHECK(run(ref, 0) == SV_SAMPLER_OK && frac_accepted(0) == 1.0);
    }
    feature("a draft outside [0, V) that the chain never reaches: EINVAL");

    /* p = q: every draft accepted; the bonus comes from p_{K+1} alone */
    {
        int32_t x[2] = {0, 1};
        setup(2, 3, x);
        float p[3] = {0.2f, 0.3f, 0.5f}, bonus[3] = {0.0f, 0.0f, 1.0f};
        memcpy(fx.target, p, sizeof p);
        memcpy(fx.target + 3, p, sizeof p);
        memcpy(fx.target + 6, bonus, sizeof bonus);
        memcpy(fx.draft, p, sizeof p);
        memcpy(fx.draft + 3, p, sizeof p);
        CHECK(run(ref, 0) == SV_SAMPLER_OK);
        CHECK(frac_accepted(2) == 1.0);
        CHECK(token_seen(2, 2) && !token_seen(2, 0) && !token_seen(2, 1));
        CHECK(format_ok());
    }
    feature("p = q: all accepted, bonus from p_{K+1}");

    /* an empty residual (q sums past 1 here, so max(p - q, 0) = 0 everywhere
     * while p(x) < q(x)): fall back to p, never fail, never emit p = 0 */
    {
        int32_t x[1] = {0};
        setup(1, 4, x);
        float p[4] = {0.2f, 0.3f, 0.5f, 0.0f}, q[4] = {0.3f, 0.3f, 0.5f, 0.0f};
        memcpy(fx.target, p, sizeof p);
        memcpy(fx.target + 4, p, sizeof p);
        memcpy(fx.draft, q, sizeof q);
        CHECK(run(ref, 0) == SV_SAMPLER_OK);
        double rejected = frac_accepted(0);
        CHECK(rejected > 0.30 && rejected < 0.37); /* 1 - 0.2/0.3 = 1/3 */
        CHECK(!token_seen(0, 3));
        CHECK(token_seen(0, 1) && token_seen(0, 2));
        CHECK(format_ok());
    }
    feature("empty residual: falls back to p");

    /* greedy: p one-hot at 2; the argmax draft is always accepted, any other
     * always rejected and replaced by the argmax */
    {
        int32_t x[2] = {2, 1};
        setup(2, 4, x);
        float p[4] = {0, 0, 1, 0}, q[4] = {0.1f, 0.4f, 0.4f, 0.1f};
        for (int k = 0; k < 3; k++)
            memcpy(fx.target + 4 * k, p, sizeof p);
        memcpy(fx.draft, q, sizeof q);
        memcpy(fx.draft + 4, q, sizeof q);
        CHECK(run(ref, 0) == SV_SAMPLER_OK);
        CHECK(frac_accepted(1) == 1.0);
        CHECK(token_seen(1, 2) && !token_seen(1, 0) && !token_seen(1, 1) && !token_seen(1, 3));
        CHECK(format_ok());
    }
    feature("greedy target: argmax accepted, others replaced by it");

    /* one-hot drafter (no draft probs): accept with p(x); the residual is p
     * without x */
    {
        int32_t x[1] = {0};
        setup(1, 4, x);
        fx.use_draft = 0;
        float p[4] = {0.5f, 0.5f, 0.0f, 0.0f};
        memcpy(fx.target, p, sizeof p);
        memcpy(fx.target + 4, p, sizeof p);
        CHECK(run(ref, 0) == SV_SAMPLER_OK);
        double accepted = frac_accepted(1);
        CHECK(accepted > 0.47 && accepted < 0.53);
        for (int32_t b = 0; b < NSEQ; b++)
            if (fx.accepted[b] == 0)
                CHECK(fx.out[b * 2] == 1);
        CHECK(format_ok());
    }
    feature("one-hot drafter: accept with p(x), residual is p without x");

    /* the same sequences split over two batches give the same outputs */
    {
        int32_t x[2] = {3, 5};
        setup(2, 8, x);
        for (int k = 0; k < 3; k++)
            for (int i = 0; i < 8; i++)
                fx.target[8 * k + i] = (float)(i + 1 + k) / (float)(36 + 8 * k);
        for (int k = 0; k < 2; k++)
            for (int i = 0; i < 8; i++)
                fx.draft[8 * k + i] = 0.125f;
        CHECK(run(ref, 1000) == SV_SAMPLER_OK);
        int32_t first_out[64 * 3], first_acc[64];
        memcpy(first_out, fx.out + 100 * 3, sizeof first_out);
        memcpy(first_acc, fx.accepted + 100, sizeof first_acc);
        CHECK(run(ref, 1100) == SV_SAMPLER_OK); /* sequence 1100 is now at b = 0 */
        CHECK(memcmp(first_out, fx.out, sizeof first_out) == 0);
        CHECK(memcmp(first_acc, fx.accepted, sizeof first_acc) == 0);
    }
    feature("outputs depend on the global index, not the batch");

    /* direct: one token from p_1, nothing accepted */
    {
        int32_t x[2] = {0, 0};
        setup(2, 3, x);
        float p[3] = {0.0f, 0.25f, 0.75f};
        for (int k = 0; k < 3; k++)
            memcpy(fx.target + 3 * k, p, sizeof p);
        memcpy(fx.draft, p, sizeof p);
        memcpy(fx.draft + 3, p, sizeof p);
        CHECK(run(&sv_sampler_direct, 0) == SV_SAMPLER_OK);
        CHECK(frac_accepted(0) == 1.0);
        CHECK(!token_seen(0, 0) && token_seen(0, 1) && token_seen(0, 2));
        CHECK(!token_seen(1, 1) && !token_seen(1, 2));
    }
    feature("direct: one token from p_1, accepted = 0");

    /* the inverse CDF: u at the very ends never lands on weight 0, across
     * block edges, with and without a skipped token */
    {
        float p[37] = {0}, q[37] = {0};
        double ws[8];
        p[0] = 0.25f; p[17] = 0.25f; p[20] = 0.25f; p[35] = 0.25f;
        q[17] = 0.25f; /* p - q = 0 at 17 */
        const double lo = 0.5 / 4503599627370496.0, hi = 1.0 - lo; /* sv_u01_double's ends */
        CHECK(sv_inverse_cdf(p, NULL, -1, 37, lo, ws) == 0);
        CHECK(sv_inverse_cdf(p, NULL, -1, 37, hi, ws) == 35);
        CHECK(sv_inverse_cdf(p, NULL, 0, 37, lo, ws) == 17);
        CHECK(sv_inverse_cdf(p, NULL, 35, 37, hi, ws) == 20);
        CHECK(sv_inverse_cdf(p, q, -1, 37, 0.34, ws) == 20); /* 17 has no residual */
        CHECK(sv_inverse_cdf(p, q, -1, 37, 0.32, ws) == 0);
        CHECK(sv_inverse_cdf(p, p, -1, 37, 0.5, ws) == -1);  /* empty residual */
        for (int i = 1; i < 1000; i++) {
            int32_t t = sv_inverse_cdf(p, q, 20, 37, i / 1000.0, ws);
            CHECK(t == 0 || t == 35);
        }
    }
    feature("inverse CDF: ends, blocks, skip, empty residual");

    return check_exit();
}
