/* logits_stats.cu: cuda_fused's logits kernel 1 of 3 (cuda_fused_logits.cu
 * says the method): every row once, its argmax (T = 0) or its largest
 * exponent and the sum of its weights, over equal ranges of the rows laid
 * end to end, the last piece of a row to arrive combining the row. */
#include <cuda_runtime.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include "sv_logits.cuh"

/* ---- 1. stats_kernel: argmax, or the largest exponent and the sum ------------- */

/* A running summary of a slice: for T = 0 the largest logit and its first
 * index (a < 0: nothing yet); for T > 0 the largest exponent e and the sum
 * s of the weights against it. */
struct msa {
    double s;
    int32_t e;
    float m;
    int32_t a;
};

/* The sum taken against exponent n once n exceeds x's: exact, a power of two. */
__device__ __forceinline__ static void msa_raise(msa &x, int32_t n)
{
    if (n > x.e) {
        x.s = ldexp(x.s, x.e - n);
        x.e = n;
    }
}

template <bool WEIGH>
__device__ __forceinline__ static void msa_add(msa &x, float l, int32_t i,
                                               const sv_softmax_scale &sc)
{
    if (!WEIGH) { /* a thread sees its tokens in increasing order: > keeps the first */
        if (x.a < 0 || l > x.m)
            x.m = l, x.a = i;
        return;
    }
    float f;
    const int32_t n = sv_softmax_split(l, sc, &f); /* SV_SOFTMAX_VOID: weighs 0 */
    msa_raise(x, n);
    x.s += (double)sv_softmax_scaled(f, n, x.e);
}

/* Eight logits at once (T > 0): one test of the running exponent for all,
 * and their weights summed as a tree before they join the sum (any order of
 * the double additions is the method's, sv_softmax.h). -0 weighs as +0. */
__device__ __forceinline__ static void msa_add8(msa &x, const float l[8],
                                               const sv_softmax_scale &sc)
{
    float f[8];
    int32_t n[8];
    sv_softmax_split4(l, sc, n, f);
    sv_softmax_split4(l + 4, sc, n + 4, f + 4);
    const int32_t top = max(max(max(n[0], n[1]), max(n[2], n[3])),
                            max(max(n[4], n[5]), max(n[6], n[7])));
    msa_raise(x, top);
    double w[8];
#pragma unroll
    for (int j = 0; j < 8; j++)
        w[j] = (double)sv_softmax_scaled(f[j], n[j], x.e);
    x.s += ((w[0] + w[1]) + (w[2] + w[3])) + ((w[4] + w[5]) + (w[6] + w[7]));
}

template <bool WEIGH> __device__ __forceinline__ static void msa_merge(msa &x, const msa &y)
{
    if (WEIGH) {
        const int32_t e = max(x.e, y.e);
        x.s = ldexp(x.s, x.e - e) + ldexp(y.s, y.e - e);
        x.e = e;
        return;
    }
    if (y.a < 0)
        return;
    if (x.a < 0) {
        x = y;
        return;
    }
    x.a = y.m > x.m ? y.a : x.m > y.m ? x.a : min(x.a, y.a);
    x.m = fmaxf(x.m, y.m);
}

__device__ __forceinline__ static msa msa_shfl_down(const msa &x, int off)
{
    return {__shfl_down_sync(0xffffffffu, x.s, off), __shfl_down_sync(0xffffffffu, x.e, off),
            __shfl_down_sync(0xffffffffu, x.m, off), __shfl_down_sync(0xffffffffu, x.a, off)};
}

/* The block's merge of every thread's x; valid in thread 0. */
template <bool WEIGH> __device__ static msa block_msa(msa x)
{
    __shared__ msa warp_part[MAX_WARPS];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    for (int off = 16; off > 0; off >>= 1)
        msa_merge<WEIGH>(x, msa_shfl_down(x, off));
    if (lane == 0)
        warp_part[warp] = x;
    __syncthreads();
    if (warp == 0) {
        x = lane < (int)(blockDim.x / 32) ? warp_part[lane]
                                          : msa{0.0, SV_SOFTMAX_NO_EXPONENT, 0.0f, -1};
        for (int off = 16; off > 0; off >>= 1)
            msa_merge<WEIGH>(x, msa_shfl_down(x, off));
    }
    __syncthreads(); /* warp_part may be used again */
    return x;
}



/* Tokens [lo, hi) of row into this thread's x (greedy: the first largest
 * logit; else the weights' sum): a scalar head up to the first 16-byte
 * boundary, then 8 logits a thread a step, each step's loads issued a step
 * ahead so that they are in flight while the step before is summed, then a
 * scalar tail. Each thread sees its tokens in increasing order. */
template <typename LT, bool WEIGH>
__device__ static void piece_msa(msa &x, const LT *row, int32_t lo, int32_t hi,
                                 const sv_softmax_scale &sc)
{
    constexpr int32_t per_load = 16 / (int32_t)sizeof(LT);
    const int32_t t = (int32_t)threadIdx.x, step = 8 * (int32_t)blockDim.x;
    const int32_t misaligned = (int32_t)((reinterpret_cast<uintptr_t>(row + lo) / sizeof(LT)) %
                                         (uintptr_t)per_load);
    const int32_t body_lo = min(hi, lo + (per_load - misaligned) % per_load);
    const int32_t body_end = body_lo + (hi - body_lo) / 8 * 8;
    auto add1 = [&](int32_t i) { msa_add<WEIGH>(x, canon(to_float(row[i])), i, sc); };
    if (lo + t < body_lo)
        add1(lo + t);
    int32_t i0 = body_lo + 8 * t;
    logits8<LT> ahead = {};
    if (i0 < body_end)
        ahead = load8(row + i0);
    for (; i0 < body_end; i0 += step) {
        const logits8<LT> now = ahead;
        if (i0 + step < body_end)
            ahead = load8(row + i0 + step);
        float v[8];
        unpack8(now, v);
        if (WEIGH) {
            msa_add8(x, v, sc);
        } else {
#pragma unroll
            for (int j = 0; j < 8; j++)
                msa_add<false>(x, canon(v[j]), i0 + j, sc);
        }
    }
    for (int32_t i = body_end + t; i < hi; i += (int32_t)blockDim.x)
        add1(i);
}

/* The batch's rows laid end to end, n_rows x V logits, are cut into
 * gridDim.x ranges of (nearly) equal length, one a block, so that every SM
 * gets the same share of the work at any batch size (a block a row left a
 * third of the GPU idle at B = 64: 704 rows over 1056 block slots, 5 or 6
 * a SM). Block j takes [start(j), start(j + 1)), start(j) = j T / G for T
 * logits and G blocks; the block holding logit x is ((x + 1) G - 1) / T. */
__device__ __forceinline__ static int64_t range_start(int64_t j, int64_t total, int64_t blocks)
{
    return j * total / blocks;
}

__device__ __forceinline__ static int64_t block_holding(int64_t x, int64_t total, int64_t blocks)
{
    return ((x + 1) * blocks - 1) / total;
}

/* A block's range meets one row or several: each meeting is a piece. The
 * block sums its pieces one after the other and publishes each at j + r
 * (block j, row r: distinct for distinct pieces, since a later block never
 * meets an earlier row); the last piece of a row to arrive (an arrival
 * counter) combines the row's pieces, those of the blocks holding its first
 * to its last logit, and re-arms the counter.
 * Without per-sequence data (RAGGED false) every row is row_of's and
 * weighs by the batch's rule (WEIGH: T > 0); with it, ragged_row's, by its
 * sequence's rule (s.rules; WEIGH unused), a branch the whole block takes
 * (one row a piece). */
template <typename LT, bool WEIGH, bool RAGGED>
__global__ static void __launch_bounds__(LG_THREADS, STATS_BLOCKS_PER_SM)
    stats_kernel(row_args a, sv_cuda_seqs s)
{
    early_launch_wait(); /* the kernel before has written our inputs */
    early_launch_release();
    if (RAGGED && !s.info->ok)
        return; /* the prep kernel found a value out of range and set *bad */
    /* RAGGED: the rows the prep kernel counted (a.n_rows bounds them: the grid) */
    const int64_t V = a.V, total = (int64_t)(RAGGED ? s.info->n_rows : a.n_rows) * V;
    const int64_t blocks = gridDim.x, j = blockIdx.x;
    const int64_t end = range_start(j + 1, total, blocks);
    sv_softmax_scale sc = a.wg.scale;
    for (int64_t x = range_start(j, total, blocks); x < end;) {
        const int32_t r = (int32_t)(x / V);
        const int32_t lo = (int32_t)(x - r * V), hi = (int32_t)min(V, end - r * V);
        bool weigh = WEIGH;
        const LT *row = nullptr;
        if (RAGGED) {
            int32_t seq;
            row = ragged_row<LT>(a, s, r, &seq);
            weigh = !s.rules[seq].greedy;
            sc = s.rules[seq].scale;
        }
        msa mine = {0.0, SV_SOFTMAX_NO_EXPONENT, 0.0f, -1};
        if (weigh) {
            piece_msa<LT, true>(mine, RAGGED ? row : row_of<LT>(a, r), lo, hi, sc);
            mine = block_msa<true>(mine);
        } else {
            piece_msa<LT, false>(mine, RAGGED ? row : row_of<LT>(a, r), lo, hi, sc);
            mine = block_msa<false>(mine);
        }
        x = r * V + hi;

        /* publish; the last piece of row r to arrive combines */
        const int64_t first = block_holding(r * V, total, blocks);
        const int64_t last_block = block_holding(r * V + V - 1, total, blocks);
        __shared__ bool last;
        if (threadIdx.x == 0) {
            a.partials[j + r] = mine;
            arrival_fence(); /* release (sv_race.cuh) */
            last = atomicAdd(&a.arrivals[r], 1u) == (unsigned)(last_block - first);
        }
        __syncthreads();
        if (!last)
            continue;
        arrival_fence(); /* acquire */
        msa all = {0.0, SV_SOFTMAX_NO_EXPONENT, 0.0f, -1};
        for (int64_t b = first + threadIdx.x; b <= last_block; b += blockDim.x) {
            /* other blocks wrote these: read past L1 (__ldcg), where nothing stale may sit */
            const msa *p = a.partials + b + r;
            const msa part = {__ldcg(&p->s), __ldcg(&p->e), __ldcg(&p->m), __ldcg(&p->a)};
            if (weigh)
                msa_merge<true>(all, part);
            else
                msa_merge<false>(all, part);
        }
        all = weigh ? block_msa<true>(all) : block_msa<false>(all);
        if (threadIdx.x == 0) {
            row_stats st;
            st.argmax = all.a;
            st.N = all.e;
            st.R = weigh ? sv_softmax_reciprocal(all.s) : 1.0; /* cut_kernel's when it runs */
            st.thr_key = 0u;              /* everything kept */
            st.thr_i = INT32_MAX;
            a.stats[r] = st;
            a.arrivals[r] = 0; /* re-armed for the next launch */
        }
    }
}

namespace SV_LOGITS_NS {
template <typename LT>
cudaError_t stats_launch(bool early, int32_t blocks, cudaStream_t stream, const row_args &a,
                         bool weigh, const sv_cuda_seqs *seqs)
{
    void (*const kernel)(row_args, sv_cuda_seqs) = seqs->cu ? stats_kernel<LT, false, true>
                                                   : weigh  ? stats_kernel<LT, true, false>
                                                            : stats_kernel<LT, false, false>;
    return launch_early(early, dim3((unsigned)blocks), dim3(LG_THREADS), stream, kernel, a,
                        *seqs);
}
template cudaError_t stats_launch<float>(bool, int32_t, cudaStream_t, const row_args &, bool,
                                         const sv_cuda_seqs *);
template cudaError_t stats_launch<uint16_t>(bool, int32_t, cudaStream_t, const row_args &, bool,
                                            const sv_cuda_seqs *);

cudaError_t stats_occupancy(int *blocks)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, stats_kernel<float, true, false>,
                                                         LG_THREADS, 0);
}

size_t msa_bytes(void)
{
    return sizeof(msa);
}
} // namespace SV_LOGITS_NS
