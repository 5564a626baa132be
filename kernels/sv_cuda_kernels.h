/* sv_cuda_kernels.h: host launchers of the CUDA kernels, callable from C.
 * Each returns a cudaError_t as an int (0 = cudaSuccess) and enqueues its work
 * on bt->stream without waiting for it. */
#ifndef SV_CUDA_KERNELS_H
#define SV_CUDA_KERNELS_H

#include "sv_sampler.h"
#include "sv_softmax.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- a version 3 batch's per-sequence data, as the kernels read it ----
 * The host side builds it from the batch's accessors (samplers/cuda_seqs.c)
 * and copies it to the device on the batch's stream. A batch without the
 * version 3 arrays has none (cu NULL): the kernels then take their uniform
 * path (d_b = K, seed and first_index + b, the batch-wide rule), the one
 * that is timed. */

/* Sequence b's randomness address: seeds[b], indices[b]. */
typedef struct sv_seq_rng {
    uint64_t seed, index;
} sv_seq_rng;

/* Sequence b's sampling rule in a logits mode, from its temperature, top-k
 * and top-p: greedy (T = 0), or weighed with scale (T > 0), over a kept
 * prefix when cut (top-k or top-p cuts something). */
typedef struct sv_seq_rule {
    sv_softmax_scale scale;
    int32_t top_k;
    double top_p;
    int32_t greedy, cut;
} sv_seq_rule;

typedef struct sv_cuda_seqs {
    const int32_t *cu;          /* device [B + 1]: cu[b] = d_0 + .. + d_{b-1}; NULL: none */
    const sv_seq_rng *rng;      /* device [B] */
    const sv_seq_rule *rules;   /* device [B]; logits modes only */
    int32_t layout;             /* the batch's sv_layout */
    int32_t B;                  /* the batch's sequences */
    int32_t total;              /* cu[B]: the batch's drafts */
    int32_t cuts;               /* some rule cuts */
    int32_t plain;              /* every rule weighs (T > 0) and cuts nothing */
} sv_cuda_seqs;

/* cuda_naive: one thread per sequence, the straight loops of ref. Every
 * pointer in bt is device memory; seqs is a version 3 batch's per-sequence
 * data (seqs->cu NULL: none; its arrays device memory), which the kernels
 * use instead of bt's per-sequence arrays (host memory, never read here).
 * *bad (device memory) is set to 1 when a sequence has a draft token
 * outside [0, V) or an all-zero target row; its outputs are then -1. */
int sv_cuda_naive_launch(const sv_batch *bt, const sv_cuda_seqs *seqs, int *bad);

/* cuda_fused: `splits` blocks per sequence race over slices of the final row
 * and the last to finish combines. rng, if not NULL, is device memory holding
 * {seed, first_index} (read instead of bt's, for CUDA graphs; a batch with
 * per-sequence data takes its seeds and indices from seqs instead). winners
 * holds B * splits entries of sv_cuda_fused_winner_bytes() each; arrivals
 * holds B counters, zero before the first launch (each launch leaves them
 * zero). shared_uniform != 0 is the broken variant
 * cuda_fused_shared_uniform. seqs and *bad as for cuda_naive. prune = 0
 * times every token of the race exactly (the same tokens, slower: to
 * measure what pruning gains). depth (1 or 2) is how many rounds of the row
 * pair each thread keeps in flight (the same tokens either way). early != 0
 * launches it early (programmatic dependent launch,
 * kernels/sv_early_launch.cuh; compute capability 9.0 and later only): it
 * may be scheduled while the kernel before it in the stream runs, and waits
 * for that kernel before it reads anything. Never synchronizes with the
 * host. */
int sv_cuda_fused_launch(const sv_batch *bt, const sv_cuda_seqs *seqs, const uint64_t *rng,
                         int32_t splits, void *winners, unsigned *arrivals, int *bad,
                         int shared_uniform, int prune, int depth, int early);
size_t sv_cuda_fused_winner_bytes(void);
/* *ok = 1 when cuda_fused's kernel of a depth may be launched early: this
 * build's code for the device has the wait (sv_early_launch.cuh). */
int sv_cuda_fused_early_ok(int depth, int *ok);
/* How many cuda_fused blocks of a depth one SM holds at once (the
 * occupancy API). */
int sv_cuda_fused_blocks_per_sm(int depth, int *blocks);

/* cuda_fused in a logits mode (bt->input SV_INPUT_LOGITS_F32 or _BF16; every
 * pointer in bt device memory): row stats of every row (l_max, argmax, the
 * kept prefix of top-k/top-p, the kept weight), then fused_kernel's accept
 * chain and race on p and q made from the logits (kernels/cuda_fused_logits.cu).
 * The workspace, allocated by the caller for batches up to max_B sequences
 * and max_K drafts (rows = max_B * (2 max_K + 1)): */
typedef struct sv_cuda_logits_ws {
    void *stats;            /* rows entries of sv_cuda_logits_stats_bytes() */
    void *partials;         /* stats_wave + rows entries of sv_cuda_logits_partial_bytes() */
    unsigned *row_arrivals; /* rows counters, zero before the first launch */
    void *winners;          /* verify_wave + max_B entries of sv_cuda_logits_winner_bytes() */
    unsigned *arrivals;     /* max_B counters, zero before the first launch */
    int32_t stats_wave;     /* blocks of the stats kernel one wave of the GPU holds */
    int32_t verify_wave;    /* the same for the verify kernel */
} sv_cuda_logits_ws;
/* The caller checks B, K and V against the workspace's limits; seqs, rng,
 * *bad, prune and early as for sv_cuda_fused_launch (early: all three
 * kernels). With per-sequence data, seqs->rules gives each sequence's rule
 * and bt's batch-wide one is not read. Never synchronizes with the host. */
int sv_cuda_fused_logits_launch(const sv_batch *bt, const sv_cuda_seqs *seqs,
                                const uint64_t *rng, const sv_cuda_logits_ws *ws, int *bad,
                                int prune, int early);
/* The same for the logits kernels. */
int sv_cuda_logits_early_ok(int *ok);
size_t sv_cuda_logits_stats_bytes(void);
/* Row r's summary in a host copy of the workspace's stats: R = 1 / S (the
 * kept weight; the whole row's when nothing is cut), N (the largest
 * exponent, T > 0) and the first-ranked token. For tests. */
void sv_cuda_logits_stats_of(const void *stats, int32_t r, double *R, int32_t *N,
                             int32_t *argmax);
size_t sv_cuda_logits_partial_bytes(void);
size_t sv_cuda_logits_winner_bytes(void);
/* The stats kernel's blocks for n_rows rows of V logits, when one wave of
 * the GPU holds `wave` of them (it writes at most blocks + n_rows - 1
 * partials). */
int32_t sv_cuda_logits_stats_blocks(int32_t wave, int32_t n_rows, int32_t V);
/* Blocks one SM holds at once of the stats and of the verify kernel. */
int sv_cuda_logits_blocks_per_sm(int *stats_blocks, int *verify_blocks);

/* bench: a one-thread kernel on `stream` (a cudaStream_t) that spins until
 * *go (mapped host memory) is non-zero, or sets *timed_out (mapped too) and
 * returns after max_cycles clock cycles. */
int sv_bench_hold_launch(const volatile int *go, long long max_cycles, int *timed_out,
                         void *stream);

/* Tokens one block of cuda_fused takes at the least (one float4 per thread). */
#define SV_FUSED_MIN_CHUNK 1024
/* Tokens one block of the logits stats kernel takes at the least. */
#define SV_LOGITS_MIN_CHUNK 4096

#ifdef __cplusplus
}
#endif

#endif
