/* test_engine_rng.c: the harness's uniforms on the engines' grids
 * (samplers/sv_engine_rng.h): each grid, its ends, the chance of its
 * extreme values counted exactly over the 32-bit words, and the
 * exponentials' mean. test_random.py holds Python's to the same numbers. */
#include <math.h>
#include <stdint.h>
#include "check.h"
#include "sv_philox.h"
#include "sv_sampler.h"

static const double two24 = 16777216.0, two32 = 4294967296.0;

/* The harness's uniform whose 52 bits are `bits` (sv_u01_double's cells). */
static double cell(uint64_t bits)
{
    const uint64_t word = bits << 12; /* sv_u01_double keeps the top 52 of 64 */
    return sv_u01_double((uint32_t)(word >> 32), (uint32_t)word);
}

static void test_torch_uniform(void)
{
    /* the grid: the top 24 of the 52 bits, as accept_zero_target draws its coin */
    for (uint64_t index = 0; index < 20000; index++) {
        philox4x32_ctr_t r = sv_philox_block(3, index, 0, SV_PURPOSE_ACCEPT, 0);
        const double u = sv_philox_uniform(3, index, 0, SV_PURPOSE_ACCEPT, 0);
        const float t = sv_uniform_torch_f32(u);
        CHECK(t == (float)(r.v[0] >> 8) * (1.0f / 16777216.0f));
        CHECK(t >= 0.0f && t < 1.0f && (double)t * two24 == floor((double)t * two24));
        CHECK((double)t <= u && u - (double)t < 1.0 / two24);
    }
    /* the ends: 0 is reached by the 2^28 lowest of the 2^52 cells (chance
     * 2^-24), the top is 1 - 2^-24 */
    CHECK(sv_uniform_torch_f32(cell(0)) == 0.0f);
    CHECK(sv_uniform_torch_f32(cell((1ull << 28) - 1)) == 0.0f);
    CHECK(sv_uniform_torch_f32(cell(1ull << 28)) == 1.0f / 16777216.0f);
    CHECK(sv_uniform_torch_f32(cell((1ull << 52) - 1)) == 1.0f - 1.0f / 16777216.0f);
    /* a known address where the coin is 0 (test_broken's accept_zero_target) */
    CHECK(sv_uniform_torch_f32(sv_philox_uniform(7, 3314967, 0, SV_PURPOSE_ACCEPT, 0)) == 0.0f);
}

static void test_curand_uniform(void)
{
    /* (0, 1]: the lowest word gives 2^-33, the top words round to 1 */
    CHECK(sv_uniform_curand_f32(cell(0)) == (float)(1.0 / 8589934592.0));
    CHECK(sv_uniform_curand_f32(cell((1ull << 52) - 1)) == 1.0f);
    for (uint64_t index = 0; index < 20000; index++) {
        const double u = sv_philox_uniform(5, index, 1, SV_PURPOSE_FINAL, 0);
        const float v = sv_uniform_curand_f32(u);
        CHECK(v > 0.0f && v <= 1.0f && fabs((double)v - u) <= 1.0 / two24);
    }
}

/* How many of the 2^32 words x give E = 2^-24, and the least E above it. */
static void test_exponential_floor(void)
{
    const float floor24 = 1.0f / 16777216.0f;
    uint32_t at_floor = 0, at_one = 0;
    float above = INFINITY;
    for (uint64_t x = (1ull << 32) - 4096; x < (1ull << 32); x++)
        for (uint64_t low = 0; low < (1ull << 20); low += (1ull << 20) - 1) {
            const float e = sv_exponential_cuda_f32(cell(x << 20 | low));
            CHECK(e >= floor24);
            at_one += low == 0 && sv_uniform_curand_f32(cell(x << 20 | low)) == 1.0f;
            if (e == floor24)
                at_floor += low == 0;
            else if (e < above)
                above = e;
        }
    /* x >= 2^32 - 383 rounds to the float 2^32 - 256 or up (2^32 - 384 is a
     * tie that goes to the even 2^32 - 512): v >= 1 - 2^-24. So
     * P(E = 2^-24) = 383 2^-32, about 1.5 2^-24 */
    CHECK(at_floor == 383);
    CHECK(at_one == 128); /* x >= 2^32 - 128 rounds to 2^32: v = 1 with chance 2^-25 */
    CHECK(sv_exponential_cuda_f32(cell(((1ull << 32) - 383) << 20)) == floor24);
    CHECK(sv_exponential_cuda_f32(cell(((1ull << 32) - 384) << 20 | 0xfffff)) > floor24);
    /* the next value is -log(1 - 2^-23), about 2^-23: nothing in between */
    CHECK(above == (float)-log(1.0 - 1.0 / 8388608.0));
    CHECK_NEAR(above, 1.0 / 8388608.0, 1e-13); /* one float ulp above 2^-23 */
    /* the largest: the lowest word, v = 2^-33: 33 ln 2 */
    CHECK_NEAR(sv_exponential_cuda_f32(cell(0)), 33.0 * log(2.0), 1e-5);
    /* the exact exponential's least value: -log(1 - 2^-53) = 2^-53 */
    CHECK(sv_exponential_f64(cell((1ull << 52) - 1)) > 0.0);
    CHECK_NEAR(sv_exponential_f64(cell((1ull << 52) - 1)), 1.0 / 9007199254740992.0, 1e-30);
    (void)two32;
}

/* Both exponentials have mean 1 and variance 1: 2e5 draws, 6 standard errors. */
static void test_exponential_mean(void)
{
    const int n = 200000;
    double s32 = 0.0, s64 = 0.0;
    for (int i = 0; i < n; i++) {
        const double u = sv_philox_uniform(11, (uint64_t)i, 2, SV_PURPOSE_FINAL, 1);
        s32 += sv_exponential_cuda_f32(u);
        s64 += sv_exponential_f64(u);
    }
    CHECK_NEAR(s32 / n, 1.0, 6.0 / sqrt(n));
    CHECK_NEAR(s64 / n, 1.0, 6.0 / sqrt(n));
}

int main(void)
{
    test_torch_uniform();
    feature("torch.float32 uniform: 2^-24 grid in [0, 1), 0 reached, accept_zero_target's coin");
    test_curand_uniform();
    feature("curand float32 uniform: (0, 1], 1 reached");
    test_exponential_floor();
    feature("cuda.float32 exponential: floor 2^-24 with chance 383 2^-32, next -log(1 - 2^-23)");
    test_exponential_mean();
    feature("exponentials: mean 1");
    return check_exit();
}
