/* test_controls.c: the three correct controls (ref_race, ref_float,
 * ref_layout) on tiny hand-made cases through the sampler contract: exact
 * probabilities, the race's addressing and pruning, the float CDF, the
 * documented lanes. Fixed seeds; each frequency against its exact
 * probability within 6 binomial standard deviations (about 2e-9 each). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "row_fixture.h"
#include "sv_half.h"
#include "sv_philox.h"
#include "sv_registry.h"

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
