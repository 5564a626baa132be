/* engine_rng_dump.c: sv_engine_rng.h's numbers at a fixed set of harness
 * uniforms, one line each in hex floats ("u torch curand exp_cuda exp_f64"),
 * for test_random.py to hold specverify.random's engine grids to, bit for
 * bit: the grids' edges first, then Philox draws at a grid of addresses. */
#include <stdio.h>
#include "sv_philox.h"
#include "sv_sampler.h"

static void dump(double u)
{
    printf("%a %a %a %a %a\n", u, (double)sv_uniform_torch_f32(u),
           (double)sv_uniform_curand_f32(u), (double)sv_exponential_cuda_f32(u),
           sv_exponential_f64(u));
}

/* The harness's uniform whose 52 bits are `bits`. */
static double cell(uint64_t bits)
{
    const uint64_t word = bits << 12; /* sv_u01_double keeps the top 52 of 64 */
    return sv_u01_double((uint32_t)(word >> 32), (uint32_t)word);
}

int main(void)
{
    /* the ends of the harness's grid, torch's 0 cell and its neighbour, and
     * the 32-bit words around curand's 1 and the exponential's floor */
    static const uint64_t words[] = {0, 1, 383, 384, 511, 512, 0xffffff00ull, 0xfffffe80ull,
                                     0xfffffe81ull, 0xfffffe7full, 0xffffffffull};
    dump(cell(0));
    dump(cell((1ull << 52) - 1));
    dump(cell((1ull << 28) - 1));
    dump(cell(1ull << 28));
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        dump(cell(words[i] << 20));
        dump(cell(words[i] << 20 | 0xfffff));
    }
    for (uint64_t index = 0; index < 200; index++)
        for (uint32_t lane = 0; lane < 50; lane++)
            dump(sv_philox_uniform(0x243f6a8885a308d3ull, index, 1, SV_PURPOSE_FINAL, lane));
    return 0;
}
