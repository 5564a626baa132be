/* cuda_dstage.c: device staging in a CUDA stage (cuda_dstage.h).
 *
 * Per case, once: each draft row's GSL alias table (F as doubles, the
 * aliases as int32), the target rows for the check and the pair plan's bin
 * maps go to the device, and the counts start at zero there. Per batch:
 * one launch draws the drafts, the sampler runs, one launch checks every
 * sequence and one counts them unless the check found any broken (it reads
 * the flag on the device, so no wait comes between them); the flag alone
 * comes back. The counts come back once, when the stage ends. A mix's stage
 * holds a part per case (its tables and counts) and the mix's per-slot
 * arrays (case, drafts, prefix sums), so that each sequence of a mixed
 * batch is drafted, checked and counted in its own case. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "cuda_dstage.h"
#include "sampler_host.h" /* SV_POISON */
#include "sv_device_stage.h"

_Static_assert(sizeof(unsigned long long) == sizeof(uint64_t), "device counts are sv_tally's");

/* One case's tables and counts on the device. */
typedef struct dstage_part {
    sv_staging_slot *slot;
    sv_dstage_rows rows;     /* device pointers into `tables` */
    sv_dstage_counts counts; /* device pointers into `count_base` */
    size_t n_hist, n_seq, n_pos, n_len;
    void *tables, *count_base;
} dstage_part;

struct sv_dstage {
    sv_staging_slot *slot;   /* the first part's: its fallback is the batch's */
    cudaStream_t stream;
    int32_t max_B, K;        /* K: the case's, or the mix's largest */
    int32_t n_parts;
    dstage_part *parts;      /* [n_parts]: the case, or each case of the mix */
    const sv_mix *mix;       /* a mixed run's, or NULL */
    sv_dstage_mix mixed;     /* its arrays on the device (in mix_arrays), s0 per batch */
    void *mix_arrays;
    size_t drafted;          /* the last batch's draft tokens */
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
static int upload_tables(dstage_part *d, char *err, size_t errlen)
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
static int alloc_counts(dstage_part *d, char *err, size_t errlen)
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

/* The mix's per-slot arrays, then every part's rows and counts (pointers to
 * the device), in one block: what the mixed kernels read per sequence. */
static int upload_mix(sv_dstage *d, char *err, size_t errlen)
{
    const sv_mix *m = d->mix;
    const size_t L = (size_t)m->period, n = (size_t)d->n_parts;
    const size_t ints = (3 * L + 1) * sizeof(int32_t);
    const size_t rows_at = (ints + 15) / 16 * 16, counts_at = rows_at + n * sizeof(sv_dstage_rows);
    const size_t bytes = counts_at + n * sizeof(sv_dstage_counts);
    unsigned char *host = calloc(1, bytes);
    if (!host) {
        snprintf(err, errlen, "--device-staging: out of host memory for the mix's arrays");
        return SV_SAMPLER_ENOMEM;
    }
    int32_t *a = (void *)host;
    memcpy(a, m->case_of, L * sizeof(int32_t));
    memcpy(a + L, m->drafts, L * sizeof(int32_t));
    memcpy(a + 2 * L, m->cu, (L + 1) * sizeof(int32_t));
    for (size_t i = 0; i < n; i++) {
        ((sv_dstage_rows *)(void *)(host + rows_at))[i] = d->parts[i].rows;
        ((sv_dstage_counts *)(void *)(host + counts_at))[i] = d->parts[i].counts;
    }
    cudaError_t e = cudaMalloc(&d->mix_arrays, bytes);
    if (e == cudaSuccess)
        e = cudaMemcpy(d->mix_arrays, host, bytes, cudaMemcpyHostToDevice);
    free(host);
    if (e != cudaSuccess)
        return said(err, errlen, "copying the mix's arrays", e);
    const unsigned char *dev = d->mix_arrays;
    const int32_t *da = (const void *)dev;
    d->mixed = (sv_dstage_mix){
        .n_cases = d->n_parts, .period = m->period, .K = m->K, .V = m->V,
        .poison = SV_POISON,
        .case_of = da, .drafts = da + L, .cu = da + 2 * L,
        .rows = (const void *)(dev + rows_at), .counts = (const void *)(dev + counts_at),
    };
    return SV_SAMPLER_OK;
}

static void free_device(sv_dstage *d)
{
    for (int32_t i = 0; d->parts && i < d->n_parts; i++) {
        cudaFree(d->parts[i].tables);
        cudaFree(d->parts[i].count_base);
    }
    free(d->parts);
    cudaFree(d->mix_arrays);
    cudaFree(d->drafts);
    cudaFree(d->flag);
    free(d);
}

int sv_dstage_open(sv_staging_slot *slot, const sv_mix *mix, int32_t max_B, void *stream,
                   sv_dstage **out, char *err, size_t errlen)
{
    *out = NULL;
    sv_dstage *d = calloc(1, sizeof *d);
    const int32_t n = mix ? mix->n_cases : 1;
    if (d)
        d->parts = calloc((size_t)n, sizeof *d->parts);
    if (!d || !d->parts) {
        free(d);
        snprintf(err, errlen, "--device-staging: out of host memory");
        return SV_SAMPLER_ENOMEM;
    }
    d->slot = slot;
    d->stream = stream;
    d->max_B = max_B;
    d->mix = mix;
    d->K = mix ? mix->K : slot->c->K;
    d->n_parts = n;
    int rc = SV_SAMPLER_OK;
    for (int32_t i = 0; i < n && rc == SV_SAMPLER_OK; i++) {
        d->parts[i].slot = &slot[i];
        rc = upload_tables(&d->parts[i], err, errlen);
        if (rc == SV_SAMPLER_OK)
            rc = alloc_counts(&d->parts[i], err, errlen);
    }
    if (rc == SV_SAMPLER_OK && mix)
        rc = upload_mix(d, err, errlen);
    if (rc == SV_SAMPLER_OK) {
        const size_t draft_bytes = (size_t)max_B * (size_t)d->K * sizeof(int32_t);
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

/* A mixed batch's place in the mix: its first slot and layout, from its
 * first sequence (the mix's, no probe's: index = g), checked against what
 * the runner gave the sampler. 0 when it does not fit the mix. */
static int place_in_mix(sv_dstage *d, const sv_batch *hb)
{
    const sv_mix *m = d->mix;
    const uint64_t g = hb->first_index;
    const int32_t s0 = sv_mix_slot(m, g), layout = sv_mix_layout(m, g);
    const int packed = layout == SV_LAYOUT_PACKED;
    const size_t drafted = packed ? sv_mix_cu(m, (uint64_t)s0 + (uint64_t)hb->B) -
                                        sv_mix_cu(m, (uint64_t)s0)
                                  : (size_t)hb->B * (size_t)d->K;
    if (m->index_of || g + (uint64_t)hb->B > m->draws || (m->v3 && hb->layout != layout) ||
        (packed && hb->cu_num_drafts && (size_t)hb->cu_num_drafts[hb->B] != drafted))
        return 0;
    d->mixed.s0 = s0;
    d->mixed.packed = packed;
    d->drafted = drafted;
    return 1;
}

int sv_dstage_drafts(sv_dstage *d, const sv_batch *hb, const int32_t **dev)
{
    *dev = d->drafts;
    d->slot->fallback = 1; /* until the check says otherwise */
    if (hb->B > d->max_B || hb->K != d->K || hb->V != d->parts[0].rows.V ||
        (d->mix && !place_in_mix(d, hb)))
        return batch_error(d, "a batch larger than the stage's, or of another case or mix",
                           cudaErrorInvalidValue);
    int e;
    if (d->mix) {
        e = sv_dstage_mix_draft_launch(&d->mixed, hb->seed, hb->first_index, hb->B, d->drafts,
                                       d->stream);
    } else {
        d->drafted = (size_t)hb->B * (size_t)d->K;
        e = sv_dstage_draft_launch(&d->parts[0].rows, hb->seed, hb->first_index, hb->B,
                                   d->drafts, d->stream);
    }
    return e ? batch_error(d, "drawing the drafts", (cudaError_t)e) : SV_SAMPLER_OK;
}

int sv_dstage_finish(sv_dstage *d, int32_t B, const int32_t *tokens, const int32_t *accepted)
{
    const sv_dstage_rows *r = &d->parts[0].rows;
    cudaError_t e = cudaMemsetAsync(d->flag, 0, sizeof *d->flag, d->stream);
    if (e == cudaSuccess)
        e = (cudaError_t)(d->mix ? sv_dstage_mix_check_launch(&d->mixed, B, d->drafts, tokens,
                                                              accepted, d->flag, d->stream)
                                 : sv_dstage_check_launch(r, B, d->drafts, tokens, accepted,
                                                          d->flag, d->stream));
    if (e == cudaSuccess)
        e = (cudaError_t)(d->mix ? sv_dstage_mix_tally_launch(&d->mixed, B, tokens, accepted,
                                                              d->flag, d->stream)
                                 : sv_dstage_tally_launch(r, &d->parts[0].counts, B, tokens,
                                                          accepted, d->flag, d->stream));
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
    (void)B; /* the last batch's: d->drafted of them */
    cudaError_t e = cudaMemcpy(out, d->drafts, d->drafted * sizeof(int32_t),
                               cudaMemcpyDeviceToHost);
    return e == cudaSuccess ? SV_SAMPLER_OK : SV_SAMPLER_EDEVICE;
}

/* A part's counts into its slot's shared block. */
static cudaError_t count_back(const dstage_part *p)
{
    sv_staging_slot *s = p->slot;
    const struct {
        uint64_t *to;
        const unsigned long long *from;
        size_t n;
    } parts[] = {{s->hist, p->counts.hist, p->n_hist},
                 {s->reached, p->counts.reached, p->n_len},
                 {s->length, p->counts.length, p->n_len},
                 {s->pairs_seq, p->counts.pairs_seq, p->n_seq},
                 {s->pairs_pos, p->counts.pairs_pos, p->n_pos}};
    cudaError_t e = cudaSuccess;
    for (size_t i = 0; e == cudaSuccess && i < sizeof parts / sizeof parts[0]; i++)
        if (parts[i].n)
            e = cudaMemcpy(parts[i].to, parts[i].from, parts[i].n * sizeof(uint64_t),
                           cudaMemcpyDeviceToHost);
    return e;
}

void sv_dstage_close(sv_dstage *d)
{
    if (!d)
        return;
    cudaError_t e = cudaStreamSynchronize(d->stream);
    for (int32_t i = 0; e == cudaSuccess && i < d->n_parts; i++)
        e = count_back(&d->parts[i]);
    if (e != cudaSuccess)
        batch_error(d, "copying the counts back", e);
    for (int32_t i = 0; i < d->n_parts; i++)
        d->parts[i].slot->counted = !d->failed;
    free_device(d);
}
