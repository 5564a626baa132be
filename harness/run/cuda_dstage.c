/* cuda_dstage.c: device staging in a CUDA stage (cuda_dstage.h).
 *
 * Per case, once: each draft row's GSL alias table (F as doubles, the
 * aliases as int32), the target rows for the check and the pair plan's bin
 * maps go to the device, and the counts start at zero there. Per batch:
 * one launch draws the drafts, the sampler runs, one launch checks every
 * sequence and one counts them unless the check found any broken (it reads
 * the flag on the device, so no wait comes between them); the flag alone
 * comes back. The counts come back once, when the stage ends. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "cuda_dstage.h"
#include "sv_device_stage.h"

_Static_assert(sizeof(unsigned long long) == sizeof(uint64_t), "device counts are sv_tally's");

struct sv_dstage {
    sv_staging_slot *slot;
    cudaStream_t stream;
    int32_t max_B;
    sv_dstage_rows rows;     /* device pointers into `tables` */
    sv_dstage_counts counts; /* device pointers into `count_base` */
    size_t n_hist, n_seq, n_pos, n_len;
    void *tables, *count_base;
    int32_t *drafts;         /* [max_B][K] */
    unsigned *flag;
    unsigned flag_host;
    int failed;              /* a device call failed: the counts are not to be trusted */
};

static int said(char *err, size_t errlen, const char *what, cudaError_t e)
{
    snprintf(err, errlen, "--device-staging: %s: %s", what, cudaGetErrorString(e));
    return e == cudaErrorMemoryAllocation ? SV_SAMPLER_ENOMEM : SV_SAMPLER_EDEVICE;
}

static int batch_error(sv_dstage *d, const char *what, cudaError_t e)
{
    d->failed = 1;
    fprintf(stderr, "cuda stage: --device-staging: %s: %s (%s)\n", what, cudaGetErrorString(e),
            cudaGetErrorName(e));
    return SV_SAMPLER_EDEVICE;
}

/* The case's tables laid out in one host block, then copied down in one go:
 * F [K][V] doubles, A [K][V], target [K+1][V] floats, then the bins. */
static int upload_tables(sv_dstage *d, char *err, size_t errlen)
{
    const sv_case *c = d->slot->c;
    const sv_pair_plan *plan = d->slot->plan;
    const size_t K = (size_t)c->K, V = (size_t)c->V;
    const size_t f_bytes = K * V * sizeof(double), a_bytes = K * V * sizeof(int32_t),
                 t_bytes = (K + 1) * V * sizeof(float), bin_bytes = V * sizeof(int32_t);
    const size_t bytes = f_bytes + a_bytes + t_bytes + 4 * bin_bytes;
    unsigned char *host = malloc(bytes);
    if (!host) {
        snprintf(err, errlen, "--device-staging: out of host memory for %zu bytes of tables",
                 bytes);
        return SV_SAMPLER_ENOMEM;
    }
    double *F = (void *)host;
    int32_t *A = (void *)(host + f_bytes);
    for (size_t k = 0; k < K; k++) {
        const gsl_ran_discrete_t *g = d->slot->d->table[k];
        memcpy(F + k * V, g->F, V * sizeof(double));
        for (size_t i = 0; i < V; i++)
            A[k * V + i] = (int32_t)g->A[i];
    }
    memcpy(host + f_bytes + a_bytes, c->target, t_bytes);
    const sv_binmap *bins[4] = {&plan->seq_rows, &plan->seq_cols, &plan->pos_rows,
                                &plan->pos_cols};
    const int ok[4] = {plan->seq_ok, plan->seq_ok, plan->pos_ok, plan->pos_ok};
    unsigned char *at = host + f_bytes + a_bytes + t_bytes;
    for (int i = 0; i < 4; i++)
        if (ok[i])
            memcpy(at + (size_t)i * bin_bytes, bins[i]->bin, bin_bytes);
    cudaError_t e = cudaMalloc(&d->tables, bytes);
    if (e == cudaSuccess)
        e = cudaMemcpy(d->tables, host, bytes, cudaMemcpyHostToDevice);
    free(host);
    if (e != cudaSuccess)
        return said(err, errlen, "copying the alias tables, rows and bins", e);
    const unsigned char *dev = d->tables;
    const int32_t *dbins = (const void *)(dev + f_bytes + a_bytes + t_bytes);
    d->rows = (sv_dstage_rows){
        .K = c->K, .V = c->V,
        .F = (const void *)dev, .A = (const void *)(dev + f_bytes),
        .target = (const void *)(dev + f_bytes + a_bytes),
        .seq_rows = plan->seq_ok ? dbins : NULL,
        .seq_cols = plan->seq_ok ? dbins + V : NULL,
        .pos_rows = plan->pos_ok ? dbins + 2 * V : NULL,
        .pos_cols = plan->pos_ok ? dbins + 3 * V : NULL,
        .seq_ncols = plan->seq_cols.nbins, .pos_ncols = plan->pos_cols.nbins,
    };
    return SV_SAMPLER_OK;
}

/* The counts, zeroed, in one block: hist, reached, length, pairs_seq, pairs_pos. */
static int alloc_counts(sv_dstage *d, char *err, size_t errlen)
{
    const sv_case *c = d->slot->c;
    const sv_pair_plan *plan = d->slot->plan;
    d->n_hist = (size_t)(c->K + 1) * (size_t)c->V;
    d->n_len = (size_t)c->K + 1;
    d->n_seq = plan->seq_ok ? (size_t)plan->seq_rows.nbins * (size_t)plan->seq_cols.nbins : 0;
    d->n_pos = plan->pos_ok ? (size_t)plan->pos_rows.nbins * (size_t)plan->pos_cols.nbins : 0;
    const size_t n = d->n_hist + 2 * d->n_len + d->n_seq + d->n_pos;
    cudaError_t e = cudaMalloc(&d->count_base, n * sizeof(uint64_t));
    if (e == cudaSuccess)
        e = cudaMemset(d->count_base, 0, n * sizeof(uint64_t));
    if (e != cudaSuccess)
        return said(err, errlen, "allocating the device counts", e);
    unsigned long long *p = d->count_base;
    d->counts.hist = p;
    d->counts.reached = p + d->n_hist;
    d->counts.length = d->counts.reached + d->n_len;
    d->counts.pairs_seq = d->counts.length + d->n_len;
    d->counts.pairs_pos = d->counts.pairs_seq + d->n_seq;
    return SV_SAMPLER_OK;
}

static void free_device(sv_dstage *d)
{
    cudaFree(d->tables);
    cudaFree(d->count_base);
    cudaFree(d->drafts);
    cudaFree(d->flag);
    free(d);
}

int sv_dstage_open(sv_staging_slot *slot, int32_t max_B, void *stream, sv_dstage **out,
                   char *err, size_t errlen)
{
    *out = NULL;
    sv_dstage *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, errlen, "--device-staging: out of host memory");
        return SV_SAMPLER_ENOMEM;
    }
    d->slot = slot;
    d->stream = stream;
    d->max_B = max_B;
    int rc = upload_tables(d, err, errlen);
    if (rc == SV_SAMPLER_OK)
        rc = alloc_counts(d, err, errlen);
    if (rc == SV_SAMPLER_OK) {
        const size_t draft_bytes = (size_t)max_B * (size_t)slot->c->K * sizeof(int32_t);
        cudaError_t e = cudaMalloc((void **)&d->drafts, draft_bytes ? draft_bytes : 4);
        if (e == cudaSuccess)
            e = cudaMalloc((void **)&d->flag, sizeof *d->flag);
        if (e != cudaSuccess)
            rc = said(err, errlen, "allocating the drafts", e);
    }
    if (rc != SV_SAMPLER_OK) {
        free_device(d);
        return rc;
    }
    *out = d;
    return SV_SAMPLER_OK;
}

int sv_dstage_drafts(sv_dstage *d, const sv_batch *hb, const int32_t **dev)
{
    *dev = d->drafts;
    d->slot->fallback = 1; /* until the check says otherwise */
    if (hb->B > d->max_B || hb->K != d->rows.K || hb->V != d->rows.V)
        return batch_error(d, "a batch larger than the stage's, or of another case",
                           cudaErrorInvalidValue);
    int e = sv_dstage_draft_launch(&d->rows, hb->seed, hb->first_index, hb->B, d->drafts,
                                   d->stream);
    return e ? batch_error(d, "drawing the drafts", (cudaError_t)e) : SV_SAMPLER_OK;
}

int sv_dstage_finish(sv_dstage *d, int32_t B, const int32_t *tokens, const int32_t *accepted)
{
    cudaError_t e = cudaMemsetAsync(d->flag, 0, sizeof *d->flag, d->stream);
    if (e == cudaSuccess)
        e = (cudaError_t)sv_dstage_check_launch(&d->rows, B, d->drafts, tokens, accepted,
                                                d->flag, d->stream);
    if (e == cudaSuccess)
        e = (cudaError_t)sv_dstage_tally_launch(&d->rows, &d->counts, B, tokens, accepted,
                                                d->flag, d->stream);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(&d->flag_host, d->flag, sizeof d->flag_host, cudaMemcpyDeviceToHost,
                            d->stream);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(d->stream);
    if (e != cudaSuccess)
        return batch_error(d, "checking and counting a batch", e);
    d->slot->fallback = d->flag_host != 0;
    return SV_SAMPLER_OK;
}

int sv_dstage_fallback(const sv_dstage *d)
{
    return d->slot->fallback;
}

int sv_dstage_read_drafts(const sv_dstage *d, int32_t B, int32_t *out)
{
    cudaError_t e = cudaMemcpy(out, d->drafts, (size_t)B * (size_t)d->rows.K * sizeof(int32_t),
                               cudaMemcpyDeviceToHost);
    return e == cudaSuccess ? SV_SAMPLER_OK : SV_SAMPLER_EDEVICE;
}

void sv_dstage_close(sv_dstage *d)
{
    if (!d)
        return;
    sv_staging_slot *s = d->slot;
    cudaError_t e = cudaStreamSynchronize(d->stream);
    const struct {
        uint64_t *to;
        const unsigned long long *from;
        size_t n;
    } parts[] = {{s->hist, d->counts.hist, d->n_hist},
                 {s->reached, d->counts.reached, d->n_len},
                 {s->length, d->counts.length, d->n_len},
                 {s->pairs_seq, d->counts.pairs_seq, d->n_seq},
                 {s->pairs_pos, d->counts.pairs_pos, d->n_pos}};
    for (size_t i = 0; e == cudaSuccess && i < sizeof parts / sizeof parts[0]; i++)
        if (parts[i].n)
            e = cudaMemcpy(parts[i].to, parts[i].from, parts[i].n * sizeof(uint64_t),
                           cudaMemcpyDeviceToHost);
    if (e != cudaSuccess)
        batch_error(d, "copying the counts back", e);
    s->counted = !d->failed;
    free_device(d);
}
