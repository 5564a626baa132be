/* sglang_tree_plugin.cu: SGLang's tree kernel
 * (sgl-kernel/csrc/speculative/speculative_sampling.cuh,
 * TreeSpeculativeSamplingTargetOnly, header-only over FlashInfer's
 * sampling.cuh) as a specverify plugin of rule tree_target_only (issue 38),
 * so that specverify verifies SGLang's own CUDA code on the tree suite and
 * times it beside cuda_tree_target_only_naive. Built against checkouts of
 * SGLang and of the FlashInfer commit sgl-kernel pins, by
 * tools/sglang_plugin.sh; nothing of either is in this repository.
 *
 * The contract's tree batch (sv_sampler.h, "Trees of drafts") becomes the
 * kernel's arguments, one sequence a block, N = K + 1 rows a sequence:
 *   candidates[b][i]     node i's token (node 0, the root, 0: never read)
 *   retrieve_index[b][i] b N + i, the row of predicts node i writes
 *   retrieve_next_token, retrieve_next_sibling: the first child and the
 *                        next sibling of node i, from parents (-1: none)
 *   uniform_samples[b][i]  node i's coin: the harness's uniform at
 *                        (seeds[b], indices[b], i, ACCEPT) on torch.rand's
 *                        float32 grid (sv_engine_rng.h; 0 included, as
 *                        SGLang's caller draws them with torch.rand)
 *   uniform_samples_for_final_sampling[b]: (.., 0, FINAL), the same grid
 *   target_probs [B][N][V]: the batch's target rows (gathered where the
 *                        batch's stride is not N V)
 *   draft_probs  [B][N][V]: zeros the kernel writes into (its scratch)
 * and back: n = accept_token_num[b], y_{k+1} = predicts[accept_index[b][k]]
 * for k = 0..n, the path accept_index[b][1..n] - b N. These are the same
 * as python/specverify/_views.py's sglang() (batch.sglang_view()). */
#include <cstdint>
#include <cstdio>
#include <new>
#include "speculative/speculative_sampling.cuh"
#include "sv_sampler.h"
#include "cuda_plugin_common.cuh"

/* sglang_tree_args.cu: each sequence's tree as the kernel's linked lists, its
 * tokens and its coins (apart: its Philox, Random123's, and curand's, which
 * FlashInfer's header brings, cannot share a translation unit). */
void sg_tree_arguments(const sv_batch &bt, int64_t N, int64_t *candidates, int64_t *retrieve,
                       int64_t *next_token, int64_t *next_sibling, float *coins,
                       float *final_coins, cudaStream_t stream);

namespace {

using sv_plugin_common::gather_rows;
using sv_plugin_common::say;

struct state {
    float *target = nullptr, *draft = nullptr, *coins = nullptr, *final_coins = nullptr;
    int64_t *links = nullptr; /* candidates, retrieve_index, next_token, next_sibling */
    int32_t *predicts = nullptr, *accept_index = nullptr, *accept_num = nullptr;
    size_t rows_cap = 0, seqs_cap = 0, nodes_cap = 0;
};

/* The kernel's outputs as the contract's: tokens, depth and path. */
__global__ void contract_outputs(const sv_batch bt, int64_t N, const int32_t *predicts,
                                 const int32_t *accept_index, const int32_t *accept_num)
{
    const int32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= bt.B)
        return;
    const int32_t n = accept_num[b];
    const int64_t slots = (int64_t)bt.K + 1, base = (int64_t)b * slots;
    bt.out_accepted[b] = n;
    for (int64_t k = 0; k < slots; k++) {
        const bool emitted = k <= n;
        bt.out_tokens[base + k] = emitted ? predicts[accept_index[(int64_t)b * N + k]] : -1;
        bt.out_path[base + k] = k < n ? (int32_t)(accept_index[(int64_t)b * N + k + 1] -
                                                  (int64_t)b * N)
                                      : -1;
    }
}

/* Frees bufs[0..n) and gives each sizes[i] * need bytes; 0, or -1 (all NULL). */
int regrow(void **bufs[], const size_t *sizes, int n, size_t need)
{
    int ok = 1;
    for (int i = 0; i < n; i++) {
        cudaFree(*bufs[i]);
        *bufs[i] = nullptr;
    }
    for (int i = 0; i < n && ok; i++)
        ok = cudaMalloc(bufs[i], sizes[i] * need) == cudaSuccess;
    if (!ok)
        for (int i = 0; i < n; i++) {
            cudaFree(*bufs[i]);
            *bufs[i] = nullptr;
        }
    return ok ? 0 : -1;
}

/* Every buffer sized for B sequences of N rows of V: SV_SAMPLER_OK or ENOMEM. */
int reserve(state *s, int64_t B, int64_t N, int64_t V)
{
    const size_t rows = (size_t)(B * N * V), nodes = (size_t)(B * N), seqs = (size_t)B;
    if (rows > s->rows_cap) {
        void **bufs[] = {(void **)&s->target, (void **)&s->draft};
        const size_t sizes[] = {sizeof(float), sizeof(float)};
        s->rows_cap = regrow(bufs, sizes, 2, rows) == 0 ? rows : 0;
        if (!s->rows_cap)
            return SV_SAMPLER_ENOMEM;
    }
    if (nodes > s->nodes_cap) {
        void **bufs[] = {(void **)&s->links, (void **)&s->coins, (void **)&s->predicts,
                         (void **)&s->accept_index};
        const size_t sizes[] = {4 * sizeof(int64_t), sizeof(float), sizeof(int32_t),
                                sizeof(int32_t)};
        s->nodes_cap = regrow(bufs, sizes, 4, nodes) == 0 ? nodes : 0;
        if (!s->nodes_cap)
            return SV_SAMPLER_ENOMEM;
    }
    if (seqs > s->seqs_cap) {
        void **bufs[] = {(void **)&s->final_coins, (void **)&s->accept_num};
        const size_t sizes[] = {sizeof(float), sizeof(int32_t)};
        s->seqs_cap = regrow(bufs, sizes, 2, seqs) == 0 ? seqs : 0;
        if (!s->seqs_cap)
            return SV_SAMPLER_ENOMEM;
    }
    return SV_SAMPLER_OK;
}

void sg_destroy(void *p)
{
    state *s = static_cast<state *>(p);
    if (!s)
        return;
    for (void *q : {(void *)s->target, (void *)s->draft, (void *)s->coins,
                    (void *)s->final_coins, (void *)s->links, (void *)s->predicts,
                    (void *)s->accept_index, (void *)s->accept_num})
        cudaFree(q);
    delete s;
}

int sg_verify(void *p, const sv_batch *bt)
{
    state *s = static_cast<state *>(p);
    const int64_t B = bt->B, K = bt->K, V = bt->V, N = K + 1;
    if (B == 0)
        return SV_SAMPLER_OK;
    if (bt->input != SV_INPUT_PROBS || !bt->parents || !bt->out_path || N > SV_MAX_K + 1)
        return SV_SAMPLER_EINVAL;
    cudaStream_t stream = static_cast<cudaStream_t>(bt->stream);
    int rc = reserve(s, B, N, V);
    if (rc != SV_SAMPLER_OK)
        return rc;
    float *target = const_cast<float *>(bt->target);
    if (bt->target_stride != N * V) { /* the kernel indexes rows as [B][N][V] */
        gather_rows<<<1024, 256, 0, stream>>>(s->target, bt->target, bt->target_stride, N * V,
                                              B * N * V);
        target = s->target;
    }
    cudaMemsetAsync(s->draft, 0, (size_t)(B * N * V) * sizeof(float), stream);
    int64_t *candidates = s->links, *retrieve = s->links + B * N,
            *next_token = s->links + 2 * B * N, *next_sibling = s->links + 3 * B * N;
    sg_tree_arguments(*bt, N, candidates, retrieve, next_token, next_sibling, s->coins,
                      s->final_coins, stream);
    cudaError_t e = flashinfer::sampling::TreeSpeculativeSamplingTargetOnly<float, int32_t,
                                                                           int64_t>(
        s->predicts, s->accept_index, s->accept_num, candidates, retrieve, next_token,
        next_sibling, s->coins, s->final_coins, target, s->draft, (uint32_t)B,
        /*num_speculative_tokens=*/(uint32_t)N, /*num_draft_tokens=*/(uint32_t)N,
        (uint32_t)V, /*threshold_single=*/1.0f, /*threshold_acc=*/1.0f,
        /*deterministic=*/true, stream);
    if (e != cudaSuccess)
        return say(bt, "sglang TreeSpeculativeSamplingTargetOnly", e);
    contract_outputs<<<(unsigned)((B + 127) / 128), 128, 0, stream>>>(*bt, N, s->predicts, s->accept_index,
                                                 s->accept_num);
    e = cudaGetLastError();
    return e == cudaSuccess ? SV_SAMPLER_OK : say(bt, "sglang_tree_target_only", e);
}

const sv_sampler samplers[] = {
    {"sglang_tree_target_only",
     "SGLang's TreeSpeculativeSamplingTargetOnly (sgl-kernel header, a user's checkout)",
     SV_MEM_CUDA, sv_plugin_common::make_state<state>, sg_verify, sg_destroy, 0,
     SV_LAYOUT_BIT(SV_LAYOUT_PADDED),
     SV_RULE_TREE_TARGET_ONLY},
};
const sv_plugin plugin = {SV_CONTRACT_VERSION, 1, samplers};

} // namespace

extern "C" SV_PLUGIN_EXPORT const sv_plugin *sv_plugin_get(void) { return &plugin; }
