/* row_argmax.h: a float row's first-ranked token, the lower index on ties:
 * the greedy token of sv_sampler.h's ranking. Shared by the exact-match
 * rule, its variant's closed form (predict.c) and the bench's inputs. */
#ifndef SV_ROW_ARGMAX_H
#define SV_ROW_ARGMAX_H

#include <stdint.h>

static inline int32_t sv_row_argmax(const float *row, int32_t V)
{
    int32_t best = 0;
    for (int32_t i = 1; i < V; i++)
        if (row[i] > row[best])
            best = i;
    return best;
}

#endif
