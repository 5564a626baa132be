/* sv_race_bound.h: exact pruning of the exponential race, the same on CPU
 * and GPU (ref_race.c, sv_race.cuh).
 *
 * A token's race time is t = -log(u) / w with u = sv_u01_double(hi, lo)
 * and w = max(p - q, 0) in double. Most tokens cannot win, and telling so
 * should not cost a logarithm, a division and three conversions to double:
 * from hi alone (u's top 32 bits) and the float weight wf = max(p - q, 0)f,
 *     1 - u >= gap_floor(hi)                  so t >= gap_floor / w
 *     1 - u <= gap_floor(hi) + 2^-23, u >= top(hi)
 *                                             so t <= (1 - u) / (u w) <= ceiling
 * (-log u lies between 1 - u and (1 - u) / u). A token whose floor exceeds a
 * ceiling some other token reached cannot win, and needs no exact time.
 *
 * The margins: wf is w to 2^-24 (both come from the same two floats: wf > 0
 * exactly when w > 0), log() and t's division are accurate to a few 2^-53,
 * and the float products and quotient here to a few 2^-24 (under 2^-20 in all,
 * the device's 2-ulp division included); SV_RACE_MARGIN is
 * 2^-16. So a token that may_win rejects has an exact t strictly greater
 * than the bound, and the bound is at least the exact t of the token that
 * set it: pruning never changes the winner, ties included (a pruned token
 * is strictly slower). Products that underflow are harmless: the floor is 0
 * or at least 2^-23, far above any subnormal. tests/test_race_bound.c checks
 * both inequalities on millions of (hi, lo, w), subnormal weights included.
 */
#ifndef SV_RACE_BOUND_H
#define SV_RACE_BOUND_H

#include <math.h>
#include <stdint.h>
#include "sv_philox.h"

#define SV_RACE_MARGIN (1.0f + 0x1p-16f)

/* (x >> 9) * 2^-23 exactly: x's top 23 bits as a float in [0, 1). */
SV_HD float sv_race_top23(uint32_t x)
{
    /* 1.m in [1, 2), less 1: exact, a multiple of 2^-23 */
    return sv_bits_float(0x3f800000u | (x >> 9)) - 1.0f;
}

/* A float <= 1 - u: u < (hi + 1) 2^-32, so 1 - u > ~hi 2^-32 >= this. 0 or
 * at least 2^-23. */
SV_HD float sv_race_gap_floor(uint32_t hi)
{
    return sv_race_top23(~hi);
}

/* A float >= the exact race time of a token with top word hi and float
 * weight wf > 0; INFINITY when u or wf is too small to bound cheaply. */
SV_HD float sv_race_time_ceiling(uint32_t hi, float wf)
{
    const float gap = sv_race_gap_floor(hi) + 0x1p-23f; /* >= (2^32 - hi) 2^-32 >= 1 - u */
    const float d = sv_race_top23(hi) * wf;             /* <= u w, or 0 */
    if (!(d >= 0x1p-100f))
        return INFINITY;
#if defined(__CUDA_ARCH__)
    return __fdividef(gap, d) * SV_RACE_MARGIN; /* 2 ulp, well inside the margin */
#else
    return gap / d * SV_RACE_MARGIN;
#endif
}

/* What sv_race_may_win compares against for a bound (a ceiling another
 * token reached): the bound with the margin, once per bound rather than
 * once per token. */
SV_HD float sv_race_reach(float bound)
{
    return bound * SV_RACE_MARGIN;
}

/* 0 when the token (top word hi, float weight wf > 0) is certainly slower
 * than the bound whose sv_race_reach is `reach`: its time needs no
 * logarithm. An INFINITY bound reaches everything. */
SV_HD int sv_race_may_win(uint32_t hi, float wf, float reach)
{
    return !(sv_race_gap_floor(hi) > reach * wf);
}

/* The float weight max(p - q, 0): positive exactly when (double)p - (double)q
 * is (a float difference rounds, it never changes sign), and 0 for NaN. */
SV_HD float sv_race_weight_f(float p, float q)
{
    float w = p - q;
    return w > 0.0f ? w : 0.0f;
}

#endif /* SV_RACE_BOUND_H */
