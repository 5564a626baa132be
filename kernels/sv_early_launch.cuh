/* sv_early_launch.cuh: programmatic dependent launch (compute capability
 * 9.0 and later), for cuda_fused's kernels.
 *
 * A small kernel in a decode loop can spend as long being launched as
 * running: its blocks are scheduled only once the kernel before it in the
 * stream has finished. Launched "early" (launch_early with early = true),
 * a kernel's blocks may be scheduled while the one before still runs; each
 * block then waits at early_launch_wait() until that kernel has finished
 * and its writes are visible, so the launch latency overlaps the other
 * kernel's tail. Every kernel that may be launched early must therefore
 * call early_launch_wait() before it touches global memory (its parameters
 * are not global memory).
 *
 * early_launch_release() lets the next kernel in the stream be scheduled
 * before this one ends. It promises nothing about this kernel's writes:
 * a next kernel that reads them waits for this one to finish, as above,
 * and one launched the ordinary way waits anyway.
 *
 * Both are no-ops on a kernel launched the ordinary way, and compiled to
 * nothing below compute capability 9.0, where the instructions do not
 * exist. Code built for sm_80 alone has no wait even when an H100 runs it
 * (compiled there from compute_80 PTX), so whether a kernel may be
 * launched early is asked of its binary (can_launch_early), not of the
 * device. */
#ifndef SV_EARLY_LAUNCH_CUH
#define SV_EARLY_LAUNCH_CUH

#include <cuda_runtime.h>

__device__ __forceinline__ static void early_launch_wait(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ static void early_launch_release(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/* Whether `kernel` has the wait: its code was compiled for compute
 * capability 9.0 or later (PTX of compute_90 or later). */
template <typename... Params>
static cudaError_t can_launch_early(void (*kernel)(Params...), bool *can)
{
    cudaFuncAttributes fa;
    const cudaError_t e = cudaFuncGetAttributes(&fa, kernel);
    *can = e == cudaSuccess && fa.ptxVersion >= 90;
    return e;
}

/* kernel<<<grid, block, 0, stream>>>(args...), early or not; returns the
 * launch's error, or the one pending before it. */
template <typename... Params, typename... Args>
static cudaError_t launch_early(bool early, dim3 grid, dim3 block, cudaStream_t stream,
                                void (*kernel)(Params...), Args... args)
{
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = 0;
    config.stream = stream;
    config.attrs = attr;
    config.numAttrs = early ? 1 : 0;
    const cudaError_t e = cudaLaunchKernelEx(&config, kernel, args...);
    const cudaError_t last = cudaGetLastError(); /* and clears it */
    return e != cudaSuccess ? e : last;
}

#endif
