/* cuda_fused.cu: the fast CUDA rejection sampler, and its broken twin.
 *
 * Reads only what a step needs. Every block of sequence b first tests the
 * accept chain on 2K gathered scalars p_k(x_k), q_k(x_k), one draft per
 * lane of warp 0 (cheap, so each block does it rather than waiting for
 * another kernel), which fixes n, the accepted count. Then the row pair
 * (p_n, q_n) at the first rejection, or p_{K+1} alone after K acceptances,
 * is read once, with 16-byte loads where the rows are aligned, split across
 * `splits` blocks so that a small batch still fills the GPU.
 *
 * The final token is an exponential race, one pass, no normalization:
 *     argmin_i t_i,  t_i = -log(u_i) / w_i  over w_i = max(p_i - q_i, 0) > 0,
 * ties to the lowest i, with u_i = sv_race_uniform(seed, index, n, i)
 * (sv_philox.h): exactly samplers/ref_race.c's numbers and arithmetic (double), so
 * the two emit the same tokens but for last-bit differences of log. Double,
 * not float: float exponentials bottom out near 2^-24 and under-sample the
 * race's tail (docs/design.md#randomness). Few tokens need that arithmetic: race_four
 * (sv_race.cuh) first bounds each token's time from its float weight and
 * the top word of its uniform, and times exactly only those that may still
 * beat the lowest ceiling in their warp (exact pruning, sv_race_bound.h).
 * The others cost a quarter of a Philox call (the top words of four tokens'
 * uniforms come from one call, with the work all of a row's calls share
 * done once: sv_race_stream.h) and a few float operations each.
 *
 * Each block reduces its slice to one (t, i) winner; the last block of a
 * sequence to finish (a per-sequence arrival counter) combines the slices,
 * writes the outputs, and re-arms the counter, so a launch needs no host
 * synchronization and can be captured in a CUDA graph. Seed and first index
 * may be read from device memory for the same reason.
 *
 * Guards: p = 0 is never accepted (strict u q < p, u in (0, 1)); the last
 * vocabulary tile is masked (a scalar tail after the float4 body); an empty
 * residual (p == q up to rounding) races over p itself; a token outside
 * [0, V) or an all-zero row sets *bad and writes -1; ids are in [0, V).
 *
 * A version 3 batch with per-sequence data (sv_cuda_seqs) runs the kernel's
 * RAGGED instance: each sequence its own d_b drafts, offsets in the padded
 * or packed layout, seed and index (sv_seq.cuh), and it writes its own d_b
 * + 1 output slots only. A batch without it runs the uniform instance,
 * which compiles to the code it did before version 3.
 *
 * cuda_fused_shared_uniform (broken on purpose): the acceptance uniforms of
 * a group of 32 consecutive sequences come from the group's first sequence,
 * as when a kernel draws one uniform per thread block instead of one per
 * sequence. Each sequence alone is still exact; consecutive ones are not
 * independent.
 */
#include <cuda_runtime.h>
#include <math.h>
#include "sv_cuda_kernels.h"
#include "sv_early_launch.cuh"
#include "sv_philox.h"
#include "sv_race.cuh"
#include "sv_seq.cuh"

#define FUSED_THREADS 256
#define SHARED_UNIFORM_GROUP 32

/* Everything one launch needs, passed by value. */
struct fused_args {
    sv_batch bt;
    const uint64_t *rng;   /* device {seed, first_index}, or NULL: use bt's */
    int32_t splits;        /* blocks per sequence */
    int32_t chunk;         /* tokens per block, a multiple of 4 */
    race_winner *winners;  /* [B][splits] */
    unsigned *arrivals;    /* [B], zero between launches */
    int *bad;
    int shared_uniform;    /* the broken variant */
    int prune;             /* race_four's pruning (on but to measure it) */
    sv_cuda_seqs seqs;     /* a version 3 batch's per-sequence data (last: the
                            * uniform kernel's parameters keep their places) */
};

/* The race over tokens [lo, hi) of row p (and q when not NULL; token `hot`,
 * the one-hot drafter's draft, weighs 0), by this thread and its
 * block-mates, 4 tokens a lane per round; returns this thread's best.
 * DEPTH rounds of rows are in flight ahead of the round being raced (1 by
 * default; SV_FUSED_DEPTH=2 keeps twice the bytes in flight, within the
 * same 64 registers on sm_90: an experiment the GPU has yet to measure). */
template <int DEPTH>
__device__ static race_winner race_slice(const float *p, const float *q, int32_t hot,
                                         int32_t lo, int32_t hi, uint64_t seed, uint64_t index,
                                         uint32_t n, bool prune)
{
    race_winner best = {INFINITY, -1};
    /* the float4 body needs both rows 16-byte aligned at lo (lo is a multiple of 4) */
    const bool vec = ((reinterpret_cast<uintptr_t>(p + lo) |
                       (q ? reinterpret_cast<uintptr_t>(q + lo) : 0)) & 15u) == 0;
    const int32_t body_end = vec ? lo + ((hi - lo) & ~3) : lo;
    /* rounds over the body: the same count for every lane, as race_four
     * needs; each round's rows are loaded DEPTH rounds ahead, so that they
     * are in flight while the rounds before draw their Philox numbers */
    const int32_t step = 4 * FUSED_THREADS; /* tokens a round */
    float4 p_ahead[DEPTH] = {}, q_ahead[DEPTH] = {}; /* [d]: the rows of round + 1 + d */
    auto fetch = [&](int32_t i0, float4 &p4, float4 &q4) { /* past the body: left as they are */
        if (i0 < body_end) {
            p4 = *reinterpret_cast<const float4 *>(p + i0);
            if (q)
                q4 = *reinterpret_cast<const float4 *>(q + i0);
        }
    };
    /* the first rounds' rows first: in flight while the row's Philox set-up
     * and the block's barrier run (the warp issues in order) */
#pragma unroll
    for (int d = 0; d < DEPTH; d++)
        fetch(lo + 4 * (int32_t)threadIdx.x + d * step, p_ahead[d], q_ahead[d]);
    float reach = INFINITY; /* race_four's, per warp */
    const sv_race_stream rs = sv_race_stream_of(seed, index, n); /* the row's Philox, hoisted */
    unsigned *shared = block_reach_reset();
    for (int32_t base = lo; base < body_end; base += step) {
        const int32_t i0 = base + 4 * (int32_t)threadIdx.x;
        const float4 p4 = p_ahead[0], q4 = q_ahead[0]; /* stale past the body: not kept */
#pragma unroll
        for (int d = 0; d + 1 < DEPTH; d++)
            p_ahead[d] = p_ahead[d + 1], q_ahead[d] = q_ahead[d + 1];
        fetch(i0 + DEPTH * step, p_ahead[DEPTH - 1], q_ahead[DEPTH - 1]);
        const float pv[4] = {p4.x, p4.y, p4.z, p4.w}, qv[4] = {q4.x, q4.y, q4.z, q4.w};
        /* the tokens that count: those in the body, but the one-hot draft */
        race_four(best, reach, i0, pv, qv, race_keep(i0, body_end, hot), rs, shared, prune);
    }
    /* the scalar tail, unpruned: unaligned rows, and the last tile's V mod 4 tokens */
    for (int32_t i = body_end + (int32_t)threadIdx.x; i < hi; i += blockDim.x) {
        const double w = i == hot ? 0.0 : race_weight(p[i], q ? q[i] : 0.0f);
        if (!(w > 0.0))
            continue;
        keep_better(best, race_time_at(seed, index, n, i, w), i);
    }
    return best;
}

/* RAGGED: a version 3 batch's sequences, each its own drafts, layout
 * offsets and randomness (a.seqs); else the uniform batch, every d_b = K
 * (the instance that is timed, compiled as it was before version 3). The
 * ragged instance is held to 4 blocks an SM, the uniform one's on sm_90
 * (left to itself it took 78 registers there, 3 blocks, and splits_for
 * sizes one wave by the uniform's occupancy); 0 leaves the uniform
 * instance's bounds as they were. */
template <int DEPTH, bool RAGGED>
__global__ static void __launch_bounds__(FUSED_THREADS, RAGGED ? 4 : 0) fused_kernel(fused_args a)
{
    early_launch_wait(); /* the kernel before has written our inputs */
    early_launch_release();
    const sv_batch &bt = a.bt;
    const sv_cuda_seqs &sq = a.seqs;
    if (RAGGED && !sq.info->ok)
        return; /* the prep kernel found a value out of range and set *bad */
    /* sequences on x (up to 2^31 - 1 blocks), slices on y (at most 65535) */
    const int32_t b = (int32_t)blockIdx.x, split = (int32_t)blockIdx.y;
    const int32_t K = seq_drafts<RAGGED>(bt, sq, b), V = bt.V; /* K: this sequence's d_b */
    const int32_t *x = bt.draft_tokens + seq_drafts_offset<RAGGED>(bt, sq, b);
    const int32_t x_lane = threadIdx.x < 32 ? lane_draft(x, K) : 0; /* first: see lane_draft */
    const uint64_t seed = RAGGED ? sq.rng[b].seed : a.rng ? a.rng[0] : bt.seed;
    const uint64_t first = a.rng ? a.rng[1] : bt.first_index;
    const uint64_t index = RAGGED ? sq.rng[b].index : first + (uint64_t)b;
    const float *P = bt.target + seq_target_offset<RAGGED>(bt, sq, b);
    const float *Q = bt.draft ? bt.draft + seq_draft_offset<RAGGED>(bt, sq, b) : nullptr;

    /* the accept chain: n, or -1 for a token outside [0, V) */
    __shared__ int32_t n_shared;
    if (threadIdx.x < 32) {
        /* the broken variant: its group's first sequence's address */
        uint64_t accept_seed = seed, accept_index;
        if (RAGGED) {
            const int32_t g = b - b % SHARED_UNIFORM_GROUP;
            accept_seed = a.shared_uniform ? sq.rng[g].seed : seed;
            accept_index = a.shared_uniform ? sq.rng[g].index : index;
        } else {
            accept_index =
                a.shared_uniform ? first + (uint64_t)(b - b % SHARED_UNIFORM_GROUP) : index;
        }
        const int32_t n = accept_chain(K, V, x, x_lane, [&](int32_t k, int32_t t) {
            const double p = P[(int64_t)k * V + t], q = Q ? Q[(int64_t)k * V + t] : 1.0;
            const double u =
                sv_philox_uniform(accept_seed, accept_index, (uint32_t)k, SV_PURPOSE_ACCEPT, 0);
            return u * q < p;
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

    /* this block's slice of the final row */
    const float *p = P + (int64_t)n * V;
    const int use_q = n < K && Q != nullptr;
    const float *q = use_q ? Q + (int64_t)n * V : nullptr;
    const int32_t hot = (n < K && Q == nullptr) ? x[n] : -1; /* one-hot drafter */
    const int32_t lo = min(V, split * a.chunk), hi = min(V, lo + a.chunk);
    race_winner mine = race_slice<DEPTH>(p, q, hot, lo, hi, seed, index, (uint32_t)n, a.prune);
    mine = block_best(mine);

    /* publish; the last block of this sequence to arrive combines */
    race_winner all;
    if (!combine_slices(mine, a.winners, a.arrivals, b, split, a.splits, &all))
        return;
    __shared__ int32_t token;
    if (threadIdx.x == 0)
        token = all.i;
    __syncthreads();
    if (token < 0 && (use_q || hot >= 0)) {
        race_winner again =
            race_slice<DEPTH>(p, nullptr, -1, 0, V, seed, index, (uint32_t)n, a.prune);
        again = block_best(again);
        if (threadIdx.x == 0)
            token = again.i;
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        /* token < 0: an all-zero row */
        write_sequence<RAGGED>(bt, sq, b, x, n, token, a.bad);
        a.arrivals[b] = 0; /* re-armed for the next launch */
    }
}

/* The kernel of a prefetch depth (1 or 2), uniform or ragged. A function
 * pointer: one launch line serves all four. */
typedef void (*fused_kernel_fn)(fused_args);
static fused_kernel_fn fused_kernel_of(int depth, bool ragged)
{
    if (ragged)
        return depth == 2 ? fused_kernel<2, true> : fused_kernel<1, true>;
    return depth == 2 ? fused_kernel<2, false> : fused_kernel<1, false>;
}

extern "C" int sv_cuda_fused_launch(const sv_batch *bt, const sv_cuda_seqs *seqs,
                                    const uint64_t *rng, int32_t splits, void *winners,
                                    unsigned *arrivals, int *bad, int shared_uniform, int prune,
                                    int depth, int early)
{
    if (bt->B <= 0)
        return (int)cudaSuccess;
    fused_args a;
    a.bt = *bt;
    a.rng = rng;
    a.splits = splits;
    /* tokens per block: V over the splits, rounded up to a multiple of 4 */
    a.chunk = ((bt->V + splits - 1) / splits + 3) & ~3;
    a.winners = static_cast<race_winner *>(winners);
    a.arrivals = arrivals;
    a.bad = bad;
    a.shared_uniform = shared_uniform;
    a.prune = prune;
    a.seqs = *seqs;
    dim3 grid((unsigned)bt->B, (unsigned)splits);
    return (int)launch_early(early != 0, grid, dim3(FUSED_THREADS), (cudaStream_t)bt->stream,
                             fused_kernel_of(depth, seqs->cu != nullptr), a);
}

extern "C" int sv_cuda_fused_early_ok(int depth, int *ok)
{
    bool can = false;
    const cudaError_t e = can_launch_early(fused_kernel_of(depth, false), &can);
    *ok = can;
    return (int)e;
}

extern "C" int sv_cuda_fused_blocks_per_sm(int depth, int *blocks)
{
    return (int)cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, fused_kernel_of(depth, false),
                                                              FUSED_THREADS, 0);
}

extern "C" size_t sv_cuda_fused_winner_bytes(void)
{
    return sizeof(race_winner);
}
