/* philox_dump.c: the harness's uniforms at a grid of addresses, one line
 * each ("seed index position purpose lane u"), for test_random.py to hold
 * specverify.random's numpy Philox to, bit for bit. */
#include <inttypes.h>
#include <stdio.h>
#include "sv_philox.h"

int main(void)
{
    static const uint64_t seeds[] = {0, 1, 0xffffffffffffffffull, 0x243f6a8885a308d3ull};
    static const uint64_t indices[] = {0, 1, 4095, 0x100000000ull, 0xfedcba9876543210ull};
    for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++)
        for (size_t i = 0; i < sizeof indices / sizeof indices[0]; i++)
            for (uint32_t position = 0; position < 3; position++)
                for (uint32_t purpose = 1; purpose <= 5; purpose += 2)
                    for (uint32_t lane = 0; lane < 4; lane++)
                        printf("%" PRIu64 " %" PRIu64 " %u %u %u %.17g\n", seeds[s], indices[i],
                               position, purpose, lane,
                               sv_philox_uniform(seeds[s], indices[i], position, purpose, lane));
    return 0;
}
