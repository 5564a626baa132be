/* sglang_tree_args.cu: the arguments of SGLang's tree kernel that need the
 * harness's random numbers (sglang_tree_plugin.cu says what each is): kept
 * apart because specverify's Philox (Random123) and curand's, which
 * FlashInfer's sampling header includes, define the same names. */
#include <cstdint>
#include <cuda_runtime.h>
#include "sv_sampler.h"
#include "sv_philox.h"

namespace {

/* One thread a sequence: its tree as linked lists, its tokens, its coins. */
__global__ void tree_arguments(const sv_batch bt, int64_t N, int64_t *candidates,
                               int64_t *retrieve, int64_t *next_token, int64_t *next_sibling,
                               float *coins, float *final_coins)
{
    const int32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= bt.B)
        return;
    const int64_t row = (int64_t)b * N;
    const int32_t d = bt.num_drafts ? bt.num_drafts[b] : bt.K;
    const int64_t at = (int64_t)b * bt.K; /* padded layout: node k+1 at b K + k */
    const uint64_t seed = bt.seeds ? bt.seeds[b] : bt.seed;
    const uint64_t index = bt.indices ? bt.indices[b] : bt.first_index + (uint64_t)b;
    int32_t last_child[SV_MAX_K + 1];
    for (int64_t i = 0; i < N; i++) {
        candidates[row + i] = i == 0 || i > d ? 0 : bt.draft_tokens[at + i - 1];
        retrieve[row + i] = row + i;
        next_token[row + i] = next_sibling[row + i] = -1;
        last_child[i] = -1;
        coins[row + i] = sv_uniform_torch_f32(
            sv_philox_uniform(seed, index, (uint32_t)i, SV_PURPOSE_ACCEPT, 0));
    }
    for (int32_t k = 0; k < d; k++) { /* a node after its parent, siblings in order */
        const int32_t u = bt.parents[at + k], node = k + 1;
        if (last_child[u] < 0)
            next_token[row + u] = node;
        else
            next_sibling[row + last_child[u]] = node;
        last_child[u] = node;
    }
    final_coins[b] = sv_uniform_torch_f32(sv_philox_uniform(seed, index, 0, SV_PURPOSE_FINAL, 0));
}

} // namespace

void sg_tree_arguments(const sv_batch &bt, int64_t N, int64_t *candidates, int64_t *retrieve,
                       int64_t *next_token, int64_t *next_sibling, float *coins,
                       float *final_coins, cudaStream_t stream)
{
    tree_arguments<<<(unsigned)((bt.B + 127) / 128), 128, 0, stream>>>(
        bt, N, candidates, retrieve, next_token, next_sibling, coins, final_coins);
}
