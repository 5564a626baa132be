/* sv_softmax.h: the logits mode's softmax weights, the same bits on CPU and
 * GPU (samplers/logits_rows.c, the CPU control; kernels/cuda_fused_logits.cu).
 *
 * p_i = w_i / S over the kept tokens, w_i proportional to exp(l_i / T).
 * Taken in double, exp((l_i - l_max) / T) cost a double exponential per
 * logit read, which made the kernel that sums the rows compute-bound at 6x
 * the time of its reads. Here a weight is float arithmetic that every IEEE
 * machine rounds alike, in base 2:
 *     c = log2(e) / T = c_hi + c_lo                (two floats, once a batch)
 *     z_i = l_i c  as  z_hi = l_i c_hi rounded, z_lo = the rest (two FMAs),
 *           l_i first clamped so that |z_i| <= about 2^16
 *     n_i = rint(z_hi),  f_i = (z_hi - n_i) + z_lo   (|f_i| <= 0.502)
 *     m_i = 2^f_i by a fixed degree-6 polynomial in float FMAs
 *     w_i = m_i 2^(n_i - N),  N = the row's largest n_i  (w_i = 0 when
 *           n_i - N < -125, or when the logit is NaN or -inf: its n_i is
 *           SV_SOFTMAX_VOID, far below every N)
 *     S = the sum of the kept w_i in double,  R = 1 / S (0 if S = 0),
 *     p_i = w_i R in double, rounded to float.
 * w_i is 2^(l_i c - N) within 1.6 float ulps (the polynomial's 1.4, f's
 * rounding 0.2), so p_i is the softmax within about 2 ulps;
 * distributions/logits.c states the exact softmax that the harness tests
 * against, and tests/test_logits.c checks the two agree.
 *
 * Why base 2 and a running N: scaling by a power of two is exact, so a sum
 * taken against a running maximum N' < N becomes the sum against N exactly,
 * times 2^(N' - N). One pass sums a row split over blocks, and only the order
 * of the double additions differs from the CPU's (a few 2^-53 of S, which
 * moves a float p_i by rounding about once in a million tokens).
 */
#ifndef SV_SOFTMAX_H
#define SV_SOFTMAX_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include "sv_philox.h" /* SV_HD, sv_float_bits, sv_bits_float */

/* c = log2(e) / T as c_hi + c_lo, and the clamp of the logits. */
typedef struct sv_softmax_scale {
    float hi, lo;
    float lmax; /* |l| is clamped to this: |l c| <= about 2^16 */
} sv_softmax_scale;

/* For T > 0. */
SV_HD sv_softmax_scale sv_softmax_scale_of(double T)
{
    const double c = 1.4426950408889634 / T;
    sv_softmax_scale s;
    s.hi = (float)c;
    s.lo = (float)(c - (double)s.hi);
    const double lmax = 65536.0 / c;
    s.lmax = lmax < (double)FLT_MAX ? (float)lmax : FLT_MAX;
    return s;
}

/* Rounded float arithmetic that nvcc may not fuse into FMAs, and FMAs. */
#if defined(__CUDA_ARCH__)
#define SV_SOFTMAX_ADD __fadd_rn
#define SV_SOFTMAX_SUB __fsub_rn
#define SV_SOFTMAX_MUL __fmul_rn
#define SV_SOFTMAX_FMA __fmaf_rn
#else
#define SV_SOFTMAX_ADD(a, b) ((a) + (b))
#define SV_SOFTMAX_SUB(a, b) ((a) - (b))
#define SV_SOFTMAX_MUL(a, b) ((a) * (b))
#define SV_SOFTMAX_FMA fmaf
#endif

/* The largest exponent of a row with no weighing logit (below every n_i,
 * |n_i| <= about 2^16, and far enough from INT32_MIN that differences do
 * not overflow), and the exponent of a logit that weighs nothing. */
#define SV_SOFTMAX_NO_EXPONENT (-(1 << 30))
#define SV_SOFTMAX_VOID (SV_SOFTMAX_NO_EXPONENT - 1024)

/* 1 for a logit that weighs nothing whatever its row: NaN or -inf. */
SV_HD int sv_softmax_void(float l)
{
    return !(l > -INFINITY);
}

/* n_i (returned) and f_i of a logit l already within [-lmax, lmax]:
 * rint by the float 1.5 2^23, past which floats are the integers: z_hi +
 * 1.5 2^23 rounds z_hi to an integer (ties to even), whose value its low
 * bits hold. z_hi - n is exact (Sterbenz). No branch: a kernel's lanes
 * stay together. sv_softmax_split takes any logit: it clamps l to the
 * range first, and returns SV_SOFTMAX_VOID for a void one. */
SV_HD int32_t sv_softmax_split_in_range(float l, sv_softmax_scale s, float *f)
{
    const float z_hi = SV_SOFTMAX_MUL(l, s.hi);
    const float z_lo = SV_SOFTMAX_FMA(l, s.lo, SV_SOFTMAX_FMA(l, s.hi, -z_hi));
    const float t = SV_SOFTMAX_ADD(z_hi, 0x1.8p23f);
    *f = SV_SOFTMAX_ADD(SV_SOFTMAX_SUB(z_hi, SV_SOFTMAX_SUB(t, 0x1.8p23f)), z_lo);
    return (int32_t)(sv_float_bits(t) - 0x4b400000u);
}

SV_HD int32_t sv_softmax_split(float l, sv_softmax_scale s, float *f)
{
    const int is_void = sv_softmax_void(l);
    const int32_t n = sv_softmax_split_in_range(fminf(fmaxf(l, -s.lmax), s.lmax), s, f);
    return is_void ? SV_SOFTMAX_VOID : n;
}

/* sv_softmax_split of four logits, with one test for all four in place of
 * four clamps and four void tests: when fl(|l_0| + |l_1| + |l_2| + |l_3|)
 * <= lmax, no logit is void or clamped (a rounded sum of non-negative
 * floats is at least each term; NaN and inf fail the test), so the clamps
 * and void tests would change nothing. Else each logit is split alone.
 * The same n and f bits as sv_softmax_split, four times (test_logits). */
SV_HD void sv_softmax_split4(const float l[4], sv_softmax_scale s, int32_t n[4], float f[4])
{
    const float sum = SV_SOFTMAX_ADD(SV_SOFTMAX_ADD(fabsf(l[0]), fabsf(l[1])),
                                     SV_SOFTMAX_ADD(fabsf(l[2]), fabsf(l[3])));
    if (sum <= s.lmax) {
        for (int j = 0; j < 4; j++)
            n[j] = sv_softmax_split_in_range(l[j], s, &f[j]);
    } else {
        for (int j = 0; j < 4; j++)
            n[j] = sv_softmax_split(l[j], s, &f[j]);
    }
}

/* 2^f for |f| <= 0.502 (1.4 ulps): interpolation at the 7 Chebyshev nodes
 * of [-1/2, 1/2], coefficients rounded to float, Horner's rule in FMAs. */
SV_HD float sv_softmax_exp2_frac(float f)
{
    float r = 0x1.444p-13f;
    r = SV_SOFTMAX_FMA(r, f, 0x1.5f48cp-10f);
    r = SV_SOFTMAX_FMA(r, f, 0x1.3b2a1cp-7f);
    r = SV_SOFTMAX_FMA(r, f, 0x1.c6aeccp-5f);
    r = SV_SOFTMAX_FMA(r, f, 0x1.ebfbep-3f);
    r = SV_SOFTMAX_FMA(r, f, 0x1.62e43p-1f);
    return SV_SOFTMAX_FMA(r, f, 1.0f);
}

/* n_i: what the logit brings to its row's largest exponent N, which
 * starts at SV_SOFTMAX_NO_EXPONENT. */
SV_HD int32_t sv_softmax_exponent(float l, sv_softmax_scale s)
{
    float f;
    return sv_softmax_split(l, s, &f);
}

/* m 2^(n - e) for the logit whose n and f sv_softmax_split gave, against
 * exponent e >= n: m's exponent bits lowered by e - n (exact: m >= 0.7, so
 * for n - e >= -125 the result is a normal float); 0 below. */
SV_HD float sv_softmax_scaled(float f, int32_t n, int32_t e)
{
    const int32_t k = n - e;
    const uint32_t m = sv_float_bits(sv_softmax_exp2_frac(f));
    return k >= -125 ? sv_bits_float(m + ((uint32_t)k << 23)) : 0.0f;
}

/* w_i of logit l in a row whose largest exponent is N. */
SV_HD float sv_softmax_weight(float l, sv_softmax_scale s, int32_t N)
{
    float f;
    const int32_t n = sv_softmax_split(l, s, &f);
    return sv_softmax_scaled(f, n, N);
}

/* R = 1 / S; 0 for a row that weighs nothing. */
SV_HD double sv_softmax_reciprocal(double S)
{
    return S > 0.0 ? 1.0 / S : 0.0;
}

/* p_i = w_i R, one rounding to float (a product, nothing to fuse). */
SV_HD float sv_softmax_prob(float w, double R)
{
    return (float)((double)w * R);
}

#endif /* SV_SOFTMAX_H */
