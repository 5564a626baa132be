/* bench_hold.cu: a one-thread kernel that holds a stream until the host says
 * go, so that `specverify bench` can queue the start event, the timed launch
 * and the stop event behind it and time the GPU's work alone, not the
 * host's launch latency (the same device NVBench uses). */
#include <cuda_runtime.h>
#include "sv_cuda_kernels.h"

__global__ static void hold_kernel(const volatile int *go, long long max_cycles, int *timed_out)
{
    const long long start = clock64();
    while (*go == 0) {
        if (clock64() - start > max_cycles) {
            *timed_out = 1;
            return;
        }
    }
}

extern "C" int sv_bench_hold_launch(const volatile int *go, long long max_cycles,
                                    int *timed_out, void *stream)
{
    hold_kernel<<<1, 1, 0, (cudaStream_t)stream>>>(go, max_cycles, timed_out);
    return (int)cudaGetLastError();
}
