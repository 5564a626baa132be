/* sv_half.h: rounding a float to the nearest IEEE binary16 value, returned as
 * a float (round to nearest even; subnormals down to 2^-24; overflow to inf).
 * Written out rather than relying on _Float16, which not every C compiler has. */
#ifndef SV_HALF_H
#define SV_HALF_H

#include <math.h>

static inline float sv_half_round(float x)
{
    if (!isfinite(x) || x == 0.0f)
        return x;
    float a = fabsf(x);
    if (a >= 65520.0f) /* halfway between 65504 and the next power: rounds to inf */
        return copysignf(INFINITY, x);
    int e;
    frexpf(a, &e); /* a = m 2^e, m in [0.5, 1) */
    /* binary16 keeps 11 significant bits for normals (e >= -13); below, the
     * spacing is fixed at 2^-24 */
    int exp_of_ulp = (e - 1 >= -14 ? e - 1 : -14) - 10;
    float ulp = ldexpf(1.0f, exp_of_ulp);
    float r = nearbyintf(a / ulp) * ulp; /* a / ulp is exact: a power-of-two scale */
    return copysignf(r, x);
}

#endif
