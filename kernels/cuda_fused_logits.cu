/* cuda_fused_logits.cu: cuda_fused's logits input mode (SV_INPUT_LOGITS_F32,
 * SV_INPUT_LOGITS_BF16): p and q made from logits by sv_sampler.h's sampling
 * rules, then cuda_fused's accept chain and exponential race on them.
 *
 * The rules (distributions/logits.c, sv_logits_to_probs, states them
 * exactly): tokens ranked by logit, larger first, lower index first on ties;
 * T = 0 is one-hot at the first-ranked token; otherwise the first top_k
 * ranked tokens are kept, weighed w_i ~ exp(l_i / T), then the shortest
 * ranked prefix whose weight reaches top_p of theirs is kept (the crossing
 * token too), and p_i = w_i / (sum of kept w). The weights are sv_softmax.h's
 * float, base-2 ones, bit for bit what samplers/logits_rows.c (ref_logits)
 * computes, so after them the arithmetic is the probs kernel's: accept iff
 * u q < p in double, race over w = max((double)p_i - (double)q_i, 0) with the
 * same Philox numbers. The tokens are then samplers/ref_race.c's on
 * ref_logits's float rows, but where the GPU's sum (another order of the
 * double additions) moves a float rounding of some p_i.
 *
 * Because the kept set is a ranked prefix, one row is summed up by
 *     row_stats: the first-ranked token (T = 0), or the row's largest
 *                exponent N, a threshold (key, index) in rank order (kept <=>
 *                key > thr_key, or key == thr_key and i <= thr_i), and the
 *                sum S of the kept weights with R = 1 / S;
 * and then any p_i is one gathered logit and a few float operations: the
 * accept chain needs 2K of them, the race the row pair at the first
 * rejection (or the bonus row), as in probs mode.
 *
 * Three kernels, queued on the batch's stream, no host synchronization, so a
 * step can be captured in a CUDA graph (seed and first index may be read
 * from device memory `rng`; launched early, each waits for the kernel
 * before it, as fused_kernel does, sv_early_launch.cuh):
 *   1. stats_kernel: every row once (target rows, and draft rows when given;
 *      with a stride of 0 one row set): for T = 0 the argmax; else, with no
 *      cuts, N and S in one pass (a running largest exponent; the sum so far
 *      rescaled by an exact power of two when it grows). The rows, laid end
 *      to end, are cut into one equal range a block, so that every SM has
 *      the same work at any batch size; the last piece of a row to be summed
 *      (an arrival counter) combines the row's partial results and re-arms
 *      the counter.
 *   2. cut_kernel (only when top-k or top-p cuts something, T > 0): one block
 *      per row. Top-k: a radix select on an orderable 32-bit key of the
 *      float (4 passes of 8 bits, histograms in shared memory) finds the
 *      k-th ranked value and how many of its ties are inside, then one pass
 *      in index order finds the last tie inside. Top-p: the kept weight S,
 *      then 4 radix passes with weight histograms (double) find the value
 *      where the cumulative weight crosses top_p * S, the tie count that
 *      crosses it, and that tie's index. Last, the sum of the kept weights.
 *      Several passes over the row; these modes are not the bandwidth case.
 *   3. verify_kernel: fused_kernel's structure on p and q from logits.
 *
 * Logits are canonicalized on load: -0.0 becomes +0.0 (the twin compares
 * doubles, where -0 == +0, and breaks the tie by index). A bf16 logit is its
 * 16 bits shifted into a float's top half.
 */
#include <cuda_runtime.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include "sv_cuda_kernels.h"
#include "sv_early_launch.cuh"
#include "sv_philox.h"
#include "sv_race.cuh"
#include "sv_softmax.h"

#define LG_THREADS 256  /* stats_kernel and verify_kernel */
#define CUT_THREADS 512 /* cut_kernel: one block per row */
/* stats_kernel's blocks an SM holds: 48 registers, no spill on sm_90, for
 * float and bf16 alike (so that one occupancy stands for both), 40 KB of
 * float logits in flight an SM */
#define STATS_BLOCKS_PER_SM 5
/* verify_kernel's: 64 registers, no spill on sm_90, with a round of logits
 * in flight */
#define VERIFY_BLOCKS_PER_SM 4
#define MAX_WARPS 32

/* ---- logits: loading, canonical form, order key --------------------------------- */

__device__ __forceinline__ static float to_float(float x)
{
    return x;
}

__device__ __forceinline__ static float to_float(uint16_t x)
{
    return __uint_as_float((uint32_t)x << 16);
}

/* -0.0 -> +0.0: ranks as the twin ranks (doubles, -0 == +0). */
__device__ __forceinline__ static float canon(float l)
{
    return l == 0.0f ? 0.0f : l;
}

/* Four consecutive logits as loaded (a float4, or 4 bf16 in a uint2), from
 * an address aligned to four of them; unpack4 makes them floats. */
template <typename LT> struct logits4;
template <> struct logits4<float> {
    float4 v;
};
template <> struct logits4<uint16_t> {
    uint2 v;
};

__device__ __forceinline__ static logits4<float> load4(const float *p)
{
    return {*reinterpret_cast<const float4 *>(p)};
}

__device__ __forceinline__ static logits4<uint16_t> load4(const uint16_t *p)
{
    return {*reinterpret_cast<const uint2 *>(p)};
}

__device__ __forceinline__ static void unpack4(const logits4<float> &x, float v[4])
{
    v[0] = x.v.x, v[1] = x.v.y, v[2] = x.v.z, v[3] = x.v.w;
}

__device__ __forceinline__ static void unpack4(const logits4<uint16_t> &x, float v[4])
{
    /* little-endian: element 0 is low */
    v[0] = __uint_as_float(x.v.x << 16), v[1] = __uint_as_float(x.v.x & 0xffff0000u);
    v[2] = __uint_as_float(x.v.y << 16), v[3] = __uint_as_float(x.v.y & 0xffff0000u);
}

template <typename LT> __device__ __forceinline__ static void load4(const LT *p, float v[4])
{
    unpack4(load4(p), v);
}

/* Sixteen bytes of logits make a load: 4 floats or 8 bf16. A thread takes
 * 8 logits a step (two loads of floats, one of bf16). */
template <typename LT> struct logits8;
template <> struct logits8<float> {
    float4 a, b;
};
template <> struct logits8<uint16_t> {
    uint4 a;
};

/* The 8 logits at p, 16-byte aligned. */
__device__ __forceinline__ static logits8<float> load8(const float *p)
{
    return {reinterpret_cast<const float4 *>(p)[0], reinterpret_cast<const float4 *>(p)[1]};
}

__device__ __forceinline__ static logits8<uint16_t> load8(const uint16_t *p)
{
    return {*reinterpret_cast<const uint4 *>(p)};
}

__device__ __forceinline__ static void unpack8(const logits8<float> &x, float v[8])
{
    v[0] = x.a.x, v[1] = x.a.y, v[2] = x.a.z, v[3] = x.a.w;
    v[4] = x.b.x, v[5] = x.b.y, v[6] = x.b.z, v[7] = x.b.w;
}

__device__ __forceinline__ static void unpack8(const logits8<uint16_t> &x, float v[8])
{
    const uint32_t w[4] = {x.a.x, x.a.y, x.a.z, x.a.w}; /* little-endian: element 2j is low */
#pragma unroll
    for (int j = 0; j < 4; j++) {
        v[2 * j] = __uint_as_float(w[j] << 16);
        v[2 * j + 1] = __uint_as_float(w[j] & 0xffff0000u);
    }
}

template <typename LT> __device__ __forceinline__ static bool aligned4(const LT *p)
{
    return (reinterpret_cast<uintptr_t>(p) & (4 * sizeof(LT) - 1)) == 0;
}

/* An unsigned key with the float's order: larger float, larger key. */
__device__ __forceinline__ static uint32_t order_key(float l)
{
    uint32_t u = __float_as_uint(l);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

__device__ __forceinline__ static float key_float(uint32_t k)
{
    return __uint_as_float((k & 0x80000000u) ? (k & 0x7fffffffu) : ~k);
}

/* f(i, l) for every token i in [lo, hi) of row, l canonical, spread over the
 * block's threads (4 consecutive per thread, vector loads, where aligned),
 * each thread's tokens in increasing order. */
template <typename LT, typename F>
__device__ __forceinline__ static void for_slice(const LT *row, int32_t lo, int32_t hi, F &&f)
{
    const int32_t body_end = aligned4(row + lo) ? lo + ((hi - lo) & ~3) : lo;
    for (int32_t i0 = lo + 4 * (int32_t)threadIdx.x; i0 < body_end;
         i0 += 4 * (int32_t)blockDim.x) {
        float v[4];
        load4(row + i0, v);
#pragma unroll
        for (int j = 0; j < 4; j++)
            f(i0 + j, canon(v[j]));
    }
    for (int32_t i = body_end + (int32_t)threadIdx.x; i < hi; i += (int32_t)blockDim.x)
        f(i, canon(to_float(row[i])));
}

/* ---- one row's summary --------------------------------------------------------- */

struct row_stats {
    double R;         /* 1 / S, S the sum of the kept weights (sv_softmax.h): p_i = w_i R */
    int32_t N;        /* the row's largest exponent n_i */
    int32_t argmax;   /* the first-ranked token */
    uint32_t thr_key; /* kept <=> key > thr_key || (key == thr_key && i <= thr_i) */
    int32_t thr_i;
};

__device__ __forceinline__ static bool in_prefix(uint32_t key, int32_t i, uint32_t thr_key,
                                                 int32_t thr_i)
{
    return key > thr_key || (key == thr_key && i <= thr_i);
}

/* How a row's logits weigh: greedy (T = 0), or sv_softmax.h's weights, over
 * a kept prefix when top-k or top-p cut (else every token is kept). */
struct weighing {
    bool greedy, cut;
    sv_softmax_scale scale;
};

/* p_i as the twin (samplers/logits_rows.c) computes it, bit for bit. */
__device__ __forceinline__ static float prob_of(float l, int32_t i, const row_stats &st,
                                                const weighing &wg)
{
    if (wg.greedy)
        return i == st.argmax ? 1.0f : 0.0f;
    if (wg.cut && !in_prefix(order_key(l), i, st.thr_key, st.thr_i))
        return 0.0f;
    return sv_softmax_prob(sv_softmax_weight(l, wg.scale, st.N), st.R);
}

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

/* Row r of a launch: target rows first (sequence-major), then draft rows. */
struct row_args {
    const void *target, *draft; /* logits */
    int64_t target_stride, draft_stride;
    int32_t K, V, n_target_rows, n_rows;
    weighing wg;
    row_stats *stats;   /* [n_rows] */
    msa *partials;      /* [gridDim.x + n_rows - 1]: piece (block j, row r) at j + r */
    unsigned *arrivals; /* [n_rows], zero between launches */
};

template <typename LT> __device__ __forceinline__ static const LT *row_of(const row_args &a, int32_t r)
{
    if (r < a.n_target_rows) {
        const int32_t seq = r / (a.K + 1), k = r % (a.K + 1);
        return static_cast<const LT *>(a.target) + (int64_t)seq * a.target_stride + (int64_t)k * a.V;
    }
    const int32_t rr = r - a.n_target_rows, seq = rr / a.K, k = rr % a.K;
    return static_cast<const LT *>(a.draft) + (int64_t)seq * a.draft_stride + (int64_t)k * a.V;
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
 * to its last logit, and re-arms the counter. */
template <typename LT, bool WEIGH>
__global__ static void __launch_bounds__(LG_THREADS, STATS_BLOCKS_PER_SM)
    stats_kernel(row_args a)
{
    early_launch_wait(); /* the kernel before has written our inputs */
    early_launch_release();
    const int64_t V = a.V, total = (int64_t)a.n_rows * V, blocks = gridDim.x, j = blockIdx.x;
    const int64_t end = range_start(j + 1, total, blocks);
    const sv_softmax_scale sc = a.wg.scale;
    for (int64_t x = range_start(j, total, blocks); x < end;) {
        const int32_t r = (int32_t)(x / V);
        const int32_t lo = (int32_t)(x - r * V), hi = (int32_t)min(V, end - r * V);
        msa mine = {0.0, SV_SOFTMAX_NO_EXPONENT, 0.0f, -1};
        piece_msa<LT, WEIGH>(mine, row_of<LT>(a, r), lo, hi, sc);
        mine = block_msa<WEIGH>(mine);
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
            msa_merge<WEIGH>(all, msa{__ldcg(&p->s), __ldcg(&p->e), __ldcg(&p->m), __ldcg(&p->a)});
        }
        all = block_msa<WEIGH>(all);
        if (threadIdx.x == 0) {
            row_stats st;
            st.argmax = all.a;
            st.N = all.e;
            st.R = WEIGH ? sv_softmax_reciprocal(all.s) : 1.0; /* cut_kernel's when it runs */
            st.thr_key = 0u;              /* everything kept */
            st.thr_i = INT32_MAX;
            a.stats[r] = st;
            a.arrivals[r] = 0; /* re-armed for the next launch */
        }
    }
}

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

template <typename LT>
__global__ static void __launch_bounds__(CUT_THREADS)
    cut_kernel(row_args a, int32_t top_k, double top_p)
{
    early_launch_wait(); /* stats_kernel has finished */
    early_launch_release();
    __shared__ radix_hist h;
    __shared__ int32_t pick_bin;
    __shared__ int64_t pick_rest;
    __shared__ double pick_above;
    const int32_t r = (int32_t)blockIdx.x, V = a.V;
    const LT *row = row_of<LT>(a, r);
    const sv_softmax_scale sc = a.wg.scale;
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

/* ---- 3. verify_kernel: the accept chain and the race, on p and q from logits ---- */

/* The final row pair: p's logits and stats; q's when the drafter gave
 * logits and n < K (else q = NULL); `hot`, the one-hot drafter's draft,
 * weighs 0. */
template <typename LT> struct race_rows {
    const LT *p, *q;
    row_stats sp, sq;
    int32_t hot;
    weighing wg;
};

/* Token i's float probabilities for the race, from its logits pl, ql:
 * p_i, and q_i when there is a draft row (else 0); both 0 for the one-hot
 * drafter's draft, and q_i is not computed (no exp) where p_i is 0. */
template <typename LT>
__device__ __forceinline__ static void race_probs(const race_rows<LT> &rr, int32_t i, float pl,
                                                  float ql, float *p, float *q)
{
    *p = i == rr.hot ? 0.0f : prob_of(pl, i, rr.sp, rr.wg);
    *q = rr.q && *p > 0.0f ? prob_of(ql, i, rr.sq, rr.wg) : 0.0f;
}

/* Four tokens' float probabilities for the race (race_probs), from their
 * logits as loaded. PLAIN (T > 0, nothing cut, the case that streams the
 * most bytes): sv_softmax_split4's one range test for four logits and no
 * per-token branch; -0 weighs as +0 without canon. The one-hot drafter's
 * draft is left to race_four's keep mask. */
template <typename LT, bool PLAIN>
__device__ __forceinline__ static void race_probs4(const race_rows<LT> &rr, int32_t i0,
                                                   const float pl[4], const float ql[4],
                                                   float p[4], float q[4])
{
    if (!PLAIN) {
#pragma unroll
        for (int j = 0; j < 4; j++)
            race_probs(rr, i0 + j, canon(pl[j]), canon(ql[j]), &p[j], &q[j]);
        return;
    }
    int32_t n[4];
    float f[4];
    sv_softmax_split4(pl, rr.wg.scale, n, f);
#pragma unroll
    for (int j = 0; j < 4; j++)
        p[j] = sv_softmax_prob(sv_softmax_scaled(f[j], n[j], rr.sp.N), rr.sp.R);
    if (!rr.q) {
#pragma unroll
        for (int j = 0; j < 4; j++)
            q[j] = 0.0f;
        return;
    }
    sv_softmax_split4(ql, rr.wg.scale, n, f);
#pragma unroll
    for (int j = 0; j < 4; j++)
        q[j] = sv_softmax_prob(sv_softmax_scaled(f[j], n[j], rr.sq.N), rr.sq.R);
}

/* The race over tokens [lo, hi), by this thread and its block-mates, 4
 * tokens a lane per round (race_four); returns this thread's best. Each
 * round's logits are loaded a round ahead, so that they are in flight
 * while the round before is weighed and raced. */
template <typename LT, bool PLAIN>
__device__ static race_winner race_slice(const race_rows<LT> &rr, int32_t lo, int32_t hi,
                                         uint64_t seed, uint64_t index, uint32_t n, bool prune)
{
    race_winner best = {INFINITY, -1};
    const bool vec = aligned4(rr.p + lo) && (!rr.q || aligned4(rr.q + lo));
    const int32_t body_end = vec ? lo + ((hi - lo) & ~3) : lo;
    const int32_t step = 4 * (int32_t)blockDim.x; /* tokens a round */
    logits4<LT> p_ahead = {}, q_ahead = {};      /* the next round's */
    auto fetch = [&](int32_t i0) { /* past the body: left as they are */
        if (i0 < body_end) {
            p_ahead = load4(rr.p + i0);
            if (rr.q)
                q_ahead = load4(rr.q + i0);
        }
    };
    fetch(lo + 4 * (int32_t)threadIdx.x); /* first: in flight while the set-up below runs */
    float reach = INFINITY; /* race_four's, per warp */
    const sv_race_stream rs = sv_race_stream_of(seed, index, n); /* the row's Philox, hoisted */
    unsigned *shared = block_reach_reset();
    /* rounds over the body: the same count for every lane, as race_four needs */
    for (int32_t base = lo; base < body_end; base += step) {
        const int32_t i0 = base + 4 * (int32_t)threadIdx.x;
        const logits4<LT> p_now = p_ahead, q_now = q_ahead; /* stale past the body: not kept */
        fetch(i0 + step);
        float pl[4], ql[4] = {0.0f, 0.0f, 0.0f, 0.0f}, p[4], q[4];
        unpack4(p_now, pl);
        if (rr.q)
            unpack4(q_now, ql);
        race_probs4<LT, PLAIN>(rr, i0, pl, ql, p, q);
        /* the tokens that count: those in the body, but the one-hot draft */
        race_four(best, reach, i0, p, q, race_keep(i0, body_end, rr.hot), rs, shared, prune);
    }
    /* the scalar tail, unpruned: unaligned rows, and the last tile's V mod 4 tokens */
    for (int32_t i = body_end + (int32_t)threadIdx.x; i < hi; i += (int32_t)blockDim.x) {
        float p, q;
        race_probs(rr, i, canon(to_float(rr.p[i])), rr.q ? canon(to_float(rr.q[i])) : 0.0f, &p, &q);
        const double w = race_weight(p, q);
        if (!(w > 0.0))
            continue;
        keep_better(best, race_time_at(seed, index, n, i, w), i);
    }
    return best;
}

struct verify_args {
    sv_batch bt;
    const uint64_t *rng;      /* device {seed, first_index}, or NULL: use bt's */
    const row_stats *stats;   /* stats_kernel's rows: target rows, then draft rows */
    int32_t n_target_rows;
    int32_t splits, chunk;    /* blocks per sequence, tokens per block (a multiple of 4) */
    race_winner *winners;     /* [B][splits] */
    unsigned *arrivals;       /* [B], zero between launches */
    int *bad;
    int prune;                /* race_four's pruning (on but to measure it) */
    weighing wg;
};

/* PLAIN: T > 0 and nothing cut (race_probs4). */
template <typename LT, bool PLAIN>
__global__ static void __launch_bounds__(LG_THREADS, VERIFY_BLOCKS_PER_SM)
    verify_kernel(verify_args a)
{
    early_launch_wait(); /* stats_kernel (and cut_kernel) have finished */
    early_launch_release();
    const sv_batch &bt = a.bt;
    /* sequences on x, slices on y */
    const int32_t b = (int32_t)blockIdx.x, split = (int32_t)blockIdx.y;
    const int32_t K = bt.K, V = bt.V;
    const int32_t *x = bt.draft_tokens + (int64_t)b * K;
    const int32_t x_lane = threadIdx.x < 32 ? lane_draft(x, K) : 0; /* first: see lane_draft */
    const weighing wg = a.wg;
    const uint64_t seed = a.rng ? a.rng[0] : bt.seed;
    const uint64_t index = (a.rng ? a.rng[1] : bt.first_index) + (uint64_t)b;
    const LT *P = static_cast<const LT *>(bt.target_logits) + (int64_t)b * bt.target_stride;
    const LT *Q = bt.draft_logits
                      ? static_cast<const LT *>(bt.draft_logits) + (int64_t)b * bt.draft_stride
                      : nullptr;
    /* a stride of 0: stats_kernel summed up one row set */
    const row_stats *SP = a.stats + (bt.target_stride ? (int64_t)b : 0) * (K + 1);
    const row_stats *SQ = a.stats + a.n_target_rows + (bt.draft_stride ? (int64_t)b : 0) * K;

    /* the accept chain: n, or -1 for a token outside [0, V) */
    __shared__ int32_t n_shared;
    if (threadIdx.x < 32) {
        const int32_t n = accept_chain(K, V, x, x_lane, [&](int32_t k, int32_t t) {
            const float p = prob_of(canon(to_float(P[(int64_t)k * V + t])), t, SP[k], wg);
            const double q =
                Q ? (double)prob_of(canon(to_float(Q[(int64_t)k * V + t])), t, SQ[k], wg) : 1.0;
            const double u = sv_philox_uniform(seed, index, (uint32_t)k, SV_PURPOSE_ACCEPT, 0);
            return u * q < (double)p;
        });
        if (threadIdx.x == 0)
            n_shared = n;
    }
    __syncthreads();
    const int32_t n = n_shared;
    if (n < 0) {
        if (split == 0 && threadIdx.x == 0)
            write_sequence(bt, b, x, n, -1, a.bad);
        return;
    }

    /* this block's slice of the final row (pair) */
    race_rows<LT> rr;
    rr.p = P + (int64_t)n * V;
    rr.sp = SP[n];
    rr.q = n < K && Q ? Q + (int64_t)n * V : nullptr;
    rr.sq = rr.q ? SQ[n] : rr.sp;
    rr.hot = (n < K && !Q) ? x[n] : -1;
    rr.wg = wg;
    const int32_t lo = min(V, split * a.chunk), hi = min(V, lo + a.chunk);
    race_winner mine =
        block_best(race_slice<LT, PLAIN>(rr, lo, hi, seed, index, (uint32_t)n, a.prune));

    /* publish; the last block of this sequence to arrive combines */
    race_winner all;
    if (!combine_slices(mine, a.winners, a.arrivals, b, split, a.splits, &all))
        return;
    __shared__ int32_t token;
    if (threadIdx.x == 0)
        token = all.i;
    __syncthreads();
    if (token < 0 && (rr.q || rr.hot >= 0)) { /* an empty residual: race over p itself */
        race_rows<LT> p_only = rr;
        p_only.q = nullptr;
        p_only.hot = -1;
        race_winner again =
            block_best(race_slice<LT, PLAIN>(p_only, 0, V, seed, index, (uint32_t)n, a.prune));
        if (threadIdx.x == 0)
            token = again.i;
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        write_sequence(bt, b, x, n, token, a.bad); /* token < 0: an all-zero row (logits that are all -inf or NaN) */
        a.arrivals[b] = 0; /* re-armed for the next launch */
    }
}

/* ---- host launchers ------------------------------------------------------------- */

/* The verify kernel's blocks per sequence: as many as `wave` blocks spread
 * over `rows` give, each at least min_chunk tokens, at least 1 (so rows *
 * splits <= max(wave, rows)). */
static int32_t splits_for(int32_t wave, int32_t rows, int32_t V, int32_t min_chunk)
{
    int32_t by_fill = wave / rows;
    int32_t by_size = (V + min_chunk - 1) / min_chunk;
    int32_t splits = by_fill < by_size ? by_fill : by_size;
    return splits < 1 ? 1 : splits;
}

/* tokens per block: V over the splits, rounded up to a multiple of 4 */
static int32_t chunk_for(int32_t V, int32_t splits)
{
    return ((V + splits - 1) / splits + 3) & ~3;
}

/* The stats kernel's blocks: one wave, or fewer where the batch's logits
 * give each block less than SV_LOGITS_MIN_CHUNK. */
extern "C" int32_t sv_cuda_logits_stats_blocks(int32_t wave, int32_t n_rows, int32_t V)
{
    const int64_t by_size = (int64_t)n_rows * V / SV_LOGITS_MIN_CHUNK;
    const int64_t blocks = by_size < wave ? by_size : wave;
    return blocks < 1 ? 1 : (int32_t)blocks;
}

template <typename LT>
static cudaError_t launch_all(const sv_batch *bt, const uint64_t *rng,
                              const sv_cuda_logits_ws *ws, int *bad, int prune, bool early)
{
    const int32_t B = bt->B, K = bt->K, V = bt->V;
    cudaStream_t stream = (cudaStream_t)bt->stream;
    row_args ra;
    ra.target = bt->target_logits;
    ra.draft = bt->draft_logits;
    ra.target_stride = bt->target_stride;
    ra.draft_stride = bt->draft_stride;
    ra.K = K;
    ra.V = V;
    ra.n_target_rows = (bt->target_stride ? B : 1) * (K + 1);
    ra.n_rows = ra.n_target_rows + (bt->draft_logits ? (bt->draft_stride ? B : 1) * K : 0);
    const bool greedy = bt->temperature == 0.0;
    ra.wg.greedy = greedy;
    ra.wg.cut = !greedy && ((bt->top_k > 0 && bt->top_k < V) || bt->top_p < 1.0);
    ra.wg.scale = greedy ? sv_softmax_scale{1.0f, 0.0f, FLT_MAX} : sv_softmax_scale_of(bt->temperature);
    ra.stats = static_cast<row_stats *>(ws->stats);
    ra.partials = static_cast<msa *>(ws->partials);
    ra.arrivals = ws->row_arrivals;
    const bool cuts = ra.wg.cut;
    const int32_t stats_blocks = sv_cuda_logits_stats_blocks(ws->stats_wave, ra.n_rows, V);
    void (*const stats)(row_args) = greedy ? stats_kernel<LT, false> : stats_kernel<LT, true>;
    cudaError_t e =
        launch_early(early, dim3((unsigned)stats_blocks), dim3(LG_THREADS), stream, stats, ra);
    if (e != cudaSuccess)
        return e;
    if (cuts) {
        e = launch_early(early, dim3((unsigned)ra.n_rows), dim3(CUT_THREADS), stream,
                         cut_kernel<LT>, ra, bt->top_k, bt->top_p);
        if (e != cudaSuccess)
            return e;
    }
    verify_args va;
    va.bt = *bt;
    va.rng = rng;
    va.stats = ra.stats;
    va.n_target_rows = ra.n_target_rows;
    va.splits = splits_for(ws->verify_wave, B, V, SV_FUSED_MIN_CHUNK);
    va.chunk = chunk_for(V, va.splits);
    va.winners = static_cast<race_winner *>(ws->winners);
    va.arrivals = ws->arrivals;
    va.bad = bad;
    va.prune = prune;
    va.wg = ra.wg;
    void (*const verify)(verify_args) =
        greedy || cuts ? verify_kernel<LT, false> : verify_kernel<LT, true>;
    return launch_early(early, dim3((unsigned)B, (unsigned)va.splits), dim3(LG_THREADS), stream,
                        verify, va);
}

extern "C" int sv_cuda_fused_logits_launch(const sv_batch *bt, const uint64_t *rng,
                                           const sv_cuda_logits_ws *ws, int *bad, int prune,
                                           int early)
{
    if (bt->B <= 0)
        return (int)cudaSuccess;
    switch (bt->input) {
    case SV_INPUT_LOGITS_F32: return (int)launch_all<float>(bt, rng, ws, bad, prune, early != 0);
    case SV_INPUT_LOGITS_BF16:
        return (int)launch_all<uint16_t>(bt, rng, ws, bad, prune, early != 0);
    default: return (int)cudaErrorInvalidValue;
    }
}

/* One kernel answers for the three: one file, built with the same flags. */
extern "C" int sv_cuda_logits_early_ok(int *ok)
{
    bool can = false;
    const cudaError_t e = can_launch_early(verify_kernel<float, true>, &can);
    *ok = can;
    return (int)e;
}

extern "C" int sv_cuda_logits_blocks_per_sm(int *stats_blocks, int *verify_blocks)
{
    /* float's stand for bf16's: the same launch bounds, the same registers on sm_90 */
    cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(stats_blocks,
                                                                  stats_kernel<float, true>,
                                                                  LG_THREADS, 0);
    if (e == cudaSuccess)
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(verify_blocks,
                                                          verify_kernel<float, true>,
                                                          LG_THREADS, 0);
    return (int)e;
}

extern "C" void sv_cuda_logits_stats_of(const void *stats, int32_t r, double *R, int32_t *N,
                                        int32_t *argmax)
{
    const row_stats *st = static_cast<const row_stats *>(stats) + r;
    *R = st->R;
    *N = st->N;
    *argmax = st->argmax;
}

extern "C" size_t sv_cuda_logits_stats_bytes(void)
{
    return sizeof(row_stats);
}

extern "C" size_t sv_cuda_logits_partial_bytes(void)
{
    return sizeof(msa);
}

extern "C" size_t sv_cuda_logits_winner_bytes(void)
{
    return sizeof(race_winner);
}
