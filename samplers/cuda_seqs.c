/* cuda_seqs.c: a version 3 batch's per-sequence arrays for the CUDA
 * samplers' kernels (cuda_seqs.h). */
#include <string.h>
#include <cuda_runtime_api.h>
#include "cuda_flag.h"
#include "cuda_seqs.h"

int sv_cuda_seqs_alloc(const char *sampler, sv_cuda_seqs_ws *ws, int32_t max_B)
{
    memset(ws, 0, sizeof *ws);
    const int32_t B = max_B > 0 ? max_B : 1;
    cudaError_t e = cudaMalloc(&ws->device, sv_cuda_seqs_bytes(B));
    if (e != cudaSuccess) {
        ws->device = NULL;
        return sv_cuda_status(sampler, "allocating the per-sequence workspace", e);
    }
    ws->max_B = B;
    return SV_SAMPLER_OK;
}

void sv_cuda_seqs_free(sv_cuda_seqs_ws *ws)
{
    cudaFree(ws->device);
    memset(ws, 0, sizeof *ws);
}

int sv_cuda_seqs_given(const sv_batch *bt)
{
    return bt->layout != SV_LAYOUT_PADDED || bt->num_drafts || bt->cu_num_drafts ||
           bt->indices || bt->seeds || bt->temperatures || bt->top_ks || bt->top_ps;
}

int sv_cuda_seqs_stage(const char *sampler, sv_cuda_seqs_ws *ws, const sv_batch *bt, int rules,
                       int *bad, int early, sv_cuda_seqs *out)
{
    memset(out, 0, sizeof *out);
    if (!sv_cuda_seqs_given(bt))
        return SV_SAMPLER_OK;
    if (bt->B < 0 || bt->B > ws->max_B ||
        (bt->layout != SV_LAYOUT_PADDED && bt->layout != SV_LAYOUT_PACKED) ||
        (bt->layout == SV_LAYOUT_PACKED && !bt->cu_num_drafts))
        return SV_SAMPLER_EINVAL;
    if (bt->B == 0)
        return SV_SAMPLER_OK; /* nothing to launch */
    int e = sv_cuda_seqs_prep_launch(bt, ws->device, ws->max_B, rules, bad, early, out);
    if (e != 0) {
        memset(out, 0, sizeof *out);
        return sv_cuda_status(sampler, "launching the per-sequence prep kernel", e);
    }
    return SV_SAMPLER_OK;
}
