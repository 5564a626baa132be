/* logits_cut.cu: cuda_fused's logits kernel 2 of 3 (cuda_fused_logits.cu
 * says the method): top-k and top-p thresholds, one block per row, by radix
 * selects on an orderable key; then the kept weights' sum. Runs only when a
 * cut cuts something. */
#include <cuda_runtime.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include "sv_logits.cuh"

/* ---- 2. cut_kernel: top-k and top-p thresholds, one block per row -------------- */

/* The block's sum of every thread's x; valid in every thread. */
__device__ static double block_sum(double x)
{
    __shared__ double warp_part[MAX_WARPS];
    __shared__ double total;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    for (int off = 16; off > 0; off >>= 1)
        x += __shfl_down_sync(0xffffffffu, x, off);
    if (lane == 0)
        warp_part[warp] = x;
    __syncthreads();
    if (warp == 0) {
        x = lane < (int)(blockDim.x / 32) ? warp_part[lane] : 0.0;
        for (int off = 16; off > 0; off >>= 1)
            x += __shfl_down_sync(0xffffffffu, x, off);
        if (lane == 0)
            total = x;
    }
    __syncthreads();
    x = total;
    __syncthreads();
    return x;
}

struct radix_hist {
    unsigned count[256];
    double weight[256];
};

/* Histogram of key bits [shift, shift + 8) over the tokens of the kept
 * prefix (thr_key, thr_i) whose key matches `prefix` under `mask`; with
 * their weights when weighted. Leaves h complete in every thread. */
template <typename LT>
__device__ static void radix_pass(const LT *row, int32_t V, uint32_t thr_key, int32_t thr_i,
                                  uint32_t prefix, uint32_t mask, int shift, bool weighted,
                                  const sv_softmax_scale &sc, int32_t N, radix_hist &h)
{
    for (int j = threadIdx.x; j < 256; j += blockDim.x) {
        h.count[j] = 0u;
        h.weight[j] = 0.0;
    }
    __syncthreads();
    for_slice(row, 0, V, [&](int32_t i, float l) {
        const uint32_t key = order_key(l);
        if ((key & mask) != prefix || !in_prefix(key, i, thr_key, thr_i))
            return;
        const uint32_t bin = (key >> shift) & 255u;
        atomicAdd(&h.count[bin], 1u);
        if (weighted)
            atomicAdd(&h.weight[bin], (double)sv_softmax_weight(l, sc, N));
    });
    __syncthreads();
}

/* The index of the m-th (from 1) token, in index order, with key v inside
 * the prefix (thr_key, thr_i); -1 if there are fewer. Every thread gets it. */
template <typename LT>
__device__ static int32_t nth_tie(const LT *row, int32_t V, uint32_t v, uint32_t thr_key,
                                  int32_t thr_i, int64_t m)
{
    __shared__ unsigned warp_count[MAX_WARPS];
    __shared__ int32_t found;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
    if (threadIdx.x == 0)
        found = -1;
    int64_t seen = 0; /* the same in every thread */
    for (int32_t t0 = 0; t0 < V && seen < m; t0 += (int32_t)blockDim.x) {
        const int32_t i = t0 + (int32_t)threadIdx.x;
        bool tie = false;
        if (i < V) {
            const uint32_t key = order_key(canon(to_float(row[i])));
            tie = key == v && in_prefix(key, i, thr_key, thr_i);
        }
        const unsigned ballot = __ballot_sync(0xffffffffu, tie);
        if (lane == 0)
            warp_count[warp] = __popc(ballot);
        __syncthreads();
        int64_t before = 0, tile = 0;
        for (int w = 0; w < warps; w++) {
            before += w < warp ? warp_count[w] : 0u;
            tile += warp_count[w];
        }
        if (tie && seen + before + __popc(ballot & ((1u << lane) - 1u)) + 1 == m)
            found = i;
        seen += tile;
        __syncthreads(); /* warp_count is rewritten by the next tile */
    }
    __syncthreads();
    const int32_t result = found;
    __syncthreads(); /* every thread has read found before a next call resets it */
    return result;
}

/* Row r's kept prefix (top_k, top_p) and the sum of its weights. Without
 * per-sequence data (RAGGED false) every row by the batch's rule; with it,
 * row r (ragged_row) by its sequence's, if that cuts (the stats kernel's
 * summary stands for a row that is not cut). */
template <typename LT, bool RAGGED>
__global__ static void __launch_bounds__(CUT_THREADS)
    cut_kernel(row_args a, int32_t top_k, double top_p, sv_cuda_seqs s)
{
    early_launch_wait(); /* stats_kernel has finished */
    early_launch_release();
    __shared__ radix_hist h;
    __shared__ int32_t pick_bin;
    __shared__ int64_t pick_rest;
    __shared__ double pick_above;
    const int32_t r = (int32_t)blockIdx.x, V = a.V;
    const LT *row;
    sv_softmax_scale sc = a.wg.scale;
    if (RAGGED) {
        if (!s.info->ok || r >= s.info->n_rows)
            return; /* a value out of range (*bad is set), or a row past the batch's */
        int32_t seq;
        row = ragged_row<LT>(a, s, r, &seq);
        const sv_seq_rule rule = s.rules[seq];
        if (!rule.cut)
            return;
        top_k = rule.top_k;
        top_p = rule.top_p;
        sc = rule.scale;
    } else {
        row = row_of<LT>(a, r);
    }
    const int32_t N = a.stats[r].N; /* stats_kernel's, finished before this launch */
    uint32_t thr_key = 0u;              /* the kept prefix so far: everything */
    int32_t thr_i = INT32_MAX;

    if (top_k > 0 && top_k < V) {
        /* the top_k-th ranked token: its key v, then which of v's ties it is */
        uint32_t prefix = 0u, mask = 0u;
        int64_t rest = top_k; /* rank of the wanted token among those under prefix */
        for (int shift = 24; shift >= 0; shift -= 8) {
            radix_pass(row, V, 0u, INT32_MAX, prefix, mask, shift, false, sc, N, h);
            if (threadIdx.x == 0) {
                int bin = 255;
                for (; bin > 0 && (int64_t)h.count[bin] < rest; bin--)
                    rest -= h.count[bin];
                pick_bin = bin;
                pick_rest = rest;
            }
            __syncthreads();
            prefix |= (uint32_t)pick_bin << shift;
            mask |= 0xffu << shift;
            rest = pick_rest;
            __syncthreads();
        }
        const int32_t i = nth_tie(row, V, prefix, 0u, INT32_MAX, rest);
        thr_key = prefix;
        thr_i = i >= 0 ? i : INT32_MAX;
    }

    if (top_p < 1.0) {
        /* the weight of the top-k prefix, and the crossing point of top_p of it */
        double S = 0.0;
        for_slice(row, 0, V, [&](int32_t i, float l) {
            if (in_prefix(order_key(l), i, thr_key, thr_i))
                S += (double)sv_softmax_weight(l, sc, N);
        });
        const double target = top_p * block_sum(S);
        uint32_t prefix = 0u, mask = 0u;
        double above = 0.0; /* weight of the kept tokens ranked above the prefix's range */
        unsigned count_v = 1u;
        for (int shift = 24; shift >= 0; shift -= 8) {
            radix_pass(row, V, thr_key, thr_i, prefix, mask, shift, true, sc, N, h);
            if (threadIdx.x == 0) {
                int pick = -1, last = -1;
                double acc = above;
                for (int bin = 255; bin >= 0; bin--) {
                    if (h.count[bin] == 0u)
                        continue;
                    last = bin;
                    if (acc + h.weight[bin] >= target) {
                        pick = bin;
                        break;
                    }
                    acc += h.weight[bin];
                }
                if (pick < 0 && last >= 0) { /* rounding: the last kept token crosses */
                    pick = last;
                    acc -= h.weight[last];
                }
                pick_bin = pick < 0 ? 0 : pick;
                pick_above = acc;
                pick_rest = h.count[pick_bin];
            }
            __syncthreads();
            prefix |= (uint32_t)pick_bin << shift;
            mask |= 0xffu << shift;
            above = pick_above;
            count_v = (unsigned)pick_rest;
            __syncthreads();
        }
        /* ties of value v weigh the same: how many of them it takes to cross */
        const double w_v = (double)sv_softmax_weight(key_float(prefix), sc, N);
        int64_t t = count_v;
        if (w_v > 0.0 && count_v > 1u) {
            const double need = (target - above) / w_v;
            t = need <= 1.0 ? 1 : need >= (double)count_v ? (int64_t)count_v : (int64_t)ceil(need);
            while (t > 1 && above + (double)(t - 1) * w_v >= target)
                t--;
            while (t < (int64_t)count_v && above + (double)t * w_v < target)
                t++;
        }
        if (t < 1)
            t = 1;
        const int32_t i = nth_tie(row, V, prefix, thr_key, thr_i, t);
        if (i >= 0) {
            thr_key = prefix;
            thr_i = i;
        }
    }

    /* the kept weight, the denominator of every p_i */
    double sum = 0.0;
    for_slice(row, 0, V, [&](int32_t i, float l) {
        if (in_prefix(order_key(l), i, thr_key, thr_i))
            sum += (double)sv_softmax_weight(l, sc, N);
    });
    sum = block_sum(sum);
    if (threadIdx.x == 0) {
        a.stats[r].R = sv_softmax_reciprocal(sum);
        a.stats[r].thr_key = thr_key;
        a.stats[r].thr_i = thr_i;
    }
}

namespace SV_LOGITS_NS {
template <typename LT>
cudaError_t cut_launch(bool early, cudaStream_t stream, const row_args &a, int32_t top_k,
                       double top_p, const sv_cuda_seqs *seqs)
{
    return launch_early(early, dim3((unsigned)a.n_rows), dim3(CUT_THREADS), stream,
                        seqs->cu ? cut_kernel<LT, true> : cut_kernel<LT, false>, a, top_k, top_p,
                        *seqs);
}
template cudaError_t cut_launch<float>(bool, cudaStream_t, const row_args &, int32_t, double,
                                       const sv_cuda_seqs *);
template cudaError_t cut_launch<uint16_t>(bool, cudaStream_t, const row_args &, int32_t, double,
                                          const sv_cuda_seqs *);
} // namespace SV_LOGITS_NS
