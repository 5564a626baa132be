/* sv_race.cuh: the exponential race's device pieces that cuda_fused.cu
 * (probs input) and cuda_fused_logits.cu (logits input) share: a slice's
 * winner, the race time from Philox words, four tokens of the pruned race,
 * the block reduction, and the last-block combine of a sequence's slices. */
#ifndef SV_RACE_CUH
#define SV_RACE_CUH

#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include "sv_philox.h"
#include "sv_race_bound.h"
#include "sv_race_stream.h"
#include "sv_sampler.h"
#include "sv_seq.cuh"

/* One slice's winner: race time and token; token -1 when no weight was > 0. */
struct race_winner {
    double t;
    int32_t i;
};

/* The earlier time wins; equal times go to the lower token. */
__device__ __forceinline__ static void keep_better(race_winner &a, double t, int32_t i)
{
    if (t < a.t || (t == a.t && i >= 0 && (a.i < 0 || i < a.i)))
        a = {t, i};
}

/* Race time of a token with weight w > 0 and uniform words (top, low)
 * (sv_race_tops, sv_race_lows: word i mod 4 of token i's quad). */
__device__ __forceinline__ static double race_time(uint32_t top, uint32_t low, double w)
{
    return -log(sv_u01_double(top, low)) / w;
}

/* Token i's race time alone (the scalar tails): both its Philox blocks. */
__device__ __forceinline__ static double race_time_at(uint64_t seed, uint64_t index, uint32_t n,
                                                      int32_t i, double w)
{
    return -log(sv_race_uniform(seed, index, n, (uint32_t)i)) / w;
}

/* w = max(p - q, 0) in double from the float p and q (q = 0 without a
 * draft row): the weight of a token timed exactly. */
__device__ __forceinline__ static double race_weight(float p, float q)
{
    const double w = (double)p - (double)q;
    return w > 0.0 ? w : 0.0;
}

/* This lane's draft of the first 32, x[lane] (0 past K), for accept_chain.
 * Load it first, before anything the test needs from memory (the seed, when
 * it is read from device memory): the gathers then wait on one load, not
 * on two in a row (the compiler issues in program order, and the seed's
 * first use stalls the warp until it arrives). */
__device__ __forceinline__ static int32_t lane_draft(const int32_t *x, int32_t K)
{
    const int32_t lane = (int32_t)(threadIdx.x % 32);
    return lane < K ? x[lane] : 0;
}

/* The accept chain, by warp 0 (call from its 32 lanes), one draft per
 * lane: `accepted(k, t)` tests draft k, token t in [0, V); x_lane is
 * lane_draft(x, K). Returns n, the drafts accepted before the first
 * rejection (K if none), or -1 when any draft of the sequence is outside
 * [0, V), reached or not, as the CPU samplers refuse it. A serial walk
 * costs one dependent pair of loads per accepted draft; this, one pair for
 * all. */
template <typename Test>
__device__ static int32_t accept_chain(int32_t K, int32_t V, const int32_t *x, int32_t x_lane,
                                       Test accepted)
{
    const int32_t lane = (int32_t)(threadIdx.x % 32);
    int32_t n = K;
    for (int32_t base = 0; base < K; base += 32) { /* the same trip count on every lane */
        const int32_t k = base + lane;
        bool stop = false, outside = false;
        if (k < K) {
            const int32_t t = base == 0 ? x_lane : x[k];
            outside = t < 0 || t >= V;
            /* past a rejection only the range matters */
            stop = outside || (n == K && !accepted(k, t));
        }
        if (__ballot_sync(0xffffffffu, outside))
            return -1;
        const unsigned stops = __ballot_sync(0xffffffffu, stop);
        if (stops && n == K)
            n = base + __ffs((int)stops) - 1;
    }
    return n;
}

/* race_four's keep mask for the quad at i0: its four tokens if the quad is
 * in the body (i0 < body_end), but `hot`, the one-hot drafter's draft (-1:
 * none). */
__device__ __forceinline__ static uint32_t race_keep(int32_t i0, int32_t body_end, int32_t hot)
{
    const uint32_t hot_at = (uint32_t)(hot - i0); /* >= 4 when not in this quad */
    return i0 < body_end ? 0xfu & ~(hot_at < 4u ? 1u << hot_at : 0u) : 0u;
}

/* Tokens i0 .. i0 + 3 (i0 a multiple of 4) of the race, with weights
 * max(p_j - q_j, 0) from their float probabilities (q_j = 0 without a draft
 * row) where bit j of `keep` is set, and 0 where it is clear (a token past
 * the row, or the one-hot drafter's draft; p_j and q_j then do not matter).
 * Every lane of the warp must call it together: `reach`, sv_race_reach of
 * the warp's ceiling on the best time so far, falls by a warp-wide min.
 * `shared` (block_reach_reset) holds the lowest reach any warp of the block
 * has found in this race: a warp with live tokens first lowers its own
 * reach to it, which often leaves it none (any ceiling of the row bounds
 * the winner, so every value read is sound however stale). prune = false
 * times every token (SV_FUSED_PRUNE=0, to measure what pruning gains).
 *
 * The cost of the race was its double logarithm, division and conversions
 * for every token. Here a token is timed exactly only if sv_race_may_win
 * says it can still beat the bound: after the first round of a slice, a few
 * tokens in a thousand. The pruning is exact (sv_race_bound.h), so the
 * winner is the unpruned race's, and ref_race's. */
__device__ __forceinline__ static void race_four(race_winner &best, float &reach, int32_t i0,
                                                 const float p[4], const float q[4],
                                                 uint32_t keep, const sv_race_stream &rs,
                                                 unsigned *shared, bool prune)
{
    float wf[4];
#pragma unroll
    for (int j = 0; j < 4; j++)
        wf[j] = sv_race_weight_f(p[j], q[j]);
    if (keep != 0xfu) /* rare: a row's edge, or the one-hot draft */
#pragma unroll
        for (int j = 0; j < 4; j++)
            wf[j] = (keep >> j) & 1u ? wf[j] : 0.0f;
    const bool any = wf[0] > 0.0f || wf[1] > 0.0f || wf[2] > 0.0f || wf[3] > 0.0f;
    /* the top words of the four tokens' uniforms: one Philox block */
    philox4x32_ctr_t top = {};
    if (any)
        top = sv_race_stream_tops(&rs, (uint32_t)i0 >> 2);

    /* tokens that may beat the bound so far; their ceilings lower it */
    bool live[4], any_live = false;
#pragma unroll
    for (int j = 0; j < 4; j++) {
        live[j] = wf[j] > 0.0f && sv_race_may_win(top.v[j], wf[j], reach);
        any_live |= live[j];
    }
    /* after a slice's first round most warps have none: then no ceiling can
     * lower the bound and nothing is timed, so the warp is done (all lanes
     * leave together: the reduction below needs them all or none) */
    if (!__ballot_sync(0xffffffffu, any_live))
        return;
    if (prune) { /* else reach stays INFINITY: every weighted token is timed */
        /* one value for the warp: its lanes may read the word at different
         * times, and the branch must not split them */
        const float theirs = __uint_as_float(
            __reduce_min_sync(0xffffffffu, *static_cast<volatile unsigned *>(shared)));
        if (theirs < reach) {
            reach = theirs;
            any_live = false;
#pragma unroll
            for (int j = 0; j < 4; j++) {
                live[j] = live[j] && sv_race_may_win(top.v[j], wf[j], reach);
                any_live |= live[j];
            }
            if (!__ballot_sync(0xffffffffu, any_live))
                return;
        }
        float ceiling = INFINITY;
#pragma unroll
        for (int j = 0; j < 4; j++)
            if (live[j])
                ceiling = fminf(ceiling, sv_race_time_ceiling(top.v[j], wf[j]));
        /* non-negative floats order as their bits */
        const float lowest =
            __uint_as_float(__reduce_min_sync(0xffffffffu, __float_as_uint(ceiling)));
        reach = fminf(reach, sv_race_reach(lowest));
        if (threadIdx.x % 32 == 0) /* non-negative floats order as their bits */
            atomicMin(shared, __float_as_uint(reach));
    }

    bool timed[4], any_timed = false;
#pragma unroll
    for (int j = 0; j < 4; j++) {
        timed[j] = live[j] && sv_race_may_win(top.v[j], wf[j], reach);
        any_timed |= timed[j];
    }
    if (!any_timed)
        return;
    /* the low words only for tokens timed exactly: after a slice's first
     * round, a few lanes in a thousand */
    const philox4x32_ctr_t low = sv_race_stream_lows(&rs, (uint32_t)i0 >> 2);
#pragma unroll
    for (int j = 0; j < 4; j++)
        if (timed[j])
            keep_better(best, race_time(top.v[j], low.v[j], race_weight(p[j], q[j])), i0 + j);
}

/* The block's shared reach for race_four, set to INFINITY's bits (nothing
 * bounded yet). Call from every thread of the block at the start of each
 * race, after the last one's final barrier (block_best's); it ends with a
 * barrier, so no warp reads the word before it is set. */
__device__ static unsigned *block_reach_reset(void)
{
    __shared__ unsigned word;
    if (threadIdx.x == 0)
        word = __float_as_uint(INFINITY);
    __syncthreads();
    return &word;
}

/* The block's best of every thread's best; valid in thread 0. Ends with a
 * barrier, so it may be called again in the same block. */
__device__ static race_winner block_best(race_winner mine)
{
    __shared__ race_winner warp_best[32];
    for (int off = 16; off > 0; off >>= 1) {
        double t = __shfl_down_sync(0xffffffffu, mine.t, off);
        int32_t i = __shfl_down_sync(0xffffffffu, mine.i, off);
        keep_better(mine, t, i);
    }
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0)
        warp_best[warp] = mine;
    __syncthreads();
    if (warp == 0) {
        mine = lane < (int)(blockDim.x / 32) ? warp_best[lane] : race_winner{INFINITY, -1};
        for (int off = 16; off > 0; off >>= 1) {
            double t = __shfl_down_sync(0xffffffffu, mine.t, off);
            int32_t i = __shfl_down_sync(0xffffffffu, mine.i, off);
            keep_better(mine, t, i);
        }
    }
    __syncthreads();
    return mine;
}

/* The fence of the last-arriver pattern (each block publishes, then counts
 * its arrival; the last to arrive reads what all published): before the
 * count it releases the block's writes, after it it acquires the others'.
 * That message passing needs acquire-release order only. __threadfence()
 * is a sequentially consistent fence (MEMBAR.SC.GPU on sm_90, where this is
 * MEMBAR.ALL.GPU), slower, and the one order of all SC fences it adds is
 * one nothing here relies on. Both invalidate the SM's L1 (CCTL.IVALL). */
__device__ __forceinline__ static void arrival_fence(void)
{
#ifdef __CUDA_ARCH__
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
#else
    __threadfence(); /* tests/emu */
#endif
}

/* Publishes block `split`'s winner `mine` (valid in thread 0) of sequence b
 * and counts its arrival. The last of the sequence's `splits` blocks to
 * arrive gets true and, in thread 0 of *all, the best of every slice; the
 * others get false and are done. The caller re-arms arrivals[b] to 0. */
__device__ static bool combine_slices(race_winner mine, race_winner *winners, unsigned *arrivals,
                                      int32_t b, int32_t split, int32_t splits, race_winner *all)
{
    __shared__ bool last;
    if (threadIdx.x == 0) {
        winners[(int64_t)b * splits + split] = mine;
        arrival_fence(); /* release */
        last = atomicAdd(&arrivals[b], 1u) == (unsigned)splits - 1;
    }
    __syncthreads();
    if (!last)
        return false;
    arrival_fence(); /* acquire (thread 0 saw the count; the barrier orders the rest after it) */
    race_winner best = {INFINITY, -1};
    for (int32_t s = threadIdx.x; s < splits; s += blockDim.x) {
        /* other blocks wrote these: read past L1 (__ldcg), where nothing stale may sit */
        const race_winner *w = winners + (int64_t)b * splits + s;
        keep_better(best, __ldcg(&w->t), __ldcg(&w->i));
    }
    *all = block_best(best);
    return true;
}

/* Sequence b's outputs (one thread) into its d_b + 1 slots and
 * bt.out_accepted[b]: x_1..x_n, the final token, then -1; or, when token <
 * 0 (an all-zero row) or n < 0 (a draft outside [0, V)), -1 in every slot
 * with accepted count -1, and *bad set. Slots past d_b are not its own (the
 * padded layout's): never written. RAGGED as for sv_seq.cuh. */
template <bool RAGGED>
__device__ static void write_sequence(const sv_batch &bt, const sv_cuda_seqs &s, int32_t b,
                                      const int32_t *x, int32_t n, int32_t token, int *bad)
{
    const int32_t K = seq_drafts<RAGGED>(bt, s, b);
    int32_t *y = bt.out_tokens + seq_out_offset<RAGGED>(bt, s, b);
    if (n < 0 || token < 0) {
        *bad = 1;
        for (int32_t k = 0; k <= K; k++)
            y[k] = -1;
        bt.out_accepted[b] = -1;
        return;
    }
    for (int32_t k = 0; k < n; k++)
        y[k] = x[k];
    y[n] = token;
    for (int32_t k = n + 1; k <= K; k++)
        y[k] = -1;
    bt.out_accepted[b] = n;
}

#endif
