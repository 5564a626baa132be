/* tree_unit.c: one chunk of a tree run (contract version 6): each step's
 * tree drafted, one verify call, every output checked against the tree,
 * the emitted tokens counted by depth as a chain's by position, and the
 * law of n given each step's tree summed for the length test (tree_law.c).
 * Fixed rows: sequences unit * B.. of the run, the rows the host laid out
 * once (sv_tree_case). A Markov pair: streams unit * B.. for all their
 * steps, each step's rows built from its tree, as chain.c does for chains. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sampler_host.h"

static void add_law(sv_tally *t, const double *pi, int32_t depth)
{
    for (int32_t l = 0; l <= depth; l++) {
        t->law_fx[l] += (uint64_t)llround(ldexp(pi[l], 32));
        for (int32_t m = 0; m <= depth; m++)
            t->law2_fx[l * (SV_MAX_K + 1) + m] += (uint64_t)llround(ldexp(pi[l] * pi[m], 32));
    }
}

int sv_tree_unit(const sv_run_config *cfg, const sv_tree_rows *rows, const sv_pair_plan *plan,
                 int32_t B, uint64_t steps, uint64_t unit, sv_worker_buffers *w, sv_tally *t,
                 atomic_uint_fast64_t *done)
{
    const sv_tree *tree = rows->t;
    const sv_case *c = rows->c;
    const int32_t N = tree->nodes, V = c->V;
    const size_t tstride = (size_t)(N + 1) * V, dstride = (size_t)N * V;
    const uint64_t streams = c->chain ? (uint64_t)c->chain->streams : 0;
    const uint64_t start = unit * (uint64_t)B, end = c->chain ? streams : cfg->draws;
    if (start + (uint64_t)B > end)
        B = (int32_t)(end - start);
    double *ws = malloc(2 * (size_t)V * sizeof *ws), pi[SV_MAX_K + 1];
    if (!ws) {
        sv_tally_note(t, start, "out of memory for the tree law's rows");
        t->sampler_error = SV_SAMPLER_ENOMEM;
        return SV_SAMPLER_ENOMEM;
    }
    for (int32_t b = 0; c->chain && b < B; b++)
        w->states[b] = 0; /* every stream starts in state 0 */
    t->tree = 1;
    int rc = SV_SAMPLER_OK;
    for (uint64_t step = 0; step < (c->chain ? steps : 1) && rc == SV_SAMPLER_OK; step++) {
        const uint64_t first = c->chain ? step * streams + start : start;
        for (int32_t b = 0; b < B; b++) {
            int32_t *x = w->drafts + (size_t)b * N, state = c->chain ? w->states[b] : 0;
            sv_tree_draw(rows, cfg->seed, first + (uint64_t)b, state, x);
            memcpy(w->parents + (size_t)b * N, tree->parents, (size_t)N * sizeof(int32_t));
            if (c->chain)
                sv_tree_step_rows(rows, state, x, w->rows_target + b * tstride,
                                  w->rows_draft + b * dstride);
        }
        sv_batch bt = {
            .B = B, .K = N, .V = V,
            .target = c->chain ? w->rows_target : sv_host_target(w->host),
            .target_stride = c->chain ? (int64_t)tstride : 0,
            .draft = c->chain ? w->rows_draft : sv_host_draft(w->host),
            .draft_stride = c->chain ? (int64_t)dstride : 0,
            .draft_tokens = w->drafts,
            .seed = cfg->seed, .first_index = first,
        };
        sv_batch_uniform_v3(&bt, w, cfg);
        bt.parents = w->parents;
        bt.siblings = tree->siblings;
        rc = sv_host_verify(w->host, w->slot, &bt, t);
        if (rc != SV_SAMPLER_OK)
            break;
        unsigned char *valid = w->valid;
        for (int32_t b = 0; b < B; b++) {
            const uint64_t index = first + (uint64_t)b;
            const int32_t *y = bt.out_tokens + (size_t)b * (N + 1);
            const int32_t *x = w->drafts + (size_t)b * N, n = bt.out_accepted[b];
            const float *target = c->chain ? w->rows_target + b * tstride : bt.target;
            const sv_request who = {index, b, cfg->seed};
            valid[b] = (unsigned char)sv_check_tree_sequence(
                t, tree, V, target, &who, x, bt.out_path + (size_t)b * (N + 1), y, n);
            if (!valid[b]) {
                if (c->chain)
                    w->states[b] = 0; /* the stream is broken; the case fails anyway */
                continue;
            }
            const int32_t state = c->chain ? w->states[b] : 0;
            sv_tally_count(t, plan, y, n);
            sv_tree_law(rows, cfg->sampler->rule, x, state, ws, pi);
            add_law(t, pi, tree->depth);
            if (c->chain) {
                int32_t prev = state;
                for (int32_t k = 0; k <= n; k++) {
                    t->transitions[(size_t)prev * V + y[k]]++;
                    prev = y[k];
                }
                w->states[b] = prev;
            }
        }
        /* pairs (2m, 2m+1) of fixed rows: `first` is even, as B is */
        for (int32_t b = 0; !c->chain && plan->seq_ok && b + 1 < B; b += 2) {
            if (!valid[b] || !valid[b + 1])
                continue;
            int32_t r = plan->seq_rows.bin[bt.out_tokens[(size_t)b * (N + 1)]];
            int32_t s = plan->seq_cols.bin[bt.out_tokens[(size_t)(b + 1) * (N + 1)]];
            if (r >= 0 && s >= 0)
                t->pairs_seq[r * plan->seq_cols.nbins + s]++;
        }
        t->draws += (uint64_t)B;
        atomic_fetch_add(done, (uint64_t)B);
    }
    free(ws);
    return rc;
}
