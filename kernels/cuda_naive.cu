/* cuda_naive.cu: the plainest correct CUDA rejection sampler, the GPU twin of
 * samplers/ref.c, for teaching and as the baseline cuda_fused is measured
 * against.
 *
 * One thread per sequence walks the K drafts, then draws the final token by
 * an inverse CDF in double: one pass sums the weights, a second walks them.
 * It reads up to (2K + 2) full rows per sequence with uncoalesced loads, so
 * it is slow on purpose; it uses ref's random numbers (ACCEPT at (index, k),
 * FINAL at (index, n), lane 0), so given the same seed it emits ref's tokens
 * but for rounding ties of the two summation orders. A version 3 batch's
 * sequences (sv_cuda_seqs) each take their own d_b, layout offsets, seed
 * and index.
 */
#include <cuda_runtime.h>
#include "sv_cuda_kernels.h"
#include "sv_philox.h"
#include "sv_seq.cuh"

/* max(p_i - q_i, 0), or p_i without q; token `skip` weighs 0. */
__device__ static double naive_weight(const float *p, const float *q, int32_t skip, int32_t i)
{
    if (i == skip)
        return 0.0;
    double w = (double)p[i] - (q ? (double)q[i] : 0.0);
    return w > 0.0 ? w : 0.0;
}

/* One draw from the weights with the uniform u; -1 when they are all 0. */
__device__ static int32_t naive_inverse_cdf(const float *p, const float *q, int32_t skip,
                                            int32_t V, double u)
{
    double total = 0.0;
    for (int32_t i = 0; i < V; i++)
        total += naive_weight(p, q, skip, i);
    if (!(total > 0.0))
        return -1;
    double target = u * total, cumulative = 0.0;
    int32_t last = -1;
    for (int32_t i = 0; i < V; i++) {
        double w = naive_weight(p, q, skip, i);
        if (w <= 0.0)
            continue;
        last = i;
        cumulative += w;
        if (target < cumulative)
            return i;
    }
    return last; /* rounding left target at the very end: the last positive weight */
}

/* RAGGED: a version 3 batch's sequences (seqs); else every d_b = K. */
template <bool RAGGED>
__global__ static void naive_kernel(sv_batch bt, int *bad, sv_cuda_seqs seqs)
{
    const int32_t b = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
    if (b >= bt.B || (RAGGED && !seqs.info->ok)) /* not ok: the prep kernel set *bad */
        return;
    const int32_t K = seq_drafts<RAGGED>(bt, seqs, b), V = bt.V; /* K: this sequence's d_b */
    const float *P = bt.target + seq_target_offset<RAGGED>(bt, seqs, b);
    const float *Q = bt.draft ? bt.draft + seq_draft_offset<RAGGED>(bt, seqs, b) : NULL;
    /* not RAGGED: from K, as before version 3 (the kernel compiles as it did) */
    const int32_t *x =
        bt.draft_tokens + (RAGGED ? seq_drafts_offset<RAGGED>(bt, seqs, b) : (int64_t)b * K);
    int32_t *y =
        bt.out_tokens + (RAGGED ? seq_out_offset<RAGGED>(bt, seqs, b) : (int64_t)b * (K + 1));
    const uint64_t index = RAGGED ? seqs.rng[b].index : bt.first_index + (uint64_t)b;

    /* any draft outside [0, V), reached or not, refuses the sequence (as on
     * the CPU), and no row is ever indexed with one */
    int32_t n = 0;
    for (int32_t k = 0; k < K; k++)
        if (x[k] < 0 || x[k] >= V)
            n = -1;
    for (int32_t k = 0; n >= 0 && k < K; k++) {
        double p = P[(int64_t)k * V + x[k]];
        double q = Q ? Q[(int64_t)k * V + x[k]] : 1.0;
        double u = sv_philox_uniform(RAGGED ? seqs.rng[b].seed : bt.seed, index, (uint32_t)k,
                                     SV_PURPOSE_ACCEPT, 0);
        if (!(u * q < p)) /* strict, u in (0, 1): p = 0 is never accepted */
            break;
        y[k] = x[k];
        n++;
    }

    int32_t last = -1;
    if (n >= 0) {
        double u = sv_philox_uniform(RAGGED ? seqs.rng[b].seed : bt.seed, index, (uint32_t)n,
                                     SV_PURPOSE_FINAL, 0);
        const float *row = P + (int64_t)n * V;
        if (n < K) {
            last = Q ? naive_inverse_cdf(row, Q + (int64_t)n * V, -1, V, u)
                     : naive_inverse_cdf(row, NULL, x[n], V, u);
            if (last < 0) /* empty residual: p == q up to rounding */
                last = naive_inverse_cdf(row, NULL, -1, V, u);
        } else {
            last = naive_inverse_cdf(row, NULL, -1, V, u);
        }
    }
    /* its own slots only, 0..d_b: the padded layout's past them are not */
    if (last < 0) { /* a bad token or an all-zero target row */
        *bad = 1;
        for (int32_t k = 0; k <= K; k++)
            y[k] = -1;
        bt.out_accepted[b] = -1;
        return;
    }
    y[n] = last;
    for (int32_t k = n + 1; k <= K; k++)
        y[k] = -1;
    bt.out_accepted[b] = n;
}

extern "C" int sv_cuda_naive_launch(const sv_batch *bt, const sv_cuda_seqs *seqs, int *bad)
{
    const int threads = 128;
    const unsigned blocks = (unsigned)((bt->B + threads - 1) / threads);
    if (bt->B <= 0)
        return (int)cudaSuccess;
    if (seqs->cu)
        naive_kernel<true><<<blocks, threads, 0, (cudaStream_t)bt->stream>>>(*bt, bad, *seqs);
    else
        naive_kernel<false><<<blocks, threads, 0, (cudaStream_t)bt->stream>>>(*bt, bad, *seqs);
    return (int)cudaGetLastError();
}
