/* device_stage.cu: the kernels of device staging (sv_device_stage.h).
 *
 * Drafting follows GSL 2.7's gsl_ran_discrete (randist/discrete.c, built
 * with KNUTH_CONVENTION): u = the generator's double, c = (size_t)(u K),
 * f = F[c]; c when f == 1 or u < f, else A[c]. The generator's double is
 * sv_philox_uniform at lane 0 (harness/run/philox_gsl.c), exact on both
 * sides (no rounding but the one product u K, the same IEEE multiply), so
 * the tokens are the host's bit for bit. A mixed batch's sequences are each
 * drafted, checked and counted in their own case (sv_dstage_mix). */
#include <cuda_runtime.h>
#include "sv_device_stage.h"
#include "sv_philox.h"

enum { THREADS = 128 };

/* Draft k of a sequence (global index `index`) from its case's rows r. */
__device__ static int32_t draft_of(const sv_dstage_rows &r, uint64_t seed, uint64_t index,
                                   int32_t k)
{
    const double u = sv_philox_uniform(seed, index, (uint32_t)k, SV_PURPOSE_DRAFT, 0);
    const size_t c = (size_t)(u * (double)r.V);
    const size_t at = (size_t)k * (size_t)r.V + c;
    const double f = r.F[at];
    return (f == 1.0 || u < f) ? (int32_t)c : r.A[at];
}

__global__ static void draft_kernel(sv_dstage_rows r, uint64_t seed, uint64_t first, int32_t B,
                                    int32_t *drafts)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (int64_t)B * r.K)
        return;
    const int32_t b = (int32_t)(i / r.K), k = (int32_t)(i % r.K);
    drafts[i] = draft_of(r, seed, first + (uint64_t)b, k);
}

/* 1 when a sequence of d drafts x, outputs y and count n is one
 * sv_check_sequence would not keep; `pad` slots after its d + 1 must still
 * hold `poison` (a mix's padded layout, as mix_unit.c checks them). */
__device__ static int broken(const sv_dstage_rows &r, int32_t d, const int32_t *x,
                             const int32_t *y, int32_t n, int32_t pad, int32_t poison)
{
    const int32_t V = r.V;
    if (n < 0 || n > d) /* the poison too */
        return 1;
    for (int32_t k = 0; k <= n; k++) {
        if (y[k] < 0 || y[k] >= V || (k < n && y[k] != x[k]) ||
            r.target[(size_t)k * V + y[k]] == 0.0f)
            return 1;
    }
    for (int32_t k = n + 1; k <= d; k++)
        if (y[k] != -1)
            return 1;
    for (int32_t k = d + 1; k <= d + pad; k++)
        if (y[k] != poison)
            return 1;
    return 0;
}

__global__ static void check_kernel(sv_dstage_rows r, int32_t B, const int32_t *drafts,
                                    const int32_t *tokens, const int32_t *accepted,
                                    unsigned *flag)
{
    const int32_t b = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
    if (b < B && broken(r, r.K, drafts + (size_t)b * r.K, tokens + (size_t)b * (r.K + 1),
                        accepted[b], 0, 0))
        atomicOr(flag, 1u);
}

/* One kept sequence's outputs y (n accepted) into c, as sv_count_batch
 * counts them; its length only when `length` (a mix's: all K drafts given). */
__device__ static void count_one(const sv_dstage_rows &r, const sv_dstage_counts &c,
                                 const int32_t *y, int32_t n, int length)
{
    const int32_t V = r.V;
    for (int32_t k = 0; k <= n; k++) {
        atomicAdd(&c.hist[(size_t)k * V + y[k]], 1ull);
        atomicAdd(&c.reached[k], 1ull);
    }
    if (length)
        atomicAdd(&c.length[n], 1ull);
    if (n >= 1 && r.pos_rows) {
        const int32_t i = r.pos_rows[y[0]], j = r.pos_cols[y[1]];
        if (i >= 0 && j >= 0)
            atomicAdd(&c.pairs_pos[i * r.pos_ncols + j], 1ull);
    }
}

/* The pair (y_1 of 2m, y_1 of 2m+1) into c's sequence table. */
__device__ static void count_pair(const sv_dstage_rows &r, const sv_dstage_counts &c,
                                  int32_t first, int32_t second)
{
    if (!r.seq_rows)
        return;
    const int32_t i = r.seq_rows[first], j = r.seq_cols[second];
    if (i >= 0 && j >= 0)
        atomicAdd(&c.pairs_seq[i * r.seq_ncols + j], 1ull);
}

__global__ static void tally_kernel(sv_dstage_rows r, sv_dstage_counts c, int32_t B,
                                    const int32_t *tokens, const int32_t *accepted,
                                    const unsigned *flag)
{
    const int32_t b = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
    if (b >= B || *flag)
        return;
    const int32_t K = r.K;
    const int32_t *y = tokens + (size_t)b * (K + 1);
    count_one(r, c, y, accepted[b], 1);
    /* pairs (2m, 2m+1): the batch's first is even, so an even b starts one */
    if ((b & 1) == 0 && b + 1 < B)
        count_pair(r, c, y[0], tokens[(size_t)(b + 1) * (K + 1)]);
}

/* ---- mixed batches ---- */

/* Sequence b of a mixed batch: its slot, and where its drafts and outputs
 * start (the slots' drafts before it: the mix's prefix sums, past the
 * period's end as many times as it wrapped). */
typedef struct mix_seq {
    int32_t slot, drafts_at, outputs_at;
} mix_seq;

__device__ static mix_seq mix_seq_of(const sv_dstage_mix &m, int32_t b)
{
    const int32_t v = m.s0 + b, s = v % m.period;
    mix_seq q;
    q.slot = s;
    if (m.packed) {
        q.drafts_at = (v / m.period) * m.cu[m.period] + m.cu[s] - m.cu[m.s0];
        q.outputs_at = q.drafts_at + b;
    } else {
        q.drafts_at = b * m.K;
        q.outputs_at = b * (m.K + 1);
    }
    return q;
}

__global__ static void mix_draft_kernel(sv_dstage_mix m, uint64_t seed, uint64_t first,
                                        int32_t B, int32_t *drafts)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (int64_t)B * m.K)
        return;
    const int32_t b = (int32_t)(i / m.K), k = (int32_t)(i % m.K);
    const mix_seq q = mix_seq_of(m, b);
    if (k < m.drafts[q.slot])
        drafts[q.drafts_at + k] = draft_of(m.rows[m.case_of[q.slot]], seed, first + (uint64_t)b, k);
    else if (!m.packed)
        drafts[q.drafts_at + k] = -1; /* no draft here, as mix_unit.c leaves it */
}

__global__ static void mix_check_kernel(sv_dstage_mix m, int32_t B, const int32_t *drafts,
                                        const int32_t *tokens, const int32_t *accepted,
                                        unsigned *flag)
{
    const int32_t b = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
    if (b >= B)
        return;
    const mix_seq q = mix_seq_of(m, b);
    const int32_t d = m.drafts[q.slot];
    if (broken(m.rows[m.case_of[q.slot]], d, drafts + q.drafts_at, tokens + q.outputs_at,
               accepted[b], m.packed ? 0 : m.K - d, m.poison))
        atomicOr(flag, 1u);
}

__global__ static void mix_tally_kernel(sv_dstage_mix m, int32_t B, const int32_t *tokens,
                                        const int32_t *accepted, const unsigned *flag)
{
    const int32_t b = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
    if (b >= B || *flag)
        return;
    const mix_seq q = mix_seq_of(m, b);
    const int32_t ci = m.case_of[q.slot];
    const sv_dstage_rows &r = m.rows[ci];
    const sv_dstage_counts &c = m.counts[ci];
    const int32_t *y = tokens + q.outputs_at;
    count_one(r, c, y, accepted[b], m.drafts[q.slot] == r.K);
    /* pairs (2m, 2m+1) of one case: the batch's first is even, so an odd b closes one */
    if (b & 1) {
        const mix_seq p = mix_seq_of(m, b - 1);
        if (m.case_of[p.slot] == ci)
            count_pair(r, c, tokens[p.outputs_at], y[0]);
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

extern "C" int sv_dstage_mix_draft_launch(const sv_dstage_mix *m, uint64_t seed, uint64_t first,
                                          int32_t B, int32_t *drafts, void *stream)
{
    const int64_t n = (int64_t)B * m->K;
    if (n == 0)
        return 0;
    mix_draft_kernel<<<blocks_for(n), THREADS, 0, (cudaStream_t)stream>>>(*m, seed, first, B, drafts);
    return (int)cudaGetLastError();
}

extern "C" int sv_dstage_mix_check_launch(const sv_dstage_mix *m, int32_t B,
                                          const int32_t *drafts, const int32_t *tokens,
                                          const int32_t *accepted, unsigned *flag, void *stream)
{
    if (B == 0)
        return 0;
    mix_check_kernel<<<blocks_for(B), THREADS, 0, (cudaStream_t)stream>>>(*m, B, drafts, tokens, accepted, flag);
    return (int)cudaGetLastError();
}

extern "C" int sv_dstage_mix_tally_launch(const sv_dstage_mix *m, int32_t B,
                                          const int32_t *tokens, const int32_t *accepted,
                                          const unsigned *flag, void *stream)
{
    if (B == 0)
        return 0;
    mix_tally_kernel<<<blocks_for(B), THREADS, 0, (cudaStream_t)stream>>>(*m, B, tokens, accepted, flag);
    return (int)cudaGetLastError();
}
