/* direct.c: a control that ignores the drafts and samples one token from p_1.
 *
 * Correct in distribution (y_1 ~ p_1, nothing else emitted) and useless in
 * speed (n = 0 always). The harness must pass its distribution checks and
 * flag it with the acceptance-length check.
 */
#include "sv_registry.h"
#include "inverse_cdf.h"
#include "sv_philox.h"
#include <stdlib.h>

static int direct_init(void **state, const sv_limits *limits)
{
    *state = malloc((size_t)sv_inverse_cdf_workspace(limits->max_V) * sizeof(double));
    return *state ? SV_SAMPLER_OK : SV_SAMPLER_ENOMEM;
}

static void direct_destroy(void *state)
{
    free(state);
}

/* Sequence b's first target row, its own seed and index, its own d_b + 1
 * output slots (sv_sampler.h's accessors: either layout, or version 2). */
static int direct_verify(void *state, const sv_batch *bt)
{
    for (int32_t b = 0; b < bt->B; b++) {
        const int32_t K = sv_batch_num_drafts(bt, b);
        if (K < 0 || K > bt->K)
            return SV_SAMPLER_EINVAL;
        const float *p1 = bt->target + sv_batch_target_offset(bt, b);
        int32_t *y = bt->out_tokens + sv_batch_out_offset(bt, b);
        double u = sv_philox_uniform(sv_batch_seed(bt, b), sv_batch_index(bt, b), 0,
                                     SV_PURPOSE_FINAL, 0);
        y[0] = sv_inverse_cdf(p1, NULL, -1, bt->V, u, state);
        if (y[0] < 0)
            return SV_SAMPLER_EINVAL;
        for (int32_t k = 1; k <= K; k++)
            y[k] = -1;
        bt->out_accepted[b] = 0;
    }
    return SV_SAMPLER_OK;
}

const sv_sampler sv_sampler_direct = {
    "direct", "control: ignores drafts, one token from p per step (correct, no speedup)",
    SV_MEM_HOST, direct_init, direct_verify, direct_destroy, 0,
    SV_LAYOUT_BIT(SV_LAYOUT_PADDED) | SV_LAYOUT_BIT(SV_LAYOUT_PACKED), SV_RULE_CHAIN};
