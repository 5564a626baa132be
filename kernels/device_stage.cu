/* device_stage.cu: the kernels of device staging (sv_device_stage.h).
 *
 * Drafting follows GSL 2.7's gsl_ran_discrete (randist/discrete.c, built
 * with KNUTH_CONVENTION): u = the generator's double, c = (size_t)(u K),
 * f = F[c]; c when f == 1 or u < f, else A[c]. The generator's double is
 * sv_philox_uniform at lane 0 (harness/run/philox_gsl.c), exact on both
 * sides (no rounding but the one product u K, the same IEEE multiply), so
 * the tokens are the host's bit for bit. */
#include <cuda_runtime.h>
#include "sv_device_stage.h"
#include "sv_philox.h"

enum { THREADS = 128 };

__global__ static void draft_kernel(sv_dstage_rows r, uint64_t seed, uint64_t first, int32_t B,
                                    int32_t *drafts)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (int64_t)B * r.K)
        return;
    const int32_t b = (int32_t)(i / r.K), k = (int32_t)(i % r.K);
    const double u = sv_philox_uniform(seed, first + (uint64_t)b, (uint32_t)k, SV_PURPOSE_DRAFT, 0);
    const size_t c = (size_t)(u * (double)r.V);
    const size_t at = (size_t)k * (size_t)r.V + c;
    const double f = r.F[at];
    drafts[i] = (f == 1.0 || u < f) ? (int32_t)c : r.A[at];
}

/* 1 when sequence b is one sv_check_sequence would not keep. */
__device__ static int broken(const sv_dstage_rows &r, int32_t b, const int32_t *drafts,
                             const int32_t *tokens, const int32_t *accepted)
{
    const int32_t K = r.K, V = r.V, n = accepted[b];
    const int32_t *x = drafts + (size_t)b * K, *y = tokens + (size_t)b * (K + 1);
    if (n < 0 || n > K) /* the poison too */
        return 1;
    for (int32_t k = 0; k <= n; k++) {
        if (y[k] < 0 || y[k] >= V || (k < n && y[k] != x[k]) ||
            r.target[(size_t)k * V + y[k]] == 0.0f)
            return 1;
    }
    for (int32_t k = n + 1; k <= K; k++)
        if (y[k] != -1)
            return 1;
    return 0;
}

__global__ static void check_kernel(sv_dstage_rows r, int32_t B, const int32_t *drafts,
                                    const int32_t *tokens, const int32_t *accepted,
                                    unsigned *flag)
{
    const int32_t b = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
    if (b < B && broken(r, b, drafts, tokens, accepted))
        atomicOr(flag, 1u);
}

__global__ static void tally_kernel(sv_dstage_rows r, sv_dstage_counts c, int32_t B,
                                    const int32_t *tokens, const int32_t *accepted,
                                    const unsigned *flag)
{
    const int32_t b = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
    if (b >= B || *flag)
        return;
    const int32_t K = r.K, V = r.V, n = accepted[b];
    const int32_t *y = tokens + (size_t)b * (K + 1);
    for (int32_t k = 0; k <= n; k++) {
        atomicAdd(&c.hist[(size_t)k * V + y[k]], 1ull);
        atomicAdd(&c.reached[k], 1ull);
    }
    atomicAdd(&c.length[n], 1ull);
    if (n >= 1 && r.pos_rows) {
        const int32_t i = r.pos_rows[y[0]], j = r.pos_cols[y[1]];
        if (i >= 0 && j >= 0)
            atomicAdd(&c.pairs_pos[i * r.pos_ncols + j], 1ull);
    }
    /* pairs (2m, 2m+1): the batch's first is even, so an even b starts one */
    if ((b & 1) == 0 && b + 1 < B && r.seq_rows) {
        const int32_t i = r.seq_rows[y[0]], j = r.seq_cols[tokens[(size_t)(b + 1) * (K + 1)]];
        if (i >= 0 && j >= 0)
            atomicAdd(&c.pairs_seq[i * r.seq_ncols + j], 1ull);
    }
}

static unsigned blocks_for(int64_t n)
{
    return (unsigned)((n + THREADS - 1) / THREADS);
}

extern "C" int sv_dstage_draft_launch(const sv_dstage_rows *r, uint64_t seed, uint64_t first,
                                      int32_t B, int32_t *drafts, void *stream)
{
    const int64_t n = (int64_t)B * r->K;
    if (n == 0)
        return 0;
    draft_kernel<<<blocks_for(n), THREADS, 0, (cudaStream_t)stream>>>(*r, seed, first, B, drafts);
    return (int)cudaGetLastError();
}

extern "C" int sv_dstage_check_launch(const sv_dstage_rows *r, int32_t B, const int32_t *drafts,
                                      const int32_t *tokens, const int32_t *accepted,
                                      unsigned *flag, void *stream)
{
    if (B == 0)
        return 0;
    check_kernel<<<blocks_for(B), THREADS, 0, (cudaStream_t)stream>>>(*r, B, drafts, tokens, accepted, flag);
    return (int)cudaGetLastError();
}

extern "C" int sv_dstage_tally_launch(const sv_dstage_rows *r, const sv_dstage_counts *c,
                                      int32_t B, const int32_t *tokens, const int32_t *accepted,
                                      const unsigned *flag, void *stream)
{
    if (B == 0)
        return 0;
    tally_kernel<<<blocks_for(B), THREADS, 0, (cudaStream_t)stream>>>(*r, *c, B, tokens, accepted, flag);
    return (int)cudaGetLastError();
}
