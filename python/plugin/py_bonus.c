/* py_bonus.c: the bonus token a caller draws for its sampler (the Python
 * samplers' "harness" and "none" bonus policies): for each sequence, one
 * draw from its bonus row p_{d_b+1}, by inverse CDF with the harness's
 * uniform at (seeds[b], indices[b], d_b + 1, SV_PURPOSE_BONUS). In a logits
 * mode the row is first made into p by the sequence's own rule, as the
 * checks make it (distributions/logits.c), so the token is distributed
 * exactly as the target's bonus row says. */
#include <stdlib.h>
#include "inverse_cdf.h"
#include "py_plugin.h"
#include "sv_bf16.h"
#include "sv_cases.h"
#include "sv_philox.h"

int sv_py_bonus(const sv_batch *bt, int32_t *out)
{
    const int32_t V = bt->V;
    double *ws = malloc((size_t)sv_inverse_cdf_workspace(V) * sizeof *ws);
    double *logits = bt->input != SV_INPUT_PROBS ? malloc((size_t)V * sizeof *logits) : NULL;
    float *p = bt->input != SV_INPUT_PROBS ? malloc((size_t)V * sizeof *p) : NULL;
    int rc = ws && (bt->input == SV_INPUT_PROBS || (logits && p)) ? 0 : -1;
    for (int32_t b = 0; rc == 0 && b < bt->B; b++) {
        const int32_t d = sv_batch_num_drafts(bt, b);
        const size_t at = (size_t)sv_batch_target_offset(bt, b) + (size_t)d * (size_t)V;
        const double u = sv_philox_uniform(sv_batch_seed(bt, b), sv_batch_index(bt, b),
                                           (uint32_t)d + 1u, SV_PURPOSE_BONUS, 0);
        const float *row = bt->target + (bt->target ? at : 0);
        if (bt->input != SV_INPUT_PROBS) {
            if (bt->input == SV_INPUT_LOGITS_BF16) {
                const uint16_t *x = (const uint16_t *)bt->target_logits + at;
                for (int32_t i = 0; i < V; i++)
                    logits[i] = (double)sv_bf16_to_float(x[i]);
            } else {
                const float *x = (const float *)bt->target_logits + at;
                for (int32_t i = 0; i < V; i++)
                    logits[i] = (double)x[i];
            }
            sv_sampling rule = {sv_batch_temperature(bt, b), sv_batch_top_k(bt, b),
                                sv_batch_top_p(bt, b)};
            if (sv_logits_to_probs(logits, V, &rule, p) != 0) {
                rc = -1;
                break;
            }
            row = p;
        }
        out[b] = sv_inverse_cdf(row, NULL, -1, V, u, ws);
    }
    free(ws);
    free(logits);
    free(p);
    return rc;
}
