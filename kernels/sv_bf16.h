/* sv_bf16.h: bfloat16 as raw uint16_t bits, on the host: a float's top 16
 * bits. One copy for the logits input, the recordings and the tests. */
#ifndef SV_BF16_H
#define SV_BF16_H

#include <stdint.h>
#include <string.h>

/* float -> bfloat16 bits, rounded to nearest, ties to even; NaN stays NaN
 * (a quiet bit is set, so rounding cannot carry it into infinity). */
static inline uint16_t sv_bf16_from_float(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 0x40u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

/* bfloat16 bits -> float, exactly. */
static inline float sv_bf16_to_float(uint16_t bits)
{
    uint32_t u = (uint32_t)bits << 16;
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

#endif
