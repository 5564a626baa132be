/* test_race_bound.c: the race's pruning bounds (kernels/sv_race_bound.h),
 * which ref_race and cuda_fused share: the floor and the ceiling bracket
 * every token's exact time, a pruned token is strictly slower than the
 * bound, and a race pruned as cuda_fused's warps prune (32 lanes of 4
 * tokens, one bound per warp) picks the plain race's winner.
 *
 * Deterministic: the uniforms are Philox words, the weights come from a
 * fixed LCG, so every run checks the same 4 million tokens. */
#include <math.h>
#include <stdint.h>
#include "check.h"
#include "sv_philox.h"
#include "sv_race_bound.h"

static uint64_t lcg_state = 0x9e3779b97f4a7c15u;

static uint32_t lcg32(void)
{
    lcg_state = lcg_state * 6364136223846793005u + 1442695040888963407u;
    return (uint32_t)(lcg_state >> 32);
}

/* A positive float over many binades, down to subnormals: mantissa and
 * exponent both drawn. */
static float wide_float(void)
{
    int e = -(int)(lcg32() % 150u); /* 2^0 .. 2^-149 */
    return ldexpf(1.0f + (float)(lcg32() >> 9) * 0x1p-23f, e - 1);
}

/* A probability-like float: usually near 1 / V for V up to 2^18, sometimes
 * anywhere (wide_float). */
static float row_float(void)
{
    if (lcg32() % 8u == 0)
        return wide_float();
    return (float)(lcg32() >> 8) * 0x1p-24f * 0x1p-17f + 0x1p-30f;
}

/* Token i's exact time, as the samplers compute it. */
static double exact_time(uint32_t hi, uint32_t lo, double w)
{
    return -log(sv_u01_double(hi, lo)) / w;
}

static void test_bracket(void)
{
    const int64_t n_pairs = 2000000;
    int64_t positive = 0, sign_mismatch = 0, floor_bad = 0, ceiling_bad = 0, ceiling_inf = 0;
    int64_t prune_bad = 0, pruned_half = 0, timed_half = 0;
    for (int64_t j = 0; j < n_pairs; j++) {
        philox4x32_ctr_t r = sv_philox_block(11, (uint64_t)j, 0, SV_PURPOSE_FINAL, 0);
        for (int odd = 0; odd < 2; odd++) {
            const uint32_t hi = odd ? r.v[2] : r.v[0], lo = odd ? r.v[3] : r.v[1];
            const float p = row_float(), q = (lcg32() & 1u) ? row_float() : 0.0f;
            const float wf = sv_race_weight_f(p, q);
            const double w = (double)p - (double)q;
            sign_mismatch += (wf > 0.0f) != (w > 0.0);
            if (!(w > 0.0))
                continue;
            positive++;
            const double u = sv_u01_double(hi, lo);
            floor_bad += !((double)sv_race_gap_floor(hi) <= 1.0 - u);
            const double t = exact_time(hi, lo, w);
            const float c = sv_race_time_ceiling(hi, wf);
            ceiling_bad += !((double)c >= t);
            ceiling_inf += isinf(c);
            /* bounds just around t, on both sides, and at t / 2 */
            const double scale[] = {1.0, 1.0 - 0x1p-40, 1.0 - 0x1p-22, 1.0 - 0x1p-12, 1.0 + 0x1p-22};
            for (size_t s = 0; s < sizeof scale / sizeof scale[0]; s++) {
                const float m = (float)(t * scale[s]);
                if (!sv_race_may_win(hi, wf, sv_race_reach(m)))
                    prune_bad += !(t > (double)m); /* pruned: must be strictly slower */
            }
            if (u > 0.25 && t < 0x1p120) { /* 2 (1 - u) > -log u there: t / 2 prunes */
                timed_half++;
                pruned_half += !sv_race_may_win(hi, wf, sv_race_reach((float)(t / 2.0)));
            }
        }
    }
    CHECK(positive > 1000000);
    CHECK(sign_mismatch == 0);
    CHECK(floor_bad == 0);
    CHECK(ceiling_bad == 0);
    CHECK(prune_bad == 0);
    /* the bounds are useful, not just safe: with u > 0.25 every bound of
     * t / 2 prunes but for floats too small to bound (the floor is exact to
     * 2^-23), and ceilings are finite but for subnormal-scale weights */
    CHECK((double)pruned_half / (double)timed_half > 0.99);
    CHECK((double)ceiling_inf / (double)positive < 0.35);
    feature("floor <= 1 - u, ceiling >= t, pruned tokens strictly slower (4M tokens)");

    /* the edges: u's top word all ones (1 - u < 2^-32: floor 0, never pruned),
     * all zeros (u < 2^-32: no finite ceiling), an infinite bound */
    CHECK(sv_race_gap_floor(0xffffffffu) == 0.0f);
    CHECK(sv_race_may_win(0xffffffffu, 1.0f, sv_race_reach(0x1p-100f)));
    CHECK(isinf(sv_race_time_ceiling(0u, 1.0f)));
    CHECK(sv_race_may_win(0u, 1.0f, sv_race_reach(INFINITY)));
    CHECK(sv_race_top23(0x80000000u) == 0.5f);
    CHECK(sv_race_weight_f(0.25f, 0.5f) == 0.0f && sv_race_weight_f(NAN, 0.0f) == 0.0f);
    CHECK(sv_race_weight_f(0x1p-148f, 0x1p-149f) == 0x1p-149f); /* subnormal, exact */
    feature("bounds at the edges: u near 0 and 1, infinite bound, subnormal weights");
}

/* One row's race as cuda_fused's race_four runs it: 32 lanes take 4 tokens
 * each per round; each lane drops tokens that cannot beat the warp's bound,
 * the survivors' ceilings lower the bound (a warp-wide min), and survivors
 * still not beaten get an exact time. Returns the winner and counts the
 * exact times. */
static int32_t warp_race(const float *p, const float *q, int32_t V, uint64_t index,
                         int64_t *timed)
{
    float bound = INFINITY;
    double best_t = INFINITY;
    int32_t best = -1;
    for (int32_t base = 0; base < V; base += 128) {
        float ceiling = INFINITY;
        int live[128] = {0};
        philox4x32_ctr_t top[32]; /* a lane's 4 tokens: one block of top words */
        for (int32_t k = 0; k < 128 && base + k < V; k++) {
            const int32_t i = base + k;
            if (k % 4 == 0)
                top[k / 4] = sv_race_tops(3, index, 1, (uint32_t)i / 4);
            const uint32_t hi = top[k / 4].v[k % 4];
            const float wf = sv_race_weight_f(p[i], q[i]);
            live[k] = wf > 0.0f && sv_race_may_win(hi, wf, sv_race_reach(bound));
            if (live[k])
                ceiling = fminf(ceiling, sv_race_time_ceiling(hi, wf));
        }
        bound = fminf(bound, ceiling);
        for (int32_t k = 0; k < 128 && base + k < V; k++) {
            const int32_t i = base + k;
            const uint32_t hi = top[k / 4].v[k % 4];
            if (!live[k] ||
                !sv_race_may_win(hi, sv_race_weight_f(p[i], q[i]), sv_race_reach(bound)))
                continue;
            (*timed)++;
            const uint32_t lo = sv_race_lows(3, index, 1, (uint32_t)i / 4).v[k % 4];
            const double t = exact_time(hi, lo, (double)p[i] - (double)q[i]);
            if (t < best_t || (t == best_t && i < best))
                best_t = t, best = i;
        }
    }
    return best;
}

static int32_t plain_race(const float *p, const float *q, int32_t V, uint64_t index)
{
    double best_t = INFINITY;
    int32_t best = -1;
    for (int32_t i = 0; i < V; i++) {
        const double w = (double)p[i] - (double)q[i];
        if (!(w > 0.0))
            continue;
        const double t = -log(sv_race_uniform(3, index, 1, (uint32_t)i)) / w;
        if (t < best_t)
            best_t = t, best = i;
    }
    return best;
}

static void test_warp_race(void)
{
    enum { V = 4099, ROWS = 600 }; /* V: a partial last round */
    static float p[V], q[V];
    int64_t mismatches = 0, timed = 0, weighted = 0;
    for (int32_t row = 0; row < ROWS; row++) {
        for (int32_t i = 0; i < V; i++) {
            switch (row % 3) {
            case 0: /* a residual: about half the tokens weigh */
                p[i] = row_float(), q[i] = row_float();
                break;
            case 1: /* a bonus row: every token weighs, one heavy token */
                p[i] = i == row % V ? 0.5f : row_float(), q[i] = 0.0f;
                break;
            default: /* weights over all binades, subnormal ones included */
                p[i] = wide_float(), q[i] = (lcg32() & 1u) ? wide_float() : 0.0f;
            }
            weighted += (double)p[i] - (double)q[i] > 0.0;
        }
        mismatches += warp_race(p, q, V, (uint64_t)row, &timed) != plain_race(p, q, V, (uint64_t)row);
    }
    CHECK(mismatches == 0);
    /* the point of it: only a few percent of the weighted tokens need a logarithm */
    CHECK((double)timed / (double)weighted < 0.1);
    printf("  %lld of %lld weighted tokens timed exactly (%.2f%%)\n", (long long)timed,
           (long long)weighted, 100.0 * (double)timed / (double)weighted);
    feature("a warp-pruned race = the plain race, 600 rows of V = 4099");
}

int main(void)
{
    test_bracket();
    test_warp_race();
    return check_exit();
}
