/* logits_verify.cu: cuda_fused's logits kernel 3 of 3 (cuda_fused_logits.cu
 * says the method): fused_kernel's accept chain and exponential race on p
 * and q made from logits by the rows' summaries. */
#include <cuda_runtime.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include "sv_logits.cuh"

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


/* PLAIN: T > 0 and nothing cut (race_probs4), for every sequence. RAGGED:
 * a batch with per-sequence data (a.seqs: each sequence its drafts, layout
 * offsets, randomness and rule; its row stats at ragged_row's numbers);
 * else every d_b = K, by the batch's rule (the instance that is timed,
 * compiled as it was before version 3). */
template <typename LT, bool PLAIN, bool RAGGED>
__global__ static void __launch_bounds__(LG_THREADS, VERIFY_BLOCKS_PER_SM)
    verify_kernel(verify_args a)
{
    early_launch_wait(); /* stats_kernel (and cut_kernel) have finished */
    early_launch_release();
    const sv_batch &bt = a.bt;
    const sv_cuda_seqs &sq = a.seqs;
    if (RAGGED && !sq.info->ok)
        return; /* the prep kernel found a value out of range and set *bad */
    /* sequences on x, slices on y */
    const int32_t b = (int32_t)blockIdx.x, split = (int32_t)blockIdx.y;
    const int32_t K = seq_drafts<RAGGED>(bt, sq, b), V = bt.V; /* K: this sequence's d_b */
    const int32_t *x = bt.draft_tokens + seq_drafts_offset<RAGGED>(bt, sq, b);
    const int32_t x_lane = threadIdx.x < 32 ? lane_draft(x, K) : 0; /* first: see lane_draft */
    const weighing wg = RAGGED ? weighing_of(sq.rules[b]) : a.wg;
    const uint64_t seed = RAGGED ? sq.rng[b].seed : a.rng ? a.rng[0] : bt.seed;
    const uint64_t index =
        RAGGED ? sq.rng[b].index : (a.rng ? a.rng[1] : bt.first_index) + (uint64_t)b;
    const LT *P =
        static_cast<const LT *>(bt.target_logits) + seq_target_offset<RAGGED>(bt, sq, b);
    const LT *Q = bt.draft_logits ? static_cast<const LT *>(bt.draft_logits) +
                                        seq_draft_offset<RAGGED>(bt, sq, b)
                                  : nullptr;
    /* a stride of 0: stats_kernel summed up one row set */
    const row_stats *SP = RAGGED ? a.stats + (int64_t)sq.cu[b] + b
                                 : a.stats + (bt.target_stride ? (int64_t)b : 0) * (K + 1);
    const row_stats *SQ = RAGGED ? a.stats + sq.info->n_target_rows + sq.cu[b]
                                 : a.stats + a.n_target_rows +
                                       (bt.draft_stride ? (int64_t)b : 0) * K;

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
            write_sequence<RAGGED>(bt, sq, b, x, n, -1, a.bad);
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
        /* token < 0: an all-zero row (logits that are all -inf or NaN) */
        write_sequence<RAGGED>(bt, sq, b, x, n, token, a.bad);
        a.arrivals[b] = 0; /* re-armed for the next launch */
    }
}

namespace SV_LOGITS_NS {
template <typename LT>
cudaError_t verify_launch(bool early, cudaStream_t stream, const verify_args &a, bool plain)
{
    void (*const kernel)(verify_args) =
        a.seqs.cu ? (plain ? verify_kernel<LT, true, true> : verify_kernel<LT, false, true>)
                  : (plain ? verify_kernel<LT, true, false> : verify_kernel<LT, false, false>);
    return launch_early(early, dim3((unsigned)a.bt.B, (unsigned)a.splits), dim3(LG_THREADS),
                        stream, kernel, a);
}
template cudaError_t verify_launch<float>(bool, cudaStream_t, const verify_args &, bool);
template cudaError_t verify_launch<uint16_t>(bool, cudaStream_t, const verify_args &, bool);

cudaError_t verify_occupancy(int *blocks)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, verify_kernel<float, true, false>,
                                                         LG_THREADS, 0);
}

/* One kernel answers for the three: built with the same flags. */
cudaError_t verify_early_ok(bool *ok)
{
    return can_launch_early(verify_kernel<float, true, false>, ok);
}
} // namespace SV_LOGITS_NS
