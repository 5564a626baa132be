/* sv_philox.h: addressed random numbers, the same on CPU and GPU.
 *
 * Every random number is a pure function of (seed, sequence index, position,
 * purpose, lane), computed by Philox4x32-10 from Random123: the key is the
 * 64-bit seed, the counter is
 *     { index low 32, index high 32, purpose << 16 | position, lane / 2 }.
 * One Philox call gives 128 bits: two 52-bit uniforms (lanes 2j and 2j+1).
 * No running state means results do not depend on batch size, chunking,
 * thread count or device.
 */
#ifndef SV_PHILOX_H
#define SV_PHILOX_H

#include <stdint.h>
#include <string.h>
#include <Random123/philox.h>

#if defined(__CUDACC__)
#define SV_HD __host__ __device__ __forceinline__
#else
#define SV_HD static inline
#endif

/* A float's bits and back, on host and device (the race's bounds and the
 * logits mode's weights work on them). */
SV_HD uint32_t sv_float_bits(float f)
{
#if defined(__CUDA_ARCH__)
    return __float_as_uint(f);
#else
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return bits;
#endif
}

SV_HD float sv_bits_float(uint32_t bits)
{
#if defined(__CUDA_ARCH__)
    return __uint_as_float(bits);
#else
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
#endif
}

/* Who consumes a number. The harness drafts with SV_PURPOSE_DRAFT; samplers
 * use ACCEPT for the test of draft k and FINAL for the token after the last
 * accepted draft (residual or bonus). Distinct purposes never overlap. */
enum {
    SV_PURPOSE_DRAFT = 1,
    SV_PURPOSE_ACCEPT = 2,
    SV_PURPOSE_FINAL = 3,
    SV_PURPOSE_RACE_LOW = 4, /* the low words of the exponential race's uniforms */
    SV_PURPOSE_BONUS = 5     /* a bonus token the caller draws for the sampler (the
                              * Python samplers' "harness" bonus policy) */
};

/* The Philox counter of an address. */
SV_HD philox4x32_ctr_t sv_philox_counter(uint64_t index, uint32_t position, uint32_t purpose,
                                         uint32_t block)
{
    philox4x32_ctr_t ctr = {{(uint32_t)index, (uint32_t)(index >> 32),
                             (purpose << 16) | (position & 0xffffu), block}};
    return ctr;
}

/* The 128 raw bits at (seed, index, position, purpose, block). */
SV_HD philox4x32_ctr_t sv_philox_block(uint64_t seed, uint64_t index, uint32_t position,
                                       uint32_t purpose, uint32_t block)
{
    philox4x32_key_t key = {{(uint32_t)seed, (uint32_t)(seed >> 32)}};
    return philox4x32_R(10, sv_philox_counter(index, position, purpose, block), key);
}

/* A double in the open interval (0, 1) from 64 bits: 52 bits, centred in
 * their cell, so it is never exactly 0 or 1 (a 0 would accept p = 0). Not 53:
 * the centre of the top 53-bit cell, 1 - 2^-54, rounds to 1. */
SV_HD double sv_u01_double(uint32_t hi, uint32_t lo)
{
    uint64_t bits = (((uint64_t)hi << 32) | lo) >> 12;
    return ((double)bits + 0.5) * (1.0 / 4503599627370496.0); /* 2^-52 */
}

/* A float in (0, 1) from 32 bits: 23 bits, centred, never 0 or 1 (the top
 * 24-bit centre, 1 - 2^-25, would round to 1). */
SV_HD float sv_u01_float(uint32_t x)
{
    return ((float)(x >> 9) + 0.5f) * (1.0f / 8388608.0f); /* 2^-23 */
}

/* The uniform double at one address. */
SV_HD double sv_philox_uniform(uint64_t seed, uint64_t index, uint32_t position,
                               uint32_t purpose, uint32_t lane)
{
    philox4x32_ctr_t r = sv_philox_block(seed, index, position, purpose, lane >> 1);
    return (lane & 1u) ? sv_u01_double(r.v[2], r.v[3]) : sv_u01_double(r.v[0], r.v[1]);
}

/* The exponential race's numbers (ref_race, cuda_fused): token i's uniform
 * is sv_u01_double(top, low), top = word i mod 4 of the FINAL block i / 4,
 * low = word i mod 4 of the RACE_LOW block i / 4. One Philox call gives the
 * top words of four tokens, which is all the race's pruning looks at
 * (sv_race_bound.h); the low words are drawn only for the few tokens timed
 * exactly. So the race costs a quarter of a Philox call per token, not half. */
SV_HD philox4x32_ctr_t sv_race_tops(uint64_t seed, uint64_t index, uint32_t n, uint32_t quad)
{
    return sv_philox_block(seed, index, n, SV_PURPOSE_FINAL, quad);
}

SV_HD philox4x32_ctr_t sv_race_lows(uint64_t seed, uint64_t index, uint32_t n, uint32_t quad)
{
    return sv_philox_block(seed, index, n, SV_PURPOSE_RACE_LOW, quad);
}

/* Word j (0..3) of a block, by selects: an index that is not a constant
 * would put the block in a GPU thread's local memory. */
SV_HD uint32_t sv_philox_word(philox4x32_ctr_t r, uint32_t j)
{
    const uint32_t even = (j & 2u) ? r.v[2] : r.v[0], odd = (j & 2u) ? r.v[3] : r.v[1];
    return (j & 1u) ? odd : even;
}

/* Token i's race uniform, whole (the plain race, and tests). */
SV_HD double sv_race_uniform(uint64_t seed, uint64_t index, uint32_t n, uint32_t i)
{
    philox4x32_ctr_t top = sv_race_tops(seed, index, n, i >> 2);
    philox4x32_ctr_t low = sv_race_lows(seed, index, n, i >> 2);
    return sv_u01_double(sv_philox_word(top, i & 3u), sv_philox_word(low, i & 3u));
}

#endif /* SV_PHILOX_H */
