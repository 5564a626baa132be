/* cuda_flag.c: CUDA errors as sampler statuses; the bad-input flag. */
#include <stdio.h>
#include <cuda_runtime_api.h>
#include "cuda_flag.h"

int sv_cuda_status(const char *sampler, const char *what, int cuda_error)
{
    cudaError_t e = (cudaError_t)cuda_error;
    size_t free_bytes = 0, total = 0; /* an allocation that failed: how much is there */
    if (e == cudaErrorMemoryAllocation && cudaMemGetInfo(&free_bytes, &total) == cudaSuccess)
        fprintf(stderr, "%s: %s: %s (%s; %zu of %zu bytes free on the device)\n", sampler, what,
                cudaGetErrorString(e), cudaGetErrorName(e), free_bytes, total);
    else
        fprintf(stderr, "%s: %s: %s (%s)\n", sampler, what, cudaGetErrorString(e),
                cudaGetErrorName(e));
    return e == cudaErrorMemoryAllocation ? SV_SAMPLER_ENOMEM : SV_SAMPLER_EDEVICE;
}

int sv_cuda_flag_alloc(const char *sampler, sv_cuda_flag *flag)
{
    flag->device = flag->host = NULL;
    cudaError_t e = cudaMalloc((void **)&flag->device, sizeof(int));
    if (e == cudaSuccess)
        e = cudaMallocHost((void **)&flag->host, sizeof(int));
    if (e != cudaSuccess) {
        sv_cuda_flag_free(flag);
        return sv_cuda_status(sampler, "allocating the bad-input flag", e);
    }
    return SV_SAMPLER_OK;
}

void sv_cuda_flag_free(sv_cuda_flag *flag)
{
    cudaFree(flag->device);
    cudaFreeHost(flag->host);
    flag->device = flag->host = NULL;
}

int sv_cuda_flag_clear(const char *sampler, sv_cuda_flag *flag, void *stream)
{
    cudaError_t e = cudaMemsetAsync(flag->device, 0, sizeof(int), (cudaStream_t)stream);
    return e == cudaSuccess ? SV_SAMPLER_OK
                            : sv_cuda_status(sampler, "clearing the bad-input flag", e);
}

int sv_cuda_flag_read(const char *sampler, const char *kernel, sv_cuda_flag *flag, void *stream)
{
    cudaError_t e = cudaMemcpyAsync(flag->host, flag->device, sizeof(int), cudaMemcpyDeviceToHost,
                                    (cudaStream_t)stream);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize((cudaStream_t)stream);
    if (e != cudaSuccess) {
        char what[96];
        snprintf(what, sizeof what, "running %s", kernel);
        return sv_cuda_status(sampler, what, e);
    }
    return *flag->host ? SV_SAMPLER_EINVAL : SV_SAMPLER_OK;
}
