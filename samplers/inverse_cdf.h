/* inverse_cdf.h: one draw from non-negative weights by inverse CDF, in double. */
#ifndef SV_INVERSE_CDF_H
#define SV_INVERSE_CDF_H

#include <stdint.h>

/* The CDF is walked a block of tokens at a time: one pass sums the blocks,
 * the search skips whole blocks, then walks one. */
#define SV_CDF_BLOCK 16

/* Doubles of workspace sv_inverse_cdf needs for V tokens. */
static inline int32_t sv_inverse_cdf_workspace(int32_t V)
{
    return (V + SV_CDF_BLOCK - 1) / SV_CDF_BLOCK;
}

/* Draws a token from the weights w_i = max(p_i - q_i, 0), or w_i = p_i when q
 * is NULL, with token `skip` given weight 0 (skip = -1 skips none), using the
 * uniform u in (0, 1). Never returns a token of weight 0. Returns -1 when all
 * weights are 0 (an empty residual). */
int32_t sv_inverse_cdf(const float *p, const float *q, int32_t skip, int32_t V, double u,
                       double *workspace);

#endif
