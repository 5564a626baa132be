/* cuda_fused.cu: the fast CUDA rejection sampler, and its broken twin.
 *
 * Reads only what a step needs. Every block of sequence b first walks the
 * accept chain on 2K gathered scalars p_k(x_k), q_k(x_k) (cheap, so each
 * block does it rather than waiting for another kernel), which fixes n, the
 * accepted count. Then the row pair (p_n, q_n) at the first rejection, or
 * p_{K+1} alone after K acceptances, is read once, with 16-byte loads where
 * the rows are aligned, split across `splits` blocks so that a small batch
 * still fills the GPU.
 *
 * The final token is an exponential race, one pass, no normalization:
 *     argmin_i t_i,  t_i = -log(u_i) / w_i  over w_i = max(p_i - q_i, 0) > 0,
 * ties to the lowest i, with u_i = sv_philox_uniform(seed, index, n, FINAL,
 * lane i): exactly samplers/ref_race.c's numbers and arithmetic (double), so
 * the two emit the same tokens but for last-bit differences of log. Double,
 * not float: float exponentials bottom out near 2^-24 and under-sample the
 * race's tail (DESIGN.md).
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
 * cuda_fused_shared_uniform (broken on purpose): the acceptance uniforms of
 * a group of 32 consecutive sequences come from the group's first sequence,
 * as when a kernel draws one uniform per thread block instead of one per
 * sequence. Each sequence alone is still exact; consecutive ones are not
 * independent.
 */
#include <cuda_runtime.h>
#include <math.h>
#include "sv_cuda_kernels.h"
#include "sv_philox.h"
#include "sv_race.cuh"

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
};

/* w_i for the race: max(p_i - q_i, 0), or p_i when use_q is 0. */
__device__ __forceinline__ static double race_weight(float p, float q, int use_q)
{
    double w = (double)p - (use_q ? (double)q : 0.0);
    return w > 0.0 ? w : 0.0;
}

/* The race over tokens [lo, hi) of row p (and q when use_q; token `hot`, the
 * one-hot drafter's draft, weighs 0), by this thread and its block-mates,
 * strided; returns this thread's best. */
__device__ static race_winner race_slice(const float *p, const float *q, int use_q, int32_t hot,
                                         int32_t lo, int32_t hi, uint64_t seed, uint64_t index,
                                         uint32_t n)
{
    race_winner best = {INFINITY, -1};
    /* the float4 body needs both rows 16-byte aligned at lo (lo is a multiple of 4) */
    const bool vec = ((reinterpret_cast<uintptr_t>(p + lo) |
                       (use_q ? reinterpret_cast<uintptr_t>(q + lo) : 0)) & 15u) == 0;
    int32_t body_end = vec ? lo + ((hi - lo) & ~3) : lo;
    for (int32_t i0 = lo + 4 * (int32_t)threadIdx.x; i0 < body_end; i0 += 4 * blockDim.x) {
        float4 pv = *reinterpret_cast<const float4 *>(p + i0);
        float4 qv = use_q ? *reinterpret_cast<const float4 *>(q + i0) : make_float4(0, 0, 0, 0);
        double w[4] = {race_weight(pv.x, qv.x, use_q), race_weight(pv.y, qv.y, use_q),
                       race_weight(pv.z, qv.z, use_q), race_weight(pv.w, qv.w, use_q)};
        for (int j = 0; j < 4; j++)
            if (i0 + j == hot)
                w[j] = 0.0;
        for (int pair = 0; pair < 2; pair++) { /* tokens i0 + 2 pair, + 1 share a Philox block */
            if (!(w[2 * pair] > 0.0 || w[2 * pair + 1] > 0.0))
                continue;
            int32_t i = i0 + 2 * pair;
            philox4x32_ctr_t r = sv_philox_block(seed, index, n, SV_PURPOSE_FINAL, (uint32_t)i >> 1);
            if (w[2 * pair] > 0.0)
                keep_better(best, race_time(r, i, w[2 * pair]), i);
            if (w[2 * pair + 1] > 0.0)
                keep_better(best, race_time(r, i + 1, w[2 * pair + 1]), i + 1);
        }
    }
    /* the scalar tail: unaligned rows, and the last tile's V mod 4 tokens */
    for (int32_t i = body_end + (int32_t)threadIdx.x; i < hi; i += blockDim.x) {
        double w = i == hot ? 0.0 : race_weight(p[i], use_q ? q[i] : 0.0f, use_q);
        if (!(w > 0.0))
            continue;
        philox4x32_ctr_t r = sv_philox_block(seed, index, n, SV_PURPOSE_FINAL, (uint32_t)i >> 1);
        keep_better(best, race_time(r, i, w), i);
    }
    return best;
}

__global__ static void __launch_bounds__(FUSED_THREADS) fused_kernel(fused_args a)
{
    const sv_batch &bt = a.bt;
    /* sequences on x (up to 2^31 - 1 blocks), slices on y (at most 65535) */
    const int32_t b = (int32_t)blockIdx.x, split = (int32_t)blockIdx.y;
    const int32_t K = bt.K, V = bt.V;
    const uint64_t seed = a.rng ? a.rng[0] : bt.seed;
    const uint64_t first = a.rng ? a.rng[1] : bt.first_index;
    const uint64_t index = first + (uint64_t)b;
    const float *P = bt.target + (int64_t)b * bt.target_stride;
    const float *Q = bt.draft ? bt.draft + (int64_t)b * bt.draft_stride : nullptr;
    const int32_t *x = bt.draft_tokens + (int64_t)b * K;

    /* the accept chain: n, or -1 for a token outside [0, V) */
    __shared__ int32_t n_shared;
    if (threadIdx.x == 0) {
        const uint64_t accept_index =
            a.shared_uniform ? first + (uint64_t)(b - b % SHARED_UNIFORM_GROUP) : index;
        int32_t n = 0;
        for (; n < K; n++) {
            const int32_t t = x[n];
            if (t < 0 || t >= V) {
                n = -1;
                break;
            }
            double p = P[(int64_t)n * V + t], q = Q ? Q[(int64_t)n * V + t] : 1.0;
            double u = sv_philox_uniform(seed, accept_index, (uint32_t)n, SV_PURPOSE_ACCEPT, 0);
            if (!(u * q < p))
                break;
        }
        n_shared = n;
    }
    __syncthreads();
    const int32_t n = n_shared;
    if (n < 0) {
        if (split == 0 && threadIdx.x == 0)
            write_sequence(bt, b, x, n, -1, a.bad);
        return;
    }

    /* this block's slice of the final row */
    const float *p = P + (int64_t)n * V;
    const int use_q = n < K && Q != nullptr;
    const float *q = use_q ? Q + (int64_t)n * V : nullptr;
    const int32_t hot = (n < K && Q == nullptr) ? x[n] : -1; /* one-hot drafter */
    const int32_t lo = min(V, split * a.chunk), hi = min(V, lo + a.chunk);
    race_winner mine = race_slice(p, q, use_q, hot, lo, hi, seed, index, (uint32_t)n);
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
        race_winner again = race_slice(p, nullptr, 0, -1, 0, V, seed, index, (uint32_t)n);
        again = block_best(again);
        if (threadIdx.x == 0)
            token = again.i;
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        write_sequence(bt, b, x, n, token, a.bad); /* token < 0: an all-zero row */
        a.arrivals[b] = 0; /* re-armed for the next launch */
    }
}

extern "C" int sv_cuda_fused_launch(const sv_batch *bt, const uint64_t *rng, int32_t splits,
                                    void *winners, unsigned *arrivals, int *bad,
                                    int shared_uniform)
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
    dim3 grid((unsigned)bt->B, (unsigned)splits);
    fused_kernel<<<grid, FUSED_THREADS, 0, (cudaStream_t)bt->stream>>>(a);
    return (int)cudaGetLastError();
}

extern "C" int sv_cuda_fused_blocks_per_sm(int *blocks)
{
    return (int)cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, fused_kernel,
                                                              FUSED_THREADS, 0);
}

extern "C" size_t sv_cuda_fused_winner_bytes(void)
{
    return sizeof(race_winner);
}
