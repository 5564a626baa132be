/* cuda_tree.cu: naive CUDA tree verification (contract version 6), the GPU
 * twins of samplers/tree_rule.c (recursive rejection, SV_RULE_TREE) and
 * samplers/tree_target_only.c (SGLang's target-only rule).
 *
 * One thread per sequence walks its tree from the root, as the CPU
 * references do, with their random numbers (child k+1's test at (k+1,
 * ACCEPT), node u's final draw at (u, FINAL)), so that given the same seed
 * it emits their tokens and path. The CPU keeps the residual r and, for
 * distinct siblings, the draft row s as rows of doubles; a GPU thread has
 * no such room, so it keeps only each rejection's normalizer and
 * re-derives r_i(j) and s_i(j) from p_u(j) and q(j) by the same operations
 * in the same order, element by element: the same doubles, at O(w^2 V) per
 * node of w children (w <= 16). Slow on purpose, like cuda_naive: the
 * reference a faster tree kernel would be measured against. */
#include <cuda_runtime.h>
#include "sv_cuda_kernels.h"
#include "sv_philox.h"
#include "sv_seq.cuh"

/* What a node's rejections so far did: after rejection i (1-based) the
 * residual was divided by rsum[i] (0: left as it was, r equal to s), and
 * for distinct siblings token gone[i] left s, which was divided by left[i]
 * (where positive). p0 and q0 scale the rows to sum 1. */
typedef struct tree_steps {
    double p0, q0, rsum[SV_MAX_K + 1], left[SV_MAX_K + 1];
    int32_t gone[SV_MAX_K + 1];
    int32_t done; /* rejections made */
    bool distinct;
} tree_steps;

__device__ static double clamp0(float v)
{
    return v > 0.0f ? (double)v : 0.0;
}

/* r(j) and s(j) after the rejections made, from the rows p and q. */
__device__ static void tree_eval(const tree_steps &st, const float *p, const float *q,
                                 int32_t j, double *r, double *s)
{
    double rv = clamp0(p[j]) / st.p0, sv = clamp0(q[j]) / st.q0;
    for (int32_t i = 1; i <= st.done; i++) {
        if (st.rsum[i] > 0.0)
            rv = fmax(rv - sv, 0.0) / st.rsum[i];
        if (st.distinct) {
            if (j == st.gone[i])
                sv = 0.0;
            if (st.left[i] > 0.0)
                sv /= st.left[i];
        }
    }
    *r = rv;
    *s = sv;
}

/* The sum of a row of V floats, negatives as 0; in index order. */
__device__ static double row_mass(const float *row, int32_t V)
{
    double sum = 0.0;
    for (int32_t i = 0; i < V; i++)
        sum += clamp0(row[i]);
    return sum;
}

/* Node u of the recursive rule: the child accepted (a node index), or 0
 * with the final token in *token; -1 on a row without mass. */
__device__ static int32_t tree_reject_step(const float *P, const float *Q, const int32_t *parents,
                                           const int32_t *x, int32_t d, int32_t V, int32_t u,
                                           bool distinct, uint64_t seed, uint64_t index,
                                           int32_t *token)
{
    const float *p = P + (int64_t)u * V, *q = NULL;
    tree_steps st;
    st.p0 = row_mass(p, V);
    st.q0 = 1.0;
    st.done = 0;
    st.distinct = distinct;
    if (!(st.p0 > 0.0))
        return -1;
    for (int32_t k = 0; k < d; k++) {
        if (parents[k] != u)
            continue;
        if (!q) { /* the children's shared draft row */
            if (!Q)
                return -1;
            q = Q + (int64_t)k * V;
            st.q0 = row_mass(q, V);
            if (!(st.q0 > 0.0))
                return -1;
        }
        double r, s;
        tree_eval(st, p, q, x[k], &r, &s);
        const double a = s > 0.0 ? fmin(1.0, r / s) : 0.0;
        if (sv_philox_uniform(seed, index, (uint32_t)k + 1u, SV_PURPOSE_ACCEPT, 0) < a)
            return k + 1;
        double rsum = 0.0; /* r's new normalizer, summed as the CPU sums it */
        for (int32_t j = 0; j < V; j++) {
            double rj, sj;
            tree_eval(st, p, q, j, &rj, &sj);
            rsum += fmax(rj - sj, 0.0);
        }
        const int32_t i = ++st.done;
        st.rsum[i] = rsum;
        st.gone[i] = x[k];
        st.left[i] = 1.0 - s;
    }
    /* the draw from r: the smallest token whose cumulative weight exceeds u
     * times the total, never one of weight 0 */
    double total = 0.0, r, s;
    for (int32_t j = 0; j < V; j++) {
        tree_eval(st, p, q ? q : p, j, &r, &s);
        total += r;
    }
    if (!(total > 0.0))
        return -1;
    const double at = sv_philox_uniform(seed, index, (uint32_t)u, SV_PURPOSE_FINAL, 0) * total;
    double acc = 0.0;
    int32_t last = -1;
    for (int32_t j = 0; j < V; j++) {
        tree_eval(st, p, q ? q : p, j, &r, &s);
        if (r <= 0.0)
            continue;
        acc += r;
        last = j;
        if (acc > at)
            break;
    }
    *token = last;
    return last < 0 ? -1 : 0;
}

/* Node u of the target-only rule: one draw from p_u by a CDF that lists u's
 * children's tokens first (each once, in child order), then every other
 * token; strict, so a token of no mass is never chosen. */
__device__ static int32_t tree_target_only_step(const float *P, const int32_t *parents,
                                                const int32_t *x, int32_t d, int32_t V,
                                                int32_t u, uint64_t seed, uint64_t index,
                                                int32_t *token)
{
    const float *p = P + (int64_t)u * V;
    const double total = row_mass(p, V);
    if (!(total > 0.0))
        return -1;
    const double at = sv_philox_uniform(seed, index, (uint32_t)u, SV_PURPOSE_FINAL, 0) * total;
    double acc = 0.0;
    for (int32_t k = 0; k < d; k++) {
        if (parents[k] != u)
            continue;
        bool repeated = false;
        for (int32_t j = 0; j < k && !repeated; j++)
            repeated = parents[j] == u && x[j] == x[k];
        if (repeated)
            continue;
        acc += clamp0(p[x[k]]);
        if (at < acc)
            return k + 1;
    }
    int32_t last = -1;
    for (int32_t i = 0; i < V; i++) {
        if (!(p[i] > 0.0f))
            continue;
        bool child = false;
        for (int32_t k = 0; k < d && !child; k++)
            child = parents[k] == u && x[k] == i;
        if (child)
            continue;
        acc += p[i];
        last = i;
        if (at < acc)
            break;
    }
    *token = last;
    return last < 0 ? -1 : 0;
}

/* MODE: TREE_RAGGED (a batch with per-sequence data, seqs) and
 * TREE_TARGET_ONLY (the rule) or'ed; one template argument, as tests/emu's
 * rewrite of launches takes. */
enum { TREE_RAGGED = 1, TREE_TARGET_ONLY = 2 };

template <int MODE>
__global__ static void tree_kernel(sv_batch bt, int *bad, sv_cuda_seqs seqs)
{
    constexpr bool RAGGED = (MODE & TREE_RAGGED) != 0, TARGET_ONLY = (MODE & TREE_TARGET_ONLY) != 0;
    const int32_t b = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
    if (b >= bt.B || (RAGGED && !seqs.info->ok))
        return;
    const int32_t d = seq_drafts<RAGGED>(bt, seqs, b), V = bt.V;
    const float *P = bt.target + seq_target_offset<RAGGED>(bt, seqs, b);
    const float *Q = bt.draft ? bt.draft + seq_draft_offset<RAGGED>(bt, seqs, b) : NULL;
    const int64_t at = RAGGED ? seq_drafts_offset<RAGGED>(bt, seqs, b) : (int64_t)b * bt.K;
    const int32_t *x = bt.draft_tokens + at, *parents = bt.parents + at;
    const int64_t out = RAGGED ? seq_out_offset<RAGGED>(bt, seqs, b) : (int64_t)b * (bt.K + 1);
    int32_t *y = bt.out_tokens + out, *path = bt.out_path + out;
    const uint64_t seed = RAGGED ? seqs.rng[b].seed : bt.seed;
    const uint64_t index = RAGGED ? seqs.rng[b].index : bt.first_index + (uint64_t)b;
    const bool distinct = bt.siblings == SV_SIBLINGS_DISTINCT;

    /* every node checked before any is walked, as on the CPU */
    bool ok = d <= SV_MAX_K;
    for (int32_t k = 0; ok && k < d; k++)
        ok = x[k] >= 0 && x[k] < V && parents[k] >= 0 && parents[k] <= k;
    int32_t u = 0, n = 0, token = -1;
    while (ok) {
        const int32_t next =
            TARGET_ONLY ? tree_target_only_step(P, parents, x, d, V, u, seed, index, &token)
                        : tree_reject_step(P, Q, parents, x, d, V, u, distinct, seed, index,
                                           &token);
        if (next < 0)
            ok = false;
        else if (next == 0)
            break;
        else {
            path[n] = next;
            y[n++] = x[next - 1];
            u = next;
        }
    }
    if (!ok) { /* bad input: this sequence's own slots say so */
        *bad = 1;
        for (int32_t k = 0; k <= d; k++)
            y[k] = path[k] = -1;
        bt.out_accepted[b] = -1;
        return;
    }
    y[n] = token;
    for (int32_t k = n; k <= d; k++)
        path[k] = -1;
    for (int32_t k = n + 1; k <= d; k++)
        y[k] = -1;
    bt.out_accepted[b] = n;
}

extern "C" int sv_cuda_tree_launch(const sv_batch *bt, const sv_cuda_seqs *seqs, int target_only,
                                   int *bad)
{
    const int threads = 64;
    const unsigned blocks = (unsigned)((bt->B + threads - 1) / threads);
    if (bt->B <= 0)
        return (int)cudaSuccess;
    cudaStream_t stream = (cudaStream_t)bt->stream;
    const int mode = (seqs->cu ? TREE_RAGGED : 0) | (target_only ? TREE_TARGET_ONLY : 0);
    if (mode == 0)
        tree_kernel<0><<<blocks, threads, 0, stream>>>(*bt, bad, *seqs);
    else if (mode == TREE_RAGGED)
        tree_kernel<1><<<blocks, threads, 0, stream>>>(*bt, bad, *seqs);
    else if (mode == TREE_TARGET_ONLY)
        tree_kernel<2><<<blocks, threads, 0, stream>>>(*bt, bad, *seqs);
    else
        tree_kernel<3><<<blocks, threads, 0, stream>>>(*bt, bad, *seqs);
    return (int)cudaGetLastError();
}
