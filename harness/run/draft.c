/* draft.c: the harness draws draft tokens x_k ~ q_k with GSL's Walker alias
 * tables, driven by addressed Philox numbers (purpose DRAFT), so the drafts
 * of sequence i are the same whatever the batch or thread. */
#include <stdlib.h>
#include "sv_run.h"
#include "sv_philox.h"

int sv_drafter_alloc(const sv_case *c, sv_drafter **out)
{
    sv_drafter *d = calloc(1, sizeof *d);
    double *w = malloc((size_t)c->V * sizeof *w);
    if (!d || !w) {
        free(d);
        free(w);
        return sv_fail(SV_EENV, "case %s: out of memory building draft tables", c->name);
    }
    d->K = c->K;
    for (int32_t k = 0; k < c->K; k++) {
        const float *q = (c->draft_sampled ? c->draft_sampled : c->draft) + (size_t)k * c->V;
        for (int32_t i = 0; i < c->V; i++)
            w[i] = q[i];
        d->table[k] = gsl_ran_discrete_preproc((size_t)c->V, w);
        if (!d->table[k]) {
            free(w);
            sv_drafter_free(d);
            return sv_fail(SV_EBAD, "case %s: draft row %d cannot be sampled", c->name, k + 1);
        }
    }
    free(w);
    *out = d;
    return SV_OK;
}

void sv_drafter_free(sv_drafter *d)
{
    if (!d)
        return;
    for (int32_t k = 0; k < d->K; k++)
        if (d->table[k])
            gsl_ran_discrete_free(d->table[k]);
    free(d);
}

void sv_drafter_draw(const sv_drafter *d, gsl_rng *philox, uint64_t seed, uint64_t index,
                     int32_t *tokens)
{
    for (int32_t k = 0; k < d->K; k++) {
        sv_gsl_philox_seek(philox, seed, index, (uint32_t)k, SV_PURPOSE_DRAFT);
        tokens[k] = (int32_t)gsl_ran_discrete(philox, d->table[k]);
    }
}
