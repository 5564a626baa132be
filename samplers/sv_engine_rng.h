/* sv_engine_rng.h: the harness's uniforms mapped onto the grids the engines
 * draw on (public, installed beside sv_sampler.h, which includes it).
 *
 * The harness hands out doubles u on a 2^-52 grid in (0, 1) (sv_philox.h:
 * 52 bits, centred in their cell, never 0 or 1). Engines draw coarser
 * numbers, and some of their bugs live only on those coarser grids: a
 * torch.rand float32 coin is exactly 0 once in 2^24 draws (then "u <= p/q"
 * accepts a draft with p = 0), and CUDA's float32 exponential_ never
 * returns less than 2^-24 (an exponential race then under-samples the
 * tail). Each function here is a deterministic function of u, so a sampler
 * that uses it sees the engine's law at the harness's address, and
 * specverify.random gives the same numbers bit for bit in Python (the
 * exponentials through the same C library's log). The laws, with u
 * uniform:
 *
 *   sv_uniform_torch_f32     floor(u 2^24) 2^-24: the 2^-24 grid in [0, 1),
 *                            each point with probability 2^-24; 0 included
 *                            (torch.rand's float32: 24 random bits times 2^-24).
 *   sv_uniform_curand_f32    curand_uniform's float: the 32 bits
 *                            x = floor(u 2^32), made a float (rounded to 24
 *                            bits), times 2^-32 plus 2^-33, rounded once to
 *                            float: (0, 1], 1 with chance 2^-25, 0 never.
 *   sv_exponential_cuda_f32  torch's CUDA float32 exponential_: E = -log(v)
 *                            of that v in float, except that v >= 1 - 2^-24
 *                            gives E = 2^-24 (torch keeps log(v) from being 0).
 *                            So E >= 2^-24 always: E = 2^-24 with probability
 *                            383 2^-32, about 1.5 2^-24 (test_engine_rng), and
 *                            the next value is -log(1 - 2^-23), about 2^-23;
 *                            nothing lies below 2^-24 or between.
 *   sv_exponential_f64       the exact exponential -log(u) in double: > 0,
 *                            its least value -log(1 - 2^-53) about 1.1e-16.
 *
 * The same in Python: batch.uniforms(..., like="torch.float32"),
 * batch.exponentials(..., like="cuda.float32" or None). */
#ifndef SV_ENGINE_RNG_H
#define SV_ENGINE_RNG_H

#include <math.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define SV_ENGINE_FN static __host__ __device__ inline
#else
#define SV_ENGINE_FN static inline
#endif

/* torch.rand(dtype=torch.float32)'s law: the top 24 of u's 52 bits, times
 * 2^-24 (u 2^24 < 2^24, and the conversion truncates: floor). */
SV_ENGINE_FN float sv_uniform_torch_f32(double u)
{
    return (float)(uint32_t)(u * 16777216.0) * (1.0f / 16777216.0f);
}

/* curand_uniform's float law: (0, 1], from the top 32 of u's 52 bits. The
 * sum is exact in double (34 significant bits), so one rounding to float,
 * as the device's fused multiply-add does. */
SV_ENGINE_FN float sv_uniform_curand_f32(double u)
{
    const float x = (float)(uint32_t)(u * 4294967296.0);
    return (float)((double)x * (1.0 / 4294967296.0) + (1.0 / 8589934592.0));
}

/* CUDA's float32 exponential_ (rate 1): never below 2^-24. */
SV_ENGINE_FN float sv_exponential_cuda_f32(double u)
{
    const float v = sv_uniform_curand_f32(u);
    if (v >= 1.0f - 1.0f / 16777216.0f)
        return 1.0f / 16777216.0f;
    return (float)-log((double)v);
}

/* The exact exponential in double: -log(u) > 0. */
SV_ENGINE_FN double sv_exponential_f64(double u)
{
    return -log(u);
}

#endif /* SV_ENGINE_RNG_H */
