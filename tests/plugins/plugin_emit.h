/* plugin_emit.h: the well-formed step the test plugins emit around their
 * misbehaviour: no draft accepted, y_1 = the first draft token, then -1. */
#ifndef SV_PLUGIN_EMIT_H
#define SV_PLUGIN_EMIT_H

#include "sv_sampler.h"

static inline void emit(const sv_batch *bt)
{
    for (int32_t b = 0; b < bt->B; b++) {
        int32_t *y = bt->out_tokens + (size_t)b * (size_t)(bt->K + 1);
        y[0] = bt->draft_tokens[(size_t)b * (size_t)bt->K];
        for (int32_t k = 1; k <= bt->K; k++)
            y[k] = -1;
        bt->out_accepted[b] = 0;
    }
}

#endif
