/* tests/emu/cuda_runtime_api.h: the host side of CUDA that samplers/'s
 * CUDA samplers call (cuda_naive.c, cuda_fused.c, cuda_flag.c), over host
 * memory, so that they run on the CPU with tests/emu's kernels. C and C++.
 *
 * Device memory is host memory (malloc); a new allocation is filled with
 * 0xA5 bytes, not zeros, as cudaMalloc promises nothing. Work on a stream
 * is done when it is enqueued (kernels run in order, at launch), so
 * synchronizing is a no-op. For tests of the error paths, allocations can
 * be made to fail, and the live ones are counted. */
#ifndef SV_EMU_CUDA_RUNTIME_API_H
#define SV_EMU_CUDA_RUNTIME_API_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Under names of their own, apart from the real runtime's in a CUDA build. */
#define cudaMalloc sv_emu_cudaMalloc
#define cudaMallocHost sv_emu_cudaMallocHost
#define cudaFree sv_emu_cudaFree
#define cudaFreeHost sv_emu_cudaFreeHost
#define cudaMemset sv_emu_cudaMemset
#define cudaMemsetAsync sv_emu_cudaMemsetAsync
#define cudaMemcpyAsync sv_emu_cudaMemcpyAsync
#define cudaStreamSynchronize sv_emu_cudaStreamSynchronize
#define cudaDeviceSynchronize sv_emu_cudaDeviceSynchronize
#define cudaGetDevice sv_emu_cudaGetDevice
#define cudaDeviceGetAttribute sv_emu_cudaDeviceGetAttribute
#define cudaMemGetInfo sv_emu_cudaMemGetInfo
#define cudaGetLastError sv_emu_cudaGetLastError
#define cudaGetErrorString sv_emu_cudaGetErrorString
#define cudaGetErrorName sv_emu_cudaGetErrorName
#define cudaMemcpy sv_emu_cudaMemcpy
#define cudaStreamCreateWithFlags sv_emu_cudaStreamCreateWithFlags
#define cudaStreamDestroy sv_emu_cudaStreamDestroy
#define cudaStreamBeginCapture sv_emu_cudaStreamBeginCapture
#define cudaStreamEndCapture sv_emu_cudaStreamEndCapture
#define cudaGraphInstantiate sv_emu_cudaGraphInstantiate
#define cudaGraphLaunch sv_emu_cudaGraphLaunch
#define cudaGraphDestroy sv_emu_cudaGraphDestroy
#define cudaGraphExecDestroy sv_emu_cudaGraphExecDestroy

typedef void *cudaStream_t;
typedef enum cudaError {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInsufficientDriver = 35,
    cudaErrorNoDevice = 100,
    cudaErrorStreamCaptureUnsupported = 900
} cudaError_t;
enum cudaMemcpyKind {
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3
};
enum cudaStreamCaptureMode {
    cudaStreamCaptureModeGlobal = 0,
    cudaStreamCaptureModeThreadLocal = 1
};
#define cudaStreamNonBlocking 0x01
typedef struct sv_emu_graph *cudaGraph_t; /* a list of launches (graph.cpp) */
typedef struct sv_emu_graph *cudaGraphExec_t;
enum cudaDeviceAttr {
    cudaDevAttrMultiProcessorCount = 16,
    cudaDevAttrComputeCapabilityMajor = 75
};

cudaError_t cudaMalloc(void **p, size_t bytes);
cudaError_t cudaMallocHost(void **p, size_t bytes);
cudaError_t cudaFree(void *p);
cudaError_t cudaFreeHost(void *p);
cudaError_t cudaMemset(void *p, int value, size_t bytes);
cudaError_t cudaMemsetAsync(void *p, int value, size_t bytes, cudaStream_t stream);
cudaError_t cudaMemcpyAsync(void *to, const void *from, size_t bytes, enum cudaMemcpyKind kind,
                            cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaMemcpy(void *to, const void *from, size_t bytes, enum cudaMemcpyKind kind);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
/* graph.cpp: while a capture is open, launches are recorded, not run */
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *graph);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph,
                                 unsigned long long flags);
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream);
cudaError_t cudaGraphDestroy(cudaGraph_t graph);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec);
int sv_emu_capturing(void); /* 1 while a capture is open */
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaGetDeviceCount(int *count); /* one: the stand-in */
cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device);
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes);
cudaError_t cudaGetLastError(void);
const char *cudaGetErrorString(cudaError_t e);
const char *cudaGetErrorName(cudaError_t e);

/* ---- for tests ---- */
/* SMs the stand-in device reports (it sizes cuda_fused's splits). */
#define SV_EMU_SM_COUNT 4
/* The next n allocations (cudaMalloc, cudaMallocHost) succeed, the ones
 * after fail with cudaErrorMemoryAllocation; n < 0: none fails (the start). */
void sv_emu_fail_allocations_after(int n);
/* Allocations made and not yet freed. */
long sv_emu_live_allocations(void);
/* The compute capability (major) the stand-in device reports: 9 at the
 * start, so that cuda_fused launches early (kernels/sv_early_launch.cuh);
 * and the one its kernels' code was built for (cudaFuncGetAttributes's
 * ptxVersion): the device's, unless set (0: the device's again). */
void sv_emu_set_compute_capability(int major);
void sv_emu_set_code_capability(int major);
int sv_emu_code_capability(void);
/* Launches through cudaLaunchKernelEx so far, early ones (early != 0) or
 * ordinary ones; sv_emu_count_launch adds one. */
long sv_emu_launches(int early);
void sv_emu_count_launch(int early);

#ifdef __cplusplus
}
#endif

#endif
