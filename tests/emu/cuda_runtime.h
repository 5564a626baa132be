/* tests/emu/cuda_runtime.h: just enough of CUDA to run kernels/'s kernels
 * on the CPU, for tests on machines without a GPU.
 *
 * It stands in for the real <cuda_runtime.h> when a kernel source is
 * compiled as host C++ (the build first rewrites each `k<<<grid, block, smem,
 * stream>>>(args)` into `SV_EMU_LAUNCH(k, grid, block, smem, stream)(args)`).
 * A launch runs its blocks one after another, each block's threads as
 * coroutines (emu.cpp), so __syncthreads, warp shuffles, ballots and
 * reductions are real rendezvous of 32 or blockDim threads; __shared__
 * variables are statics, right because one block runs at a time. Device memory is host
 * memory. What this cannot show: the GPU's memory model, its scheduling, its
 * arithmetic (log and exp are the host's), and its speed. */
#ifndef SV_EMU_CUDA_RUNTIME_H
#define SV_EMU_CUDA_RUNTIME_H

#include <stdint.h>
#include <string.h>
#include <functional>
#include "cuda_runtime_api.h" /* the host calls, and cudaError_t */

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static
#define __launch_bounds__(...)

struct uint2 {
    unsigned x, y;
};
struct uint3 {
    unsigned x, y, z;
};
struct uint4 {
    unsigned x, y, z, w;
};
struct dim3 {
    unsigned x, y, z;
    dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
struct float4 {
    float x, y, z, w;
};

/* the running thread's coordinates */
extern uint3 threadIdx, blockIdx;
extern dim3 blockDim, gridDim;

/* ---- launches ---- */
/* Runs a launch now, or records it when a capture is open (graph.cpp). */
void sv_emu_run(dim3 grid, dim3 block, const std::function<void()> &body);
bool sv_emu_capture(const std::function<void()> &launch); /* false: none open */

template <typename Kernel> struct sv_emu_launch {
    Kernel kernel;
    dim3 grid, block;
    template <typename... Args> void operator()(Args... args) const
    {
        Kernel k = kernel;
        sv_emu_run(grid, block, [=]() { k(args...); });
    }
};
/* shared memory size and stream are taken and ignored: launches run in order */
template <typename Kernel>
sv_emu_launch<Kernel> sv_emu_bind(Kernel k, dim3 grid, dim3 block, size_t, cudaStream_t)
{
    return sv_emu_launch<Kernel>{k, grid, block};
}
#define SV_EMU_LAUNCH(kernel, grid, block, ...) \
    sv_emu_bind(kernel, dim3(grid), dim3(block), __VA_ARGS__)

/* cudaLaunchKernelEx with the one attribute kernels/ sets: programmatic
 * stream serialization (an early launch). It runs like any launch (in
 * order: the wait it allows for is already over); whether it was early is
 * counted, for the tests (sv_emu_launches). */
enum cudaLaunchAttributeID { cudaLaunchAttributeProgrammaticStreamSerialization = 6 };
struct cudaLaunchAttribute {
    cudaLaunchAttributeID id;
    struct {
        unsigned char programmaticStreamSerializationAllowed;
    } val;
};
struct cudaLaunchConfig_t {
    dim3 gridDim, blockDim;
    size_t dynamicSmemBytes;
    cudaStream_t stream;
    cudaLaunchAttribute *attrs;
    unsigned numAttrs;
};
template <typename... Params, typename... Args>
cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *config, void (*kernel)(Params...),
                               Args... args)
{
    int early = 0;
    for (unsigned a = 0; a < config->numAttrs; a++) {
        if (config->attrs[a].id != cudaLaunchAttributeProgrammaticStreamSerialization)
            return cudaErrorInvalidValue;
        early = config->attrs[a].val.programmaticStreamSerializationAllowed != 0;
    }
    sv_emu_count_launch(early);
    sv_emu_run(config->gridDim, config->blockDim, [=]() { kernel(args...); });
    return cudaSuccess;
}

/* a kernel's code: PTX of sv_emu_code_capability() */
struct cudaFuncAttributes {
    int ptxVersion, binaryVersion;
};
template <typename Kernel> static inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *fa,
                                                                           Kernel)
{
    fa->ptxVersion = fa->binaryVersion = 10 * sv_emu_code_capability();
    return cudaSuccess;
}

/* any occupancy will do: it only sizes the splits */
template <typename Kernel>
static inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, Kernel, int,
                                                                         size_t)
{
    *blocks = 4;
    return cudaSuccess;
}

/* ---- block and warp rendezvous (emu.cpp) ---- */
void __syncthreads(void);
uint64_t sv_emu_exchange(uint64_t mine, int op, unsigned arg); /* op: SV_EMU_* */
enum { SV_EMU_SHFL_DOWN, SV_EMU_BALLOT, SV_EMU_MIN };

template <typename T> static inline T __shfl_down_sync(unsigned, T v, unsigned off)
{
    static_assert(sizeof(T) <= 8, "8 bytes at most");
    uint64_t bits = 0;
    memcpy(&bits, &v, sizeof v);
    bits = sv_emu_exchange(bits, SV_EMU_SHFL_DOWN, off);
    memcpy(&v, &bits, sizeof v);
    return v;
}
static inline unsigned __ballot_sync(unsigned, int pred)
{
    return (unsigned)sv_emu_exchange(pred != 0, SV_EMU_BALLOT, 0);
}
static inline unsigned __reduce_min_sync(unsigned, unsigned v)
{
    return (unsigned)sv_emu_exchange(v, SV_EMU_MIN, 0);
}

/* ---- memory ---- */
void __threadfence(void);
unsigned atomicAdd(unsigned *p, unsigned v);
unsigned atomicMin(unsigned *p, unsigned v);
double atomicAdd(double *p, double v);
unsigned long long atomicAdd(unsigned long long *p, unsigned long long v);
unsigned atomicOr(unsigned *p, unsigned v);
template <typename T> static inline T __ldcg(const T *p)
{
    return *p;
}

/* ---- arithmetic ---- */
static inline float __uint_as_float(unsigned u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
static inline unsigned __float_as_uint(float f)
{
    unsigned u;
    memcpy(&u, &f, sizeof u);
    return u;
}
static inline int __popc(unsigned x)
{
    return __builtin_popcount(x);
}
static inline int __ffs(int x)
{
    return __builtin_ffs(x);
}
static inline int min(int a, int b)
{
    return a < b ? a : b;
}
static inline int max(int a, int b)
{
    return a > b ? a : b;
}

#endif
