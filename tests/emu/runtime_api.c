/* tests/emu/runtime_api.c: cuda_runtime_api.h's stand-in CUDA host calls,
 * over host memory. */
#include <stdlib.h>
#include <string.h>
#include "cuda_runtime_api.h"

static int allocations_left = -1; /* < 0: no limit */
static long live = 0;

void sv_emu_fail_allocations_after(int n)
{
    allocations_left = n;
}

long sv_emu_live_allocations(void)
{
    return live;
}

static cudaError_t allocate(void **p, size_t bytes)
{
    *p = NULL;
    if (allocations_left == 0)
        return cudaErrorMemoryAllocation;
    if (allocations_left > 0)
        allocations_left--;
    *p = malloc(bytes ? bytes : 1);
    if (!*p)
        return cudaErrorMemoryAllocation;
    memset(*p, 0xA5, bytes); /* cudaMalloc does not zero */
    live++;
    return cudaSuccess;
}

static cudaError_t release(void *p)
{
    if (p) {
        free(p);
        live--;
    }
    return cudaSuccess;
}

cudaError_t cudaMalloc(void **p, size_t bytes)
{
    return allocate(p, bytes);
}

cudaError_t cudaMallocHost(void **p, size_t bytes)
{
    return allocate(p, bytes);
}

cudaError_t cudaFree(void *p)
{
    return release(p);
}

cudaError_t cudaFreeHost(void *p)
{
    return release(p);
}

cudaError_t cudaMemset(void *p, int value, size_t bytes)
{
    memset(p, value, bytes);
    return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void *p, int value, size_t bytes, cudaStream_t stream)
{
    (void)stream;
    return cudaMemset(p, value, bytes);
}

cudaError_t cudaMemcpyAsync(void *to, const void *from, size_t bytes, enum cudaMemcpyKind kind,
                            cudaStream_t stream)
{
    (void)kind, (void)stream;
    memcpy(to, from, bytes);
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    (void)stream; /* the work was done when it was enqueued */
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device)
{
    *device = 0;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    if (attr != cudaDevAttrMultiProcessorCount || device != 0)
        return cudaErrorInvalidValue;
    *value = SV_EMU_SM_COUNT;
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    *free_bytes = 0; /* as when an allocation failed for want of memory */
    *total_bytes = (size_t)1 << 30;
    return cudaSuccess;
}

cudaError_t cudaGetLastError(void)
{
    return cudaSuccess;
}

const char *cudaGetErrorString(cudaError_t e)
{
    return e == cudaSuccess                 ? "no error"
           : e == cudaErrorMemoryAllocation ? "out of memory"
                                            : "invalid argument";
}

const char *cudaGetErrorName(cudaError_t e)
{
    return e == cudaSuccess                 ? "cudaSuccess"
           : e == cudaErrorMemoryAllocation ? "cudaErrorMemoryAllocation"
                                            : "cudaErrorInvalidValue";
}
