/* cuda_enqueue.c: which built-in CUDA sampler launches how, for bench. */
#include "sv_cuda_enqueue.h"
#include "sv_registry.h"

sv_cuda_enqueue_fn sv_cuda_enqueue_for(const sv_sampler *s)
{
    if (s == &sv_sampler_cuda_naive)
        return sv_cuda_naive_enqueue;
    if (s == &sv_sampler_cuda_fused || s == &sv_sampler_cuda_fused_shared_uniform)
        return sv_cuda_fused_enqueue;
    return NULL;
}
