/* flashinfer_plugin.cu: FlashInfer's chain speculative sampling kernel
 * (include/flashinfer/sampling.cuh, header-only) as a specverify plugin, so
 * that specverify verifies real CUDA code nobody here wrote and times it
 * beside cuda_fused. Built against a FlashInfer checkout by
 * tools/flashinfer_plugin.sh; nothing of FlashInfer is in this repository.
 *
 * The sampler `flashinfer_chain` takes what FlashInfer's kernel takes:
 * probabilities, one K for the whole batch, rows [B][K+1][V] and [B][K][V]
 * back to back. So it is a version 2 sampler (layouts 0: the harness gives
 * it batches of one case, every sequence its own rows) and makes the rows
 * contiguous itself where the batch's strides are not (a stride of 0 in
 * uniform batches, say), and one-hot draft rows for a one-hot drafter.
 *
 * Randomness: FlashInfer draws with curand's Philox from one (seed, offset)
 * per launch, the row's place in the batch as the subsequence; it has no
 * per-sequence seed. Each launch here gets a seed of its own, mixed from the
 * batch's (seed, first index), so no two calls share numbers.
 *
 * Outputs: FlashInfer writes y_1..y_{n+1} then -1 into [B][K+1] itself; its
 * "emitted draft token" count is the contract's n (its "accepted" count also
 * counts drafts that would have passed after the first rejection, for
 * acceptance statistics). Both counters are added to, so they are zeroed
 * first. */
#include <cstdint>
#include <cstdlib>
#include <flashinfer/sampling.cuh>
#include "sv_sampler.h"
#include "cuda_plugin_common.cuh"

namespace {

using sv_plugin_common::gather_rows;
using sv_plugin_common::say;

struct state {
    float *target = nullptr, *draft = nullptr;
    int32_t *accepted = nullptr, *emitted = nullptr;
    size_t target_cap = 0, draft_cap = 0, counts_cap = 0;
};

/* one-hot draft rows: 1 at each draft token, 0 elsewhere (the buffer zeroed) */
__global__ void one_hot(float *dst, const int32_t *tokens, int32_t n, int32_t V)
{
    const int32_t j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < n && tokens[j] >= 0 && tokens[j] < V)
        dst[(int64_t)j * V + tokens[j]] = 1.0f;
}

int grow(float **buf, size_t *cap, size_t floats)
{
    if (floats <= *cap)
        return SV_SAMPLER_OK;
    cudaFree(*buf);
    *buf = nullptr;
    *cap = 0;
    if (cudaMalloc(buf, floats * sizeof(float)) != cudaSuccess)
        return SV_SAMPLER_ENOMEM;
    *cap = floats;
    return SV_SAMPLER_OK;
}

void fi_destroy(void *p)
{
    state *s = static_cast<state *>(p);
    if (!s)
        return;
    cudaFree(s->target);
    cudaFree(s->draft);
    cudaFree(s->accepted);
    cudaFree(s->emitted);
    delete s;
}

uint64_t mix(uint64_t seed, uint64_t index)
{
    uint64_t z = seed ^ (index * 0x9e3779b97f4a7c15ull) ^ 0xf1a5f1a5f1a5f1a5ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int fi_verify(void *p, const sv_batch *bt)
{
    state *s = static_cast<state *>(p);
    const int64_t B = bt->B, K = bt->K, V = bt->V;
    if (B == 0)
        return SV_SAMPLER_OK;
    if (bt->input != SV_INPUT_PROBS)
        return SV_SAMPLER_EINVAL;
    cudaStream_t stream = static_cast<cudaStream_t>(bt->stream);
    const int threads = 256, blocks = 1024;
    float *target = const_cast<float *>(bt->target), *draft = const_cast<float *>(bt->draft);
    int rc = SV_SAMPLER_OK;
    if (bt->target_stride != (K + 1) * V) { /* FlashInfer indexes rows as [B][K+1][V] */
        if ((rc = grow(&s->target, &s->target_cap, (size_t)(B * (K + 1) * V))) != SV_SAMPLER_OK)
            return rc;
        gather_rows<<<blocks, threads, 0, stream>>>(s->target, bt->target, bt->target_stride,
                                                     (K + 1) * V, B * (K + 1) * V);
        target = s->target;
    }
    if (K > 0 && (!draft || bt->draft_stride != K * V)) {
        if ((rc = grow(&s->draft, &s->draft_cap, (size_t)(B * K * V))) != SV_SAMPLER_OK)
            return rc;
        if (draft) {
            gather_rows<<<blocks, threads, 0, stream>>>(s->draft, bt->draft, bt->draft_stride,
                                                         K * V, B * K * V);
        } else {
            cudaMemsetAsync(s->draft, 0, (size_t)(B * K * V) * sizeof(float), stream);
            one_hot<<<(unsigned)((B * K + threads - 1) / threads), threads, 0, stream>>>(
                s->draft, bt->draft_tokens, (int32_t)(B * K), (int32_t)V);
        }
        draft = s->draft;
    }
    if ((size_t)B > s->counts_cap) {
        cudaFree(s->accepted);
        cudaFree(s->emitted);
        s->accepted = s->emitted = nullptr;
        s->counts_cap = 0;
        if (cudaMalloc(&s->accepted, (size_t)B * sizeof(int32_t)) != cudaSuccess ||
            cudaMalloc(&s->emitted, (size_t)B * sizeof(int32_t)) != cudaSuccess)
            return SV_SAMPLER_ENOMEM;
        s->counts_cap = (size_t)B;
    }
    cudaMemsetAsync(s->accepted, 0, (size_t)B * sizeof(int32_t), stream);
    cudaMemsetAsync(s->emitted, 0, (size_t)B * sizeof(int32_t), stream);
    cudaError_t e = flashinfer::sampling::ChainSpeculativeSampling<float, int32_t>(
        draft, const_cast<int32_t *>(bt->draft_tokens), target, bt->out_tokens, s->accepted,
        s->emitted, (uint32_t)B, (uint32_t)K, (uint32_t)V, /*deterministic=*/true,
        /*seed_arr=*/nullptr, mix(bt->seed, bt->first_index), /*offset_arr=*/nullptr,
        /*offset_val=*/0, stream);
    if (e != cudaSuccess)
        return say(bt, "flashinfer ChainSpeculativeSampling", e);
    e = cudaMemcpyAsync(bt->out_accepted, s->emitted, (size_t)B * sizeof(int32_t),
                        cudaMemcpyDeviceToDevice, stream);
    if (e == cudaSuccess)
        e = cudaGetLastError();
    return e == cudaSuccess ? SV_SAMPLER_OK : say(bt, "flashinfer_chain", e);
}

const sv_sampler samplers[] = {
    {"flashinfer_chain",
     "FlashInfer's ChainSpeculativeSampling (header-only kernel, a user's checkout)",
     SV_MEM_CUDA, sv_plugin_common::make_state<state>, fi_verify, fi_destroy, 0, 0,
     SV_RULE_CHAIN},
};
const sv_plugin plugin = {SV_CONTRACT_VERSION, 1, samplers};

} // namespace

extern "C" SV_PLUGIN_EXPORT const sv_plugin *sv_plugin_get(void) { return &plugin; }
