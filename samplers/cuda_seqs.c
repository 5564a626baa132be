/* cuda_seqs.c: a version 3 batch's per-sequence arrays staged to the device
 * (cuda_seqs.h). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "cuda_flag.h"
#include "cuda_seqs.h"

/* Where each part of a batch of B sequences lies in the buffers: cu
 * [B + 1], then the (seed, index) pairs and the rules, 16-byte aligned. */
typedef struct seqs_layout {
    size_t rng, rules, end;
} seqs_layout;

static seqs_layout layout_for(int32_t B, int rules)
{
    seqs_layout l;
    l.rng = ((size_t)(B + 1) * sizeof(int32_t) + 15u) & ~(size_t)15u;
    l.rules = l.rng + (size_t)B * sizeof(sv_seq_rng);
    l.end = l.rules + (rules ? (size_t)B * sizeof(sv_seq_rule) : 0u);
    return l;
}

int sv_cuda_seqs_alloc(const char *sampler, sv_cuda_seqs_ws *ws, int32_t max_B)
{
    memset(ws, 0, sizeof *ws);
    const int32_t B = max_B > 0 ? max_B : 1;
    const size_t bytes = layout_for(B, 1).end;
    ws->host = malloc(bytes);
    if (!ws->host)
        return SV_SAMPLER_ENOMEM;
    cudaError_t e = cudaMalloc(&ws->device, bytes);
    if (e != cudaSuccess) {
        free(ws->host);
        memset(ws, 0, sizeof *ws);
        return sv_cuda_status(sampler, "allocating the per-sequence arrays", e);
    }
    ws->max_B = B;
    ws->bytes = bytes;
    return SV_SAMPLER_OK;
}

void sv_cuda_seqs_free(sv_cuda_seqs_ws *ws)
{
    cudaFree(ws->device);
    free(ws->host);
    memset(ws, 0, sizeof *ws);
}

int sv_cuda_seqs_given(const sv_batch *bt)
{
    return bt->layout != SV_LAYOUT_PADDED || bt->num_drafts || bt->cu_num_drafts ||
           bt->indices || bt->seeds || bt->temperatures || bt->top_ks || bt->top_ps;
}

/* Sequence b's rule, as the kernels weigh it; 0 if it is out of range. */
static int rule_of(const sv_batch *bt, int32_t b, sv_seq_rule *r)
{
    const double T = sv_batch_temperature(bt, b), top_p = sv_batch_top_p(bt, b);
    const int32_t top_k = sv_batch_top_k(bt, b);
    if (!isfinite(T) || T < 0.0 || !(top_p > 0.0))
        return 0;
    r->greedy = T == 0.0;
    r->cut = !r->greedy && ((top_k > 0 && top_k < bt->V) || top_p < 1.0);
    r->top_k = top_k;
    r->top_p = top_p;
    if (r->greedy) {
        r->scale.hi = 1.0f;
        r->scale.lo = 0.0f;
        r->scale.lmax = FLT_MAX;
    } else {
        r->scale = sv_softmax_scale_of(T);
    }
    return 1;
}

/* Packs bt's per-sequence data into host; 0 if bt is one this cannot take. */
static int pack(const sv_batch *bt, int rules, unsigned char *host, sv_cuda_seqs *out)
{
    const int32_t B = bt->B;
    if (bt->layout != SV_LAYOUT_PADDED && bt->layout != SV_LAYOUT_PACKED)
        return 0;
    if (bt->layout == SV_LAYOUT_PACKED && !bt->cu_num_drafts)
        return 0; /* the packed layout's offsets are cu's */
    const seqs_layout l = layout_for(B, rules);
    int32_t *cu = (int32_t *)host;
    sv_seq_rng *rng = (sv_seq_rng *)(host + l.rng);
    sv_seq_rule *rule = (sv_seq_rule *)(host + l.rules);
    int32_t total = 0, cuts = 0, plain = 1;
    for (int32_t b = 0; b < B; b++) {
        const int32_t d = sv_batch_num_drafts(bt, b);
        if (d < 0 || d > bt->K || (bt->cu_num_drafts && bt->cu_num_drafts[b] != total))
            return 0;
        cu[b] = total;
        total += d;
        rng[b].seed = sv_batch_seed(bt, b);
        rng[b].index = sv_batch_index(bt, b);
        if (rules) {
            if (!rule_of(bt, b, &rule[b]))
                return 0;
            cuts |= rule[b].cut;
            plain &= !rule[b].greedy && !rule[b].cut;
        }
    }
    if (bt->cu_num_drafts && bt->cu_num_drafts[B] != total)
        return 0;
    cu[B] = total;
    out->layout = bt->layout;
    out->B = B;
    out->total = total;
    out->cuts = cuts;
    out->plain = rules && plain;
    return 1;
}

int sv_cuda_seqs_stage(const char *sampler, sv_cuda_seqs_ws *ws, const sv_batch *bt, int rules,
                       sv_cuda_seqs *out)
{
    memset(out, 0, sizeof *out);
    if (!sv_cuda_seqs_given(bt))
        return SV_SAMPLER_OK;
    if (bt->B > ws->max_B || bt->B < 0 || !pack(bt, rules, ws->host, out)) {
        memset(out, 0, sizeof *out);
        return SV_SAMPLER_EINVAL;
    }
    const seqs_layout l = layout_for(bt->B, rules);
    /* from pageable memory: the host buffer is free again when this returns */
    cudaError_t e = cudaMemcpyAsync(ws->device, ws->host, l.end, cudaMemcpyHostToDevice,
                                    (cudaStream_t)bt->stream);
    if (e != cudaSuccess) {
        memset(out, 0, sizeof *out);
        return sv_cuda_status(sampler, "copying the per-sequence arrays", e);
    }
    unsigned char *device = ws->device;
    out->cu = (const int32_t *)device;
    out->rng = (const sv_seq_rng *)(device + l.rng);
    out->rules = rules ? (const sv_seq_rule *)(device + l.rules) : NULL;
    return SV_SAMPLER_OK;
}
