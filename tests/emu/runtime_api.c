/* tests/emu/runtime_api.c: cuda_runtime_api.h's stand-in CUDA host calls,
 * over host memory. */
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include "cuda_runtime_api.h"
#include "emu_copies.h"

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

/* Copies, memsets and waits are refused while a capture is open (graph.cpp
 * records kernels only; a real capture refuses the waits too). */
cudaError_t cudaMemset(void *p, int value, size_t bytes)
{
    if (sv_emu_capturing())
        return cudaErrorStreamCaptureUnsupported;
    memset(p, value, bytes);
    return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void *p, int value, size_t bytes, cudaStream_t stream)
{
    (void)stream;
    return cudaMemset(p, value, bytes);
}

/* Copies by direction (emu_copies.h); atomic: a runner's threads copy at once. */
static atomic_ullong copy_calls[3], copy_bytes[3];

sv_emu_copies sv_emu_copies_read(void)
{
    sv_emu_copies c;
    for (int d = 0; d < 3; d++) {
        c.calls[d] = atomic_load(&copy_calls[d]);
        c.bytes[d] = atomic_load(&copy_bytes[d]);
    }
    return c;
}

void sv_emu_copies_reset(void)
{
    for (int d = 0; d < 3; d++) {
        atomic_store(&copy_calls[d], 0);
        atomic_store(&copy_bytes[d], 0);
    }
}

cudaError_t cudaMemcpy(void *to, const void *from, size_t bytes, enum cudaMemcpyKind kind)
{
    if (sv_emu_capturing())
        return cudaErrorStreamCaptureUnsupported;
    const int d = kind == cudaMemcpyDeviceToHost     ? SV_EMU_TO_HOST
                  : kind == cudaMemcpyDeviceToDevice ? SV_EMU_ON_DEVICE
                                                     : SV_EMU_TO_DEVICE;
    atomic_fetch_add(&copy_calls[d], 1);
    atomic_fetch_add(&copy_bytes[d], (unsigned long long)bytes);
    memcpy(to, from, bytes);
    return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void *to, const void *from, size_t bytes, enum cudaMemcpyKind kind,
                            cudaStream_t stream)
{
    (void)stream;
    return cudaMemcpy(to, from, bytes, kind);
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    (void)stream; /* the work was done when it was enqueued */
    return sv_emu_capturing() ? cudaErrorStreamCaptureUnsupported : cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void)
{
    return sv_emu_capturing() ? cudaErrorStreamCaptureUnsupported : cudaSuccess;
}

/* Streams are only names: work runs when it is enqueued. */
static char stream_names;

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned flags)
{
    (void)flags;
    *stream = &stream_names;
    return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    return stream == &stream_names ? cudaSuccess : cudaErrorInvalidValue;
}

cudaError_t cudaGetDevice(int *device)
{
    *device = 0;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceCount(int *count)
{
    *count = 1;
    return cudaSuccess;
}

static int compute_capability = 9, code_capability = 0; /* 0: the device's */

void sv_emu_set_compute_capability(int major)
{
    compute_capability = major;
}

void sv_emu_set_code_capability(int major)
{
    code_capability = major;
}

int sv_emu_code_capability(void)
{
    return code_capability ? code_capability : compute_capability;
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    if (device != 0)
        return cudaErrorInvalidValue;
    switch (attr) {
    case cudaDevAttrMultiProcessorCount: *value = SV_EMU_SM_COUNT; return cudaSuccess;
    case cudaDevAttrComputeCapabilityMajor: *value = compute_capability; return cudaSuccess;
    }
    return cudaErrorInvalidValue;
}

static long launches[2]; /* [early] */

void sv_emu_count_launch(int early)
{
    launches[early != 0]++;
}

long sv_emu_launches(int early)
{
    return launches[early != 0];
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
    return e == cudaSuccess                         ? "no error"
           : e == cudaErrorMemoryAllocation         ? "out of memory"
           : e == cudaErrorStreamCaptureUnsupported ? "not permitted while a stream captures"
                                                    : "invalid argument";
}

const char *cudaGetErrorName(cudaError_t e)
{
    return e == cudaSuccess                         ? "cudaSuccess"
           : e == cudaErrorMemoryAllocation         ? "cudaErrorMemoryAllocation"
           : e == cudaErrorStreamCaptureUnsupported ? "cudaErrorStreamCaptureUnsupported"
                                                    : "cudaErrorInvalidValue";
}
