/* cuda_plugin_common.cuh: what the example CUDA plugins that wrap another
 * project's kernel (flashinfer_plugin.cu, sglang_tree_plugin.cu) share:
 * rows gathered back to back for a kernel that indexes them densely, a
 * state made at init, and a failed CUDA call's words in the batch's message. */
#ifndef SV_CUDA_PLUGIN_COMMON_CUH
#define SV_CUDA_PLUGIN_COMMON_CUH

#include <cstdio>
#include <new>
#include <cuda_runtime.h>
#include "sv_sampler.h"

namespace sv_plugin_common {

/* dst[b][i] = src[b * stride + i] for i < width: rows back to back */
__global__ void gather_rows(float *dst, const float *src, int64_t stride, int64_t width,
                            int64_t total)
{
    for (int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; j < total;
         j += (int64_t)gridDim.x * blockDim.x) {
        const int64_t b = j / width, i = j - b * width;
        dst[j] = src[b * stride + i];
    }
}

/* init: a fresh State; its buffers grow to the batches given */
template <typename State> int make_state(void **out, const sv_limits *limits)
{
    (void)limits;
    *out = new (std::nothrow) State;
    return *out ? SV_SAMPLER_OK : SV_SAMPLER_ENOMEM;
}

/* "what: CUDA's words" into the batch's message; SV_SAMPLER_EDEVICE */
inline int say(const sv_batch *bt, const char *what, cudaError_t e)
{
    if (bt->message && bt->message_len > 0)
        snprintf(bt->message, (size_t)bt->message_len, "%s: %s", what, cudaGetErrorString(e));
    return SV_SAMPLER_EDEVICE;
}

} // namespace sv_plugin_common

#endif
