/* test_broken.c: each broken variant's characteristic behaviour, and the three
 * correct controls (ref_race, ref_float, ref_layout), on tiny hand-made cases
 * through the sampler contract; plus the binary16 rounding and the registry.
 *
 * Everything runs at fixed seeds, so the program is deterministic. Where a
 * frequency is compared with an exact probability the tolerance is 6 binomial
 * standard deviations: about 2e-9 per comparison, under 1e-7 for the whole
 * program (fewer than 50 such comparisons), were the seed drawn afresh. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "sv_half.h"
#include "sv_philox.h"
#include "sv_registry.h"

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

static fixture fx;

/* K drafts x for every sequence; rows zero until set. */
static void setup(int32_t K, int32_t V, const int32_t *x)
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

static void set_p(int32_t k, const float *row)
{
    memcpy(fx.target + k * fx.V, row, (size_t)fx.V * sizeof *row);
}

static void set_q(int32_t k, const float *row)
{
    memcpy(fx.draft + k * fx.V, row, (size_t)fx.V * sizeof *row);
}

static int run(const sv_sampler *s, uint64_t first)
{
    void *state = NULL;
    sv_limits limits = {NSEQ, fx.K, fx.V};
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

static int32_t y(int32_t b, int32_t k)
{
    return fx.out[b * (fx.K + 1) + k];
}

static double frac_accepted(int32_t n)
{
    int32_t c = 0;
    for (int32_t b = 0; b < fx.B; b++)
        c += fx.accepted[b] == n;
    return (double)c / fx.B;
}

/* Fraction of the sequences with n accepted (n < 0: all) that emit `token` at k. */
static double frac_token(int32_t k, int32_t token, int32_t n)
{
    int32_t c = 0, m = 0;
    for (int32_t b = 0; b < fx.B; b++)
        if (n < 0 || fx.accepted[b] == n) {
            m++;
            c += y(b, k) == token;
        }
    return m ? (double)c / m : NAN;
}

static int32_t count_accepted(int32_t n)
{
    int32_t c = 0;
    for (int32_t b = 0; b < fx.B; b++)
        c += fx.accepted[b] == n;
    return c;
}

/* 6 binomial standard deviations for probability p over m draws. */
static double tol(double p, double m)
{
    return 6.0 * sqrt(p * (1.0 - p) / m) + 1e-12;
}

/* Checks a control on one case: with K = 1, p_1 = {.1 .2 .3 .4},
 * q_1 = {.4 .3 .2 .1}, drafts stratified from q_1, the bonus row
 * p_2 = {.7 .1 .1 .1}: y_1 ~ p_1, P(n = 1) = alpha = 0.6, y_2 ~ p_2. Then a
 * one-hot drafter with x = 3: y_1 ~ p_1 again (p(x) e_x + the rest). */
static void check_control(const sv_sampler *s)
{
    const float p1[4] = {0.1f, 0.2f, 0.3f, 0.4f}, q1[4] = {0.4f, 0.3f, 0.2f, 0.1f},
                p2[4] = {0.7f, 0.1f, 0.1f, 0.1f};
    int32_t x[1] = {0};
    setup(1, 4, x);
    set_p(0, p1);
    set_p(1, p2);
    set_q(0, q1);
    for (int32_t b = 0; b < NSEQ; b++) { /* x_b = q's inverse CDF at (b + 1/2) / NSEQ */
        double u = (b + 0.5) / NSEQ, c = 0.0;
        int32_t i = 0;
        while (i < 3 && u >= (c += q1[i]))
            i++;
        fx.drafts[b] = i;
    }
    CHECK(run(s, 0) == SV_SAMPLER_OK);
    for (int32_t i = 0; i < 4; i++)
        CHECK_NEAR(frac_token(0, i, -1), p1[i], tol(p1[i], NSEQ));
    CHECK_NEAR(frac_accepted(1), 0.6, tol(0.6, NSEQ));
    for (int32_t i = 0; i < 4; i++)
        CHECK_NEAR(frac_token(1, i, 1), p2[i], tol(p2[i], count_accepted(1)));
    for (int32_t b = 0; b < NSEQ; b++)
        if (fx.accepted[b] == 0)
            CHECK(y(b, 1) == -1);

    fx.use_draft = 0;
    for (int32_t b = 0; b < NSEQ; b++)
        fx.drafts[b] = 3;
    CHECK(run(s, 0) == SV_SAMPLER_OK);
    for (int32_t i = 0; i < 4; i++)
        CHECK_NEAR(frac_token(0, i, -1), p1[i], tol(p1[i], NSEQ));
    CHECK_NEAR(frac_accepted(1), 0.4, tol(0.4, NSEQ));
}

int main(void)
{
    /* ---- binary16 rounding (what float16_ratio and predict.c share) ---- */
    CHECK(sv_half_round(1e-8f) == 0.0f);
    CHECK(sv_half_round(6e-8f) == 5.9604645e-08f);          /* 2^-24, the least subnormal */
    CHECK(sv_half_round(1.0f / 3.0f) == 0.333251953125f);
    CHECK(isinf(sv_half_round(65520.0f)) && sv_half_round(65520.0f) > 0);
    CHECK(sv_half_round(65519.0f) == 65504.0f);             /* the largest half */
    CHECK(sv_half_round(2049.0f) == 2048.0f);               /* tie to even, down */
    CHECK(sv_half_round(2051.0f) == 2052.0f);               /* tie to even, up */
    CHECK(sv_half_round(ldexpf(1.0f, -25)) == 0.0f);        /* half of 2^-24: to even, 0 */
    CHECK(sv_half_round(3.0f * ldexpf(1.0f, -25)) == ldexpf(1.0f, -23));
    CHECK(sv_half_round(0.1f) == 0.0999755859375f);
    CHECK(sv_half_round(-1.0f / 3.0f) == -0.333251953125f);
    CHECK(sv_half_round(1.0f) == 1.0f && sv_half_round(0.0f) == 0.0f);
    feature("binary16 rounding: subnormals, ties to even, overflow");

    /* ---- the registry ---- */
    {
        static const char *const names[] = {
            "resample_from_p", "residual_unnormalized", "residual_swapped", "ratio_inverted",
            "no_chain_stop", "bonus_wrong_row", "residual_epsilon_floor", "uniform_reused",
            "draft_temperature_mismatch", "float16_ratio", "accept_zero_target",
            "counts_off_by_one", "shared_stream"};
        /* the CUDA samplers are built-ins too, and the GPU's broken variant
         * ends the broken list, where the build has CUDA */
#ifdef SV_HAVE_CUDA
        const char *builtin_names[] = {"ref",        "direct",     "ref_race",
                                       "ref_float",  "ref_layout", "ref_logits",
                                       "cuda_naive", "cuda_fused"};
        const size_t n_broken = 14;
#else
        const char *builtin_names[] = {"ref",        "direct",     "ref_race",
                                       "ref_float",  "ref_layout", "ref_logits"};
        const size_t n_broken = 13;
#endif
        const size_t n_builtin = sizeof builtin_names / sizeof builtin_names[0];
        CHECK(sv_registry_broken_count() == n_broken);
        CHECK(sv_registry_count() == n_builtin + n_broken);
        for (size_t i = 0; i < n_broken; i++) {
            const sv_sampler *s = sv_registry_broken_get(i);
            const int gpu = i == 13; /* cuda_fused_shared_uniform */
            CHECK(s && strcmp(s->name, gpu ? "cuda_fused_shared_uniform" : names[i]) == 0);
            CHECK(s && s->memspace == (gpu ? SV_MEM_CUDA : SV_MEM_HOST));
            CHECK(s && sv_registry_find(s->name) == s);
            CHECK(sv_registry_get(n_builtin + i) == s &&
                  strcmp(sv_registry_origin(n_builtin + i), "broken") == 0);
        }
        CHECK(sv_registry_broken_get(n_broken) == NULL);
        for (size_t i = 0; i < n_builtin; i++) {
            const sv_sampler *s = sv_registry_get(i);
            CHECK(strcmp(s->name, builtin_names[i]) == 0);
            CHECK(strcmp(sv_registry_origin(i), "built-in") == 0);
            CHECK(s->memspace == (strncmp(s->name, "cuda_", 5) == 0 ? SV_MEM_CUDA : SV_MEM_HOST));
        }
    }
    feature("registry: the built-ins (CUDA ones where built), then the broken variants in order");

    /* ---- the broken variants ---- */

    /* resample_from_p: p = {.4 .6 0}, q = {.5 0 .5}, x = 2 (p(x) = 0, always
     * rejected); the residual is token 1 alone, p itself gives token 0 40% */
    {
        int32_t x[1] = {2};
        setup(1, 3, x);
        const float p[3] = {0.4f, 0.6f, 0.0f}, q[3] = {0.5f, 0.0f, 0.5f};
        set_p(0, p);
        set_p(1, p);
        set_q(0, q);
        CHECK(run(&sv_sampler_ref, 0) == SV_SAMPLER_OK);
        CHECK(frac_token(0, 1, -1) == 1.0);
        CHECK(run(&sv_broken_resample_from_p, 0) == SV_SAMPLER_OK);
        CHECK(frac_accepted(0) == 1.0);
        CHECK_NEAR(frac_token(0, 0, -1), 0.4, tol(0.4, NSEQ));
        CHECK(frac_token(0, 2, -1) == 0.0);
    }
    feature("resample_from_p: emits a token with p > 0 but residual 0");

    /* residual_unnormalized: w = max(p - q, 0) = {.2 0 .3 0} (sum .5), x = 3
     * always rejected: token 0 with w_0 = .2 (ref: .4), the last positive
     * token 2 with .3 + (1 - .5) = .8 */
    {
        int32_t x[1] = {3};
        setup(1, 4, x);
        const float p[4] = {0.2f, 0.3f, 0.5f, 0.0f}, q[4] = {0.0f, 0.3f, 0.2f, 0.5f};
        set_p(0, p);
        set_p(1, p);
        set_q(0, q);
        CHECK(run(&sv_broken_residual_unnormalized, 0) == SV_SAMPLER_OK);
        CHECK(frac_accepted(0) == 1.0);
        CHECK_NEAR(frac_token(0, 0, -1), 0.2, tol(0.2, NSEQ));
        CHECK_NEAR(frac_token(0, 2, -1), 0.8, tol(0.8, NSEQ));
        CHECK(run(&sv_sampler_ref, 0) == SV_SAMPLER_OK);
        CHECK_NEAR(frac_token(0, 0, -1), 0.4, tol(0.4, NSEQ));
    }
    feature("residual_unnormalized: the last positive token absorbs 1 - sum w");

    /* residual_swapped: max(q - p, 0) = {0 0 .5} puts all residual mass on
     * token 2, which has p = 0 */
    {
        int32_t x[1] = {2};
        setup(1, 3, x);
        const float p[3] = {0.6f, 0.4f, 0.0f}, q[3] = {0.2f, 0.3f, 0.5f};
        set_p(0, p);
        set_p(1, p);
        set_q(0, q);
        CHECK(run(&sv_broken_residual_swapped, 0) == SV_SAMPLER_OK);
        CHECK(frac_accepted(0) == 1.0);
        CHECK(frac_token(0, 2, -1) == 1.0);
        CHECK(run(&sv_sampler_ref, 0) == SV_SAMPLER_OK);
        CHECK(frac_token(0, 2, -1) == 0.0);
        CHECK_NEAR(frac_token(0, 0, -1), 0.8, tol(0.8, NSEQ)); /* (.6 - .2) / .5 */
    }
    feature("residual_swapped: residual follows q - p onto a p = 0 token");

    /* ratio_inverted: p(x) = 0 < q(x) is always accepted; a one-hot drafter
     * (q = 1) accepts every draft, where ref accepts with p(x) = 0.1 */
    {
        int32_t x[1] = {0};
        setup(1, 2, x);
        const float p[2] = {0.0f, 1.0f}, q[2] = {0.5f, 0.5f};
        set_p(0, p);
        set_p(1, p);
        set_q(0, q);
        CHECK(run(&sv_broken_ratio_inverted, 0) == SV_SAMPLER_OK);
        CHECK(frac_accepted(1) == 1.0 && frac_token(0, 0, -1) == 1.0);
        const float p2[2] = {0.1f, 0.9f};
        set_p(0, p2);
        fx.use_draft = 0;
        CHECK(run(&sv_broken_ratio_inverted, 0) == SV_SAMPLER_OK);
        CHECK(frac_accepted(1) == 1.0);
        CHECK(run(&sv_sampler_ref, 0) == SV_SAMPLER_OK);
        CHECK_NEAR(frac_accepted(1), 0.1, tol(0.1, NSEQ));
    }
    feature("ratio_inverted: accepts p(x) = 0, one-hot drafts always");

    /* no_chain_stop: K = 3, x_1 has p = 0 (always rejected), x_2 = x_3 have
     * p/q = 2 (always pass): n = 2 every time (ref: 0), no -1 anywhere */
    {
        int32_t x[3] = {2, 0, 0};
        setup(3, 4, x);
        const float p[4] = {0.5f, 0.5f, 0.0f, 0.0f}, q[4] = {0.25f, 0.25f, 0.25f, 0.25f};
        for (int32_t k = 0; k < 4; k++)
            set_p(k, p);
        for (int32_t k = 0; k < 3; k++)
            set_q(k, q);
        CHECK(run(&sv_broken_no_chain_stop, 0) == SV_SAMPLER_OK);
        CHECK(frac_accepted(2) == 1.0);
        int ok = 1;
        for (int32_t b = 0; b < NSEQ; b++) {
            ok &= y(b, 0) == 0 || y(b, 0) == 1;
            ok &= y(b, 1) == 0 && y(b, 2) == 0;
            ok &= y(b, 3) == 0 || y(b, 3) == 1;
        }
        CHECK(ok);
        CHECK(run(&sv_sampler_ref, 0) == SV_SAMPLER_OK);
        CHECK(frac_accepted(0) == 1.0 && frac_token(1, -1, -1) == 1.0);
    }
    feature("no_chain_stop: judges past a rejection, writes no -1 padding");

    /* bonus_wrong_row: p = q, all pass; p_3 = e_2, but the bonus comes from
     * p_2 = {.2 .3 .5} */
    {
        int32_t x[2] = {0, 1};
        setup(2, 3, x);
        const float p[3] = {0.2f, 0.3f, 0.5f}, bonus[3] = {0.0f, 0.0f, 1.0f};
        set_p(0, p);
        set_p(1, p);
        set_p(2, bonus);
        set_q(0, p);
        set_q(1, p);
        CHECK(run(&sv_broken_bonus_wrong_row, 0) == SV_SAMPLER_OK);
        CHECK(frac_accepted(2) == 1.0);
        CHECK_NEAR(frac_token(2, 0, -1), 0.2, tol(0.2, NSEQ));
        CHECK_NEAR(frac_token(2, 1, -1), 0.3, tol(0.3, NSEQ));
        CHECK(run(&sv_sampler_ref, 0) == SV_SAMPLER_OK);
        CHECK(frac_token(2, 2, -1) == 1.0);
    }
    feature("bonus_wrong_row: the bonus follows p_K, not p_{K+1}");

    /* residual_epsilon_floor: an empty residual (q sums past 1, as in
     * test_ref) leaves only the floor: 64 tokens of 1e-6 each, so 61/64 of
     * the rejections emit a token with p = 0; ref falls back to p */
    {
        int32_t x[1] = {0};
        setup(1, 64, x);
        float p[64] = {0.2f, 0.3f, 0.5f}, q[64] = {0.3f, 0.3f, 0.5f};
        set_p(0, p);
        set_p(1, p);
        set_q(0, q);
        CHECK(run(&sv_broken_residual_epsilon_floor, 0) == SV_SAMPLER_OK);
        int32_t rejected = count_accepted(0), impossible = 0;
        for (int32_t b = 0; b < NSEQ; b++)
            impossible += fx.accepted[b] == 0 && y(b, 0) >= 3;
        CHECK_NEAR((double)rejected / NSEQ, 1.0 / 3.0, tol(1.0 / 3.0, NSEQ));
        CHECK_NEAR((double)impossible / rejected, 61.0 / 64.0, tol(61.0 / 64.0, rejected));
        CHECK(run(&sv_sampler_ref, 0) == SV_SAMPLER_OK);
        for (int32_t b = 0; b < NSEQ; b++)
            CHECK(y(b, 0) < 3);
    }
    feature("residual_epsilon_floor: the floor puts mass on p = 0 tokens");

    /* uniform_reused: p = {.5 .25 .25}, q = {.8 .1 .1}, x = 0: rejection
     * means u >= .625, so u * sum(w) = u * .3 >= .1875 > w_1 = .15: token 2
     * every time (ref: tokens 1 and 2 half each) */
    {
        int32_t x[1] = {0};
        setup(1, 3, x);
        const float p[3] = {0.5f, 0.25f, 0.25f}, q[3] = {0.8f, 0.1f, 0.1f};
        set_p(0, p);
        set_p(1, p);
        set_q(0, q);
        CHECK(run(&sv_broken_uniform_reused, 0) == SV_SAMPLER_OK);
        CHECK_NEAR(frac_accepted(0), 0.375, tol(0.375, NSEQ));
        CHECK(frac_token(0, 2, 0) == 1.0);
        CHECK(run(&sv_sampler_ref, 0) == SV_SAMPLER_OK);
        CHECK_NEAR(frac_token(0, 1, 0), 0.5, tol(0.5, count_accepted(0)));
    }
    feature("uniform_reused: the rejected uniform pins the residual's end");

    /* draft_temperature_mismatch: p = q = {.64 .36}: ref accepts all; with
     * q' = norm(sqrt q) = {.8 .6} / 1.4, x = 1 passes with .36 / (.6 / 1.4) = .84.
     * A one-hot drafter gives exactly ref's outputs. */
    {
        int32_t x[1] = {1};
        setup(1, 2, x);
        const float p[2] = {0.64f, 0.36f};
        set_p(0, p);
        set_p(1, p);
        set_q(0, p);
        CHECK(run(&sv_broken_draft_temperature_mismatch, 0) == SV_SAMPLER_OK);
        CHECK_NEAR(frac_accepted(1), 0.84, tol(0.84, NSEQ));
        CHECK(frac_token(0, 0, 0) == 1.0); /* residual max(p - q', 0) = token 0 only */
        CHECK(run(&sv_sampler_ref, 0) == SV_SAMPLER_OK);
        CHECK(frac_accepted(1) == 1.0);
        fx.use_draft = 0;
        CHECK(run(&sv_broken_draft_temperature_mismatch, 0) == SV_SAMPLER_OK);
        static int32_t out1[NSEQ * 2], acc1[NSEQ];
        memcpy(out1, fx.out, sizeof out1);
        memcpy(acc1, fx.accepted, sizeof acc1);
        CHECK(run(&sv_sampler_ref, 0) == SV_SAMPLER_OK);
        CHECK(memcmp(out1, fx.out, sizeof out1) == 0 && memcmp(acc1, fx.accepted, sizeof acc1) == 0);
    }
    feature("draft_temperature_mismatch: accepts with p/q', one-hot is ref");

    /* float16_ratio: p(x) = q(x) = 1e-8 flush to 0 in half: never accepted
     * (ref: always). p(x) = 1e-7, q(x) = 2e-7 round to 2 and 3 units of
     * 2^-24: accepted with h(2/3) = 0.66650390625 instead of 0.5. */
    {
        int32_t x[1] = {0};
        setup(1, 2, x);
        const float p[2] = {1e-8f, 1.0f - 1e-8f};
        set_p(0, p);
        set_p(1, p);
        set_q(0, p);
        CHECK(run(&sv_broken_float16_ratio, 0) == SV_SAMPLER_OK);
        CHECK(frac_accepted(0) == 1.0);
        CHECK(run(&sv_sampler_ref, 0) == SV_SAMPLER_OK);
        CHECK(frac_accepted(1) == 1.0);
        const float p2[2] = {1e-7f, 1.0f - 1e-7f}, q2[2] = {2e-7f, 1.0f - 2e-7f};
        set_p(0, p2);
        set_q(0, q2);
        CHECK(run(&sv_broken_float16_ratio, 0) == SV_SAMPLER_OK);
        CHECK_NEAR(frac_accepted(1), 0.66650390625, tol(0.6665, NSEQ));
        CHECK(run(&sv_sampler_ref, 0) == SV_SAMPLER_OK);
        CHECK_NEAR(frac_accepted(1), 0.5, tol(0.5, NSEQ));
    }
    feature("float16_ratio: tail probabilities flush or round in half");

    /* accept_zero_target: at seed 7, sequence 3314967, position 0, the first
     * ACCEPT word is below 256, so the float uniform is exactly 0 and a draft
     * with p(x) = 0 is accepted; ref rejects it there and everywhere */
    {
        const uint64_t index = 3314967;
        philox4x32_ctr_t r = sv_philox_block(7, index, 0, SV_PURPOSE_ACCEPT, 0);
        CHECK((r.v[0] >> 8) == 0);
        int32_t x[1] = {0};
        setup(1, 2, x);
        const float p[2] = {0.0f, 1.0f}, q[2] = {1.0f, 0.0f};
        set_p(0, p);
        set_p(1, p);
        set_q(0, q);
        CHECK(run(&sv_broken_accept_zero_target, index - 10) == SV_SAMPLER_OK);
        CHECK(fx.accepted[10] == 1 && y(10, 0) == 0);
        CHECK(count_accepted(1) == 1); /* only there */
        CHECK(run(&sv_sampler_ref, index - 10) == SV_SAMPLER_OK);
        CHECK(frac_accepted(0) == 1.0);
    }
    feature("accept_zero_target: u == 0 accepts p(x) = 0 at a known address");

    /* counts_off_by_one: p = q, all pass: tokens exactly ref's, n = K + 1 */
    {
        int32_t x[2] = {0, 1};
        setup(2, 3, x);
        const float p[3] = {0.2f, 0.3f, 0.5f};
        for (int32_t k = 0; k < 3; k++)
            set_p(k, p);
        set_q(0, p);
        set_q(1, p);
        CHECK(run(&sv_sampler_ref, 0) == SV_SAMPLER_OK);
        static int32_t out1[NSEQ * 3];
        memcpy(out1, fx.out, sizeof out1);
        CHECK(run(&sv_broken_counts_off_by_one, 0) == SV_SAMPLER_OK);
        CHECK(frac_accepted(3) == 1.0);
        CHECK(memcmp(out1, fx.out, sizeof out1) == 0);
    }
    feature("counts_off_by_one: reports K + 1 when p = q");

    /* shared_stream: identical drafts, so sequences 2m and 2m + 1 emit the
     * same; even sequences are ref's own; ref's pairs agree far less often */
    {
        int32_t x[2] = {0, 1};
        setup(2, 4, x);
        const float p[4] = {0.25f, 0.25f, 0.25f, 0.25f}, q[4] = {0.7f, 0.1f, 0.1f, 0.1f};
        for (int32_t k = 0; k < 3; k++)
            set_p(k, p);
        set_q(0, q);
        set_q(1, q);
        CHECK(run(&sv_broken_shared_stream, 1000) == SV_SAMPLER_OK);
        static int32_t out1[NSEQ * 3], acc1[NSEQ];
        memcpy(out1, fx.out, sizeof out1);
        memcpy(acc1, fx.accepted, sizeof acc1);
        int pairs_equal = 1;
        for (int32_t b = 0; b < NSEQ; b += 2)
            pairs_equal &= memcmp(out1 + b * 3, out1 + (b + 1) * 3, 3 * sizeof *out1) == 0 &&
                           acc1[b] == acc1[b + 1];
        CHECK(pairs_equal);
        CHECK(run(&sv_sampler_ref, 1000) == SV_SAMPLER_OK);
        int32_t same = 0;
        int evens = 1;
        for (int32_t b = 0; b < NSEQ; b += 2) {
            same += memcmp(fx.out + b * 3, fx.out + (b + 1) * 3, 3 * sizeof *fx.out) == 0;
            evens &= memcmp(fx.out + b * 3, out1 + b * 3, 3 * sizeof *out1) == 0;
        }
        CHECK(evens);
        CHECK((double)same / (NSEQ / 2) < 0.5);
    }
    feature("shared_stream: sequences 0 and 1 (2m, 2m+1) identical");

    /* ---- the correct controls ---- */

    check_control(&sv_sampler_ref_race);
    /* the race's addressing, recomputed here lane by lane: x = 3 one-hot,
     * p = {.1 .2 .3 .4}; after a rejection y = argmin -log(u_i) / w_i over
     * i != 3 with u_i = sv_race_uniform(seed, index, 0, i) */
    {
        const float p[4] = {0.1f, 0.2f, 0.3f, 0.4f};
        int32_t checked = 0;
        for (int32_t b = 0; b < 400; b++) {
            if (fx.accepted[b] != 0)
                continue;
            int32_t best = -1;
            double best_t = INFINITY;
            for (int32_t i = 0; i < 3; i++) {
                double t = -log(sv_race_uniform(7, (uint64_t)b, 0, (uint32_t)i)) / p[i];
                if (t < best_t) {
                    best_t = t;
                    best = i;
                }
            }
            CHECK(y(b, 0) == best);
            checked++;
        }
        CHECK(checked > 100);
    }
    feature("ref_race: exact probabilities; race addressing by token (sv_race_uniform)");

    /* ref_race skips the logarithm of tokens whose bound (1 - u) / w already
     * loses and draws its numbers by tiles of 64: the tokens must be the
     * plain race's, exactly. V = 200 (three tiles and a partial one), K = 1,
     * one tile of zero residual, rows from a fixed LCG. */
    {
        int32_t x[1] = {70}; /* q about twice p: rejected about half the time */
        setup(1, 200, x);
        float p0[200], q0[200], p1[200];
        uint32_t lcg = 12345;
        double sp0 = 0, sq0 = 0, sp1 = 0;
        for (int32_t i = 0; i < 200; i++) {
            lcg = lcg * 1664525u + 1013904223u;
            p0[i] = (float)(lcg >> 8) + 1.0f;
            lcg = lcg * 1664525u + 1013904223u;
            q0[i] = (float)(lcg >> 8) + 1.0f;
            lcg = lcg * 1664525u + 1013904223u;
            p1[i] = (float)(lcg >> 16) + 1.0f;
            if (i >= 64 && i < 128) /* a tile where q >= p: no residual weight */
                q0[i] = p0[i] * 2.0f;
            sp0 += p0[i], sq0 += q0[i], sp1 += p1[i];
        }
        for (int32_t i = 0; i < 200; i++) {
            p0[i] = (float)(p0[i] / sp0);
            q0[i] = (float)(q0[i] / sq0);
            p1[i] = (float)(p1[i] / sp1);
        }
        set_p(0, p0);
        set_q(0, q0);
        set_p(1, p1);
        CHECK(run(&sv_sampler_ref_race, 5000) == SV_SAMPLER_OK);
        int32_t mismatches = 0, rejected = 0, bonus = 0;
        for (int32_t b = 0; b < NSEQ; b++) {
            int32_t n = fx.accepted[b]; /* 0: residual of row 0; 1: bonus from row 1 */
            int32_t best = -1;
            double best_t = INFINITY;
            for (int32_t i = 0; i < 200; i++) {
                double w = n == 0 ? (double)p0[i] - (double)q0[i] : (double)p1[i];
                if (!(w > 0.0))
                    continue;
                double u = sv_race_uniform(7, 5000 + (uint64_t)b, (uint32_t)n, (uint32_t)i);
                double t = -log(u) / w;
                if (t < best_t) {
                    best_t = t;
                    best = i;
                }
            }
            mismatches += y(b, n) != best;
            rejected += n == 0;
            bonus += n == 1;
        }
        CHECK(mismatches == 0);
        CHECK(rejected > 1000 && bonus > 1000);
    }
    feature("ref_race: pruned, tiled race = plain race, token for token (V = 200)");

    check_control(&sv_sampler_ref_float);
    /* float CDF: weights scattered over 4 blocks of a 64-token row, drafts on
     * p = 0 tokens (never accepted), residual never on a zero weight */
    {
        int32_t x[1] = {5};
        setup(1, 64, x);
        float p[64] = {0}, q[64] = {0};
        p[0] = 0.25f; p[17] = 0.25f; p[33] = 0.25f; p[63] = 0.25f;
        q[5] = 0.5f; q[17] = 0.25f; q[40] = 0.25f; /* residual: 0, 33, 63 */
        set_p(0, p);
        set_p(1, p);
        set_q(0, q);
        CHECK(run(&sv_sampler_ref_float, 0) == SV_SAMPLER_OK);
        CHECK(frac_accepted(0) == 1.0);
        for (int32_t i = 0; i < 64; i++) {
            double expect = (i == 0 || i == 33 || i == 63) ? 1.0 / 3.0 : 0.0;
            if (expect == 0.0)
                CHECK(frac_token(0, i, -1) == 0.0);
            else
                CHECK_NEAR(frac_token(0, i, -1), expect, tol(expect, NSEQ));
        }
    }
    feature("ref_float: exact probabilities; float CDF never hits weight 0");

    check_control(&sv_sampler_ref_layout);
    /* the layout: draft k's test uses lane k of (seed ^ 0x5a5a..., index, 0,
     * ACCEPT); one-hot x = 3 with p(x) = .4 passes iff that u < .4 */
    {
        int all = 1;
        for (int32_t b = 0; b < NSEQ; b++) {
            double u = sv_philox_uniform(7 ^ 0x5a5a5a5a5a5a5a5aull, (uint64_t)b, 0,
                                         SV_PURPOSE_ACCEPT, 0);
            all &= (fx.accepted[b] == 1) == (u * 1.0 < (double)0.4f);
        }
        CHECK(all);
    }
    feature("ref_layout: exact probabilities; tests use the documented lanes");

    return check_exit();
}
