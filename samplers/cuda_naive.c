/* cuda_naive.c: the host side of the cuda_naive sampler (kernels/cuda_naive.cu).
 *
 * verify enqueues the kernel on the batch's stream and then waits for it, to
 * read back the flag that says whether any sequence had bad input: the plain
 * way, and the reason this sampler is not CUDA-graph friendly (cuda_fused's
 * launch is). */
#include <stdlib.h>
#include "sv_registry.h"
#include "sv_cuda_kernels.h"
#include "cuda_flag.h"
#include "sv_cuda_enqueue.h"

static void naive_destroy(void *state)
{
    sv_cuda_flag *flag = state;
    if (!flag)
        return;
    sv_cuda_flag_free(flag);
    free(flag);
}

static int naive_init(void **state, const sv_limits *limits)
{
    (void)limits; /* the kernel needs no workspace */
    sv_cuda_flag *flag = calloc(1, sizeof *flag);
    if (!flag)
        return SV_SAMPLER_ENOMEM;
    int rc = sv_cuda_flag_alloc("cuda_naive", flag);
    if (rc != SV_SAMPLER_OK) {
        free(flag);
        return rc;
    }
    *state = flag;
    return SV_SAMPLER_OK;
}

int sv_cuda_naive_enqueue(void *state, const sv_batch *bt, const uint64_t *rng)
{
    (void)rng; /* the naive kernel takes seed and index by value only */
    sv_cuda_flag *flag = state;
    int e = sv_cuda_naive_launch(bt, flag->device);
    return e == 0 ? SV_SAMPLER_OK : sv_cuda_status("cuda_naive", "launching naive_kernel", e);
}

static int naive_verify(void *state, const sv_batch *bt)
{
    sv_cuda_flag *flag = state;
    int rc = sv_cuda_flag_clear("cuda_naive", flag, bt->stream);
    if (rc == SV_SAMPLER_OK)
        rc = sv_cuda_naive_enqueue(state, bt, NULL);
    if (rc != SV_SAMPLER_OK)
        return rc;
    return sv_cuda_flag_read("cuda_naive", "naive_kernel", flag, bt->stream);
}

const sv_sampler sv_sampler_cuda_naive = {
    "cuda_naive", "CUDA, one thread per sequence: the GPU twin of ref (inverse CDF, double)",
    SV_MEM_CUDA, naive_init, naive_verify, naive_destroy, 0, 0};
