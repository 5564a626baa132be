/* sv_logits.cuh: what cuda_fused's three logits kernels share (see
 * cuda_fused_logits.cu for the method): loading logits in their canonical
 * form and order, one row's summary (row_stats) and a p_i from it, the rows
 * of a launch (row_args), the verify kernel's arguments, and each kernel's
 * launch, defined beside it (logits_stats.cu, logits_cut.cu,
 * logits_verify.cu). Device code for one translation unit each; the host
 * launchers are in SV_LOGITS_NS (tests/emu builds its own under another). */
#ifndef SV_LOGITS_CUH
#define SV_LOGITS_CUH

#include <cuda_runtime.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include "sv_cuda_kernels.h"
#include "sv_early_launch.cuh"
#include "sv_philox.h"
#include "sv_race.cuh"
#include "sv_seq.cuh"
#include "sv_softmax.h"

#ifndef SV_LOGITS_NS
#define SV_LOGITS_NS sv_logits
#endif

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

struct msa; /* stats_kernel's running summary of a slice (logits_stats.cu) */
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


/* Row r of a launch with per-sequence data (s.cu not NULL), whose rows are
 * numbered as the packed layout lays them, in either layout: sequence b's
 * target rows at cu[b] + b + k (k <= d_b), then its draft rows at
 * n_target_rows + cu[b] + k (k < d_b), where n_target_rows = cu[B] + B
 * (s.info's, from the prep kernel; r < s.info->n_rows). Its sequence goes
 * to *seq (a binary search of cu: the last sequence whose first row is at
 * or before r). */
template <typename LT>
__device__ __forceinline__ static const LT *ragged_row(const row_args &a, const sv_cuda_seqs &s,
                                                       int32_t r, int32_t *seq)
{
    const int32_t n_target_rows = s.info->n_target_rows;
    const bool target = r < n_target_rows;
    const int32_t rr = target ? r : r - n_target_rows; /* among the target or draft rows */
    int32_t lo = 0, hi = s.B - 1;
    while (lo < hi) { /* a draft row's sequence is the last of those that share its cu */
        const int32_t mid = (lo + hi + 1) / 2;
        if (s.cu[mid] + (target ? mid : 0) <= rr)
            lo = mid;
        else
            hi = mid - 1;
    }
    *seq = lo;
    const LT *base = static_cast<const LT *>(target ? a.target : a.draft);
    if (s.layout == SV_LAYOUT_PACKED)
        return base + (int64_t)rr * a.V;
    const int32_t k = rr - s.cu[lo] - (target ? lo : 0);
    return base + (int64_t)lo * (target ? a.target_stride : a.draft_stride) + (int64_t)k * a.V;
}

/* A sequence's rule as the kernels weigh it. */
__device__ __forceinline__ static weighing weighing_of(const sv_seq_rule &rule)
{
    return {rule.greedy != 0, rule.cut != 0, rule.scale};
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
    weighing wg;              /* the batch's rule (a batch without per-sequence data) */
    sv_cuda_seqs seqs;        /* per-sequence data, cu NULL for none (last: the uniform
                               * kernels' parameters keep their places) */
};

namespace SV_LOGITS_NS {
/* The launches, each early (sv_early_launch.cuh) or not. With per-sequence
 * data (seqs->cu not NULL) the rows are ragged_row's and each weighs by its
 * sequence's rule; else row_of's, by a.wg. stats: `blocks` blocks over the
 * rows laid end to end, weighing (T > 0) or the argmax (weigh: the batch's
 * rule). */
template <typename LT>
cudaError_t stats_launch(bool early, int32_t blocks, cudaStream_t stream, const row_args &a,
                         bool weigh, const sv_cuda_seqs *seqs);
/* cut: one block per row, top-k and top-p thresholds into a.stats (top_k,
 * top_p: the batch's rule); with per-sequence data, the rows whose rule
 * cuts. */
template <typename LT>
cudaError_t cut_launch(bool early, cudaStream_t stream, const row_args &a, int32_t top_k,
                       double top_p, const sv_cuda_seqs *seqs);
/* verify: B x splits blocks; plain: T > 0 and nothing cut, for every
 * sequence; per-sequence data in a.seqs. */
template <typename LT>
cudaError_t verify_launch(bool early, cudaStream_t stream, const verify_args &a, bool plain);
/* For sv_cuda_logits_blocks_per_sm and _early_ok: the float kernels stand
 * for the bf16 ones (the same launch bounds and registers on sm_90). */
cudaError_t stats_occupancy(int *blocks);
cudaError_t verify_occupancy(int *blocks);
cudaError_t verify_early_ok(bool *ok);
size_t msa_bytes(void);
} // namespace SV_LOGITS_NS

#endif
