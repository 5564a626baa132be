/* cuda_naive.c: the host side of the cuda_naive sampler (kernels/cuda_naive.cu).
 *
 * verify enqueues the kernel on the batch's stream and then waits for it, to
 * read back the flag that says whether any sequence had bad input: the plain
 * way, and the reason this sampler is not CUDA-graph friendly (cuda_fused is).
 * Device errors are printed with CUDA's own name for them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>
#include "sv_registry.h"
#include "sv_cuda_kernels.h"

typedef struct naive_state {
    int *bad_device; /* set by the kernel on bad input */
    int *bad_host;   /* pinned, so the copy back can be asynchronous */
} naive_state;

static int device_error(const char *what, cudaError_t e)
{
    fprintf(stderr, "cuda_naive: %s: %s (%s)\n", what, cudaGetErrorString(e), cudaGetErrorName(e));
    return SV_SAMPLER_EDEVICE;
}

static void naive_destroy(void *state)
{
    naive_state *s = state;
    if (!s)
        return;
    cudaFree(s->bad_device);
    cudaFreeHost(s->bad_host);
    free(s);
}

static int naive_init(void **state, const sv_limits *limits)
{
    (void)limits; /* the kernel needs no workspace */
    naive_state *s = calloc(1, sizeof *s);
    if (!s)
        return SV_SAMPLER_ENOMEM;
    *state = s;
    cudaError_t e = cudaMalloc((void **)&s->bad_device, sizeof(int));
    if (e == cudaSuccess)
        e = cudaMallocHost((void **)&s->bad_host, sizeof(int));
    if (e != cudaSuccess) {
        naive_destroy(s);
        *state = NULL;
        return device_error("allocating the bad-input flag", e);
    }
    return SV_SAMPLER_OK;
}

static int naive_verify(void *state, const sv_batch *bt)
{
    naive_state *s = state;
    cudaStream_t stream = (cudaStream_t)bt->stream;
    cudaError_t e = cudaMemsetAsync(s->bad_device, 0, sizeof(int), stream);
    if (e != cudaSuccess)
        return device_error("clearing the bad-input flag", e);
    e = (cudaError_t)sv_cuda_naive_launch(bt, s->bad_device);
    if (e != cudaSuccess)
        return device_error("launching naive_kernel", e);
    e = cudaMemcpyAsync(s->bad_host, s->bad_device, sizeof(int), cudaMemcpyDeviceToHost, stream);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess)
        return device_error("running naive_kernel", e);
    return *s->bad_host ? SV_SAMPLER_EINVAL : SV_SAMPLER_OK;
}

const sv_sampler sv_sampler_cuda_naive = {
    "cuda_naive", "CUDA, one thread per sequence: the GPU twin of ref (inverse CDF, double)",
    SV_MEM_CUDA, naive_init, naive_verify, naive_destroy};
