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
 * Three kernels, a file each (logits_stats.cu, logits_cut.cu,
 * logits_verify.cu; what they share in sv_logits.cuh), this file their host
 * launcher, queued on the batch's stream, no host synchronization, so a
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
 * A version 3 batch with per-sequence data (sv_cuda_seqs, laid out by the
 * prep kernel, seq_prep.cu, which runs first) takes each kernel's ragged
 * instance: its rows are numbered as the packed layout lays them, in either
 * layout (sv_logits.cuh, ragged_row), and counted on the device (the grids
 * are sized for B (2K + 1) rows, the most there can be); each row weighs by
 * its sequence's rule (greedy, weighed, cut); the cut kernel runs unless no
 * rule can cut (as the host sees the batch) and cuts the rows whose rule
 * does; the verify kernel reads each sequence's d_b, offsets, randomness
 * and rule. A batch without it takes the uniform instances, which compile
 * as they did before version 3.
 *
 * Logits are canonicalized on load: -0.0 becomes +0.0 (the twin compares
 * doubles, where -0 == +0, and breaks the tie by index). A bf16 logit is its
 * 16 bits shifted into a float's top half.
 */
#include <cuda_runtime.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include "sv_logits.cuh"

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
static cudaError_t launch_all(const sv_batch *bt, const sv_cuda_seqs *seqs, const uint64_t *rng,
                              const sv_cuda_logits_ws *ws, int *bad, int prune, bool early)
{
    const int32_t B = bt->B, K = bt->K, V = bt->V;
    const bool ragged = seqs->cu != nullptr;
    cudaStream_t stream = (cudaStream_t)bt->stream;
    row_args ra;
    ra.target = bt->target_logits;
    ra.draft = bt->draft_logits;
    ra.target_stride = bt->target_stride;
    ra.draft_stride = bt->draft_stride;
    ra.K = K;
    ra.V = V;
    if (ragged) { /* at most: the prep kernel counts them, the kernels read its count */
        ra.n_target_rows = B * (K + 1);
        ra.n_rows = ra.n_target_rows + (bt->draft_logits ? B * K : 0);
    } else {
        ra.n_target_rows = (bt->target_stride ? B : 1) * (K + 1);
        ra.n_rows = ra.n_target_rows + (bt->draft_logits ? (bt->draft_stride ? B : 1) * K : 0);
    }
    /* the batch's rule; with per-sequence data each row's is its sequence's */
    const bool greedy = !ragged && bt->temperature == 0.0;
    ra.wg.greedy = greedy;
    ra.wg.cut = ragged ? seqs->may_cut != 0
                       : !greedy && ((bt->top_k > 0 && bt->top_k < V) || bt->top_p < 1.0);
    ra.wg.scale = greedy || ragged ? sv_softmax_scale{1.0f, 0.0f, FLT_MAX}
                                   : sv_softmax_scale_of(bt->temperature);
    ra.stats = static_cast<row_stats *>(ws->stats);
    ra.partials = static_cast<msa *>(ws->partials);
    ra.arrivals = ws->row_arrivals;
    const bool cuts = ra.wg.cut;
    const int32_t stats_blocks = sv_cuda_logits_stats_blocks(ws->stats_wave, ra.n_rows, V);
    cudaError_t e = SV_LOGITS_NS::stats_launch<LT>(early, stats_blocks, stream, ra, !greedy, seqs);
    if (e != cudaSuccess)
        return e;
    if (cuts && (e = SV_LOGITS_NS::cut_launch<LT>(early, stream, ra, bt->top_k, bt->top_p,
                                                  seqs)) != cudaSuccess)
        return e;
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
    va.seqs = *seqs;
    return SV_LOGITS_NS::verify_launch<LT>(early, stream, va,
                                           ragged ? seqs->plain != 0 : !greedy && !cuts);
}

extern "C" int sv_cuda_fused_logits_launch(const sv_batch *bt, const sv_cuda_seqs *seqs,
                                           const uint64_t *rng, const sv_cuda_logits_ws *ws,
                                           int *bad, int prune, int early)
{
    if (bt->B <= 0)
        return (int)cudaSuccess;
    switch (bt->input) {
    case SV_INPUT_LOGITS_F32:
        return (int)launch_all<float>(bt, seqs, rng, ws, bad, prune, early != 0);
    case SV_INPUT_LOGITS_BF16:
        return (int)launch_all<uint16_t>(bt, seqs, rng, ws, bad, prune, early != 0);
    default: return (int)cudaErrorInvalidValue;
    }
}

extern "C" int sv_cuda_logits_early_ok(int *ok)
{
    bool can = false;
    const cudaError_t e = SV_LOGITS_NS::verify_early_ok(&can);
    *ok = can;
    return (int)e;
}

extern "C" int sv_cuda_logits_blocks_per_sm(int *stats_blocks, int *verify_blocks)
{
    cudaError_t e = SV_LOGITS_NS::stats_occupancy(stats_blocks);
    if (e == cudaSuccess)
        e = SV_LOGITS_NS::verify_occupancy(verify_blocks);
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
    return SV_LOGITS_NS::msa_bytes();
}

extern "C" size_t sv_cuda_logits_winner_bytes(void)
{
    return sizeof(race_winner);
}
