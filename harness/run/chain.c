/* chain.c: context-dependent cases. A target and a draft Markov chain over V
 * states are spec-decoded as many independent streams; the emitted stream's
 * transition counts must follow the target chain (docs/design.md, fact 4).
 * Unlike fixed-row cases, every sequence gets its own rows (stride (K+1)V). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_cdf.h>
#include "sampler_host.h"
#include "sv_philox.h"

int sv_chain_unit(const sv_run_config *cfg, const sv_case *c, int32_t B, uint64_t steps,
                  uint64_t unit, sv_worker_buffers *w, sv_tally *t, atomic_uint_fast64_t *done)
{
    const int32_t K = c->K, V = c->V;
    const uint64_t streams = (uint64_t)c->chain->streams, first_stream = unit * (uint64_t)B;
    if (first_stream + (uint64_t)B > streams)
        B = (int32_t)(streams - first_stream);
    const size_t tstride = (size_t)(K + 1) * V, dstride = (size_t)K * V;
    for (int32_t b = 0; b < B; b++)
        w->states[b] = 0; /* every stream starts in state 0 */

    for (uint64_t step = 0; step < steps; step++) {
        /* stream s at step t is sequence t * streams + s: unique whatever the
         * chunking, and consecutive across a chunk, so one call covers it */
        const uint64_t first = step * streams + first_stream;
        for (int32_t b = 0; b < B; b++) {
            int32_t from = w->states[b], *x = w->drafts + (size_t)b * K;
            for (int32_t k = 0; k < K; k++) {
                double u = sv_philox_uniform(cfg->seed, first + (uint64_t)b, (uint32_t)k,
                                             SV_PURPOSE_DRAFT, 0);
                const double *cum = c->chain->Qcum + (size_t)from * V;
                x[k] = sv_cum_search(cum, V, u * cum[V - 1]);
                from = x[k];
            }
            sv_chain_step_rows(c, w->states[b], x, w->rows_target + b * tstride,
                               w->rows_draft + b * dstride);
        }
        sv_batch bt = {
            .B = B, .K = K, .V = V,
            .target = w->rows_target, .target_stride = (int64_t)tstride,
            .draft = c->draft_probs_given ? w->rows_draft : NULL, .draft_stride = (int64_t)dstride,
            .draft_tokens = w->drafts,
            .seed = cfg->seed, .first_index = first,
            .stream = NULL,
        };
        sv_batch_uniform_v3(&bt, w, cfg);
        int rc = sv_host_verify(w->host, w->slot, &bt, t);
        if (rc != SV_SAMPLER_OK)
            return rc;
        for (int32_t b = 0; b < B; b++) {
            uint64_t index = first + (uint64_t)b;
            const int32_t *y = bt.out_tokens + (size_t)b * (K + 1);
            int32_t n = bt.out_accepted[b];
            const sv_request who = {index, b, cfg->seed};
            if (!sv_check_sequence(t, K, V, w->rows_target + b * tstride, &who,
                                   w->drafts + (size_t)b * K, y, n)) {
                w->states[b] = 0; /* the stream is broken; the case fails anyway */
                continue;
            }
            /* the chance draft 1 had, from the rows the sampler saw */
            const int32_t x1 = w->drafts[(size_t)b * K];
            const double p1 = w->rows_target[b * tstride + (size_t)x1];
            const double q1 = c->draft_probs_given ? w->rows_draft[b * dstride + (size_t)x1] : 1.0;
            const double a = q1 > 0.0 ? fmin(1.0, p1 / q1) : 1.0;
            t->first_accepted += n >= 1;
            t->first_chance_fx += (uint64_t)llround(ldexp(a, 32));
            t->first_variance_fx += (uint64_t)llround(ldexp(a * (1.0 - a), 32));
            int32_t prev = w->states[b];
            for (int32_t k = 0; k <= n; k++) {
                t->transitions[(size_t)prev * V + y[k]]++;
                prev = y[k];
            }
            w->states[b] = prev;
            t->length[n]++;
            t->reached[0]++;
        }
        t->draws += (uint64_t)B;
        atomic_fetch_add(done, (uint64_t)B);
    }
    return SV_SAMPLER_OK;
}
