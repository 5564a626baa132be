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
 * A batch given to an SV_MEM_CUDA sampler has its per-sequence arrays in
 * device memory, as its rows. Before the kernels of such a batch run, the
 * prep kernel (sv_cuda_seqs_prep_launch) checks them and writes what the
 * kernels need into a workspace: cu (also where the batch gives none),
 * each sequence's seed and index, in a logits mode its rule, and the
 * batch's row counts. A batch without the arrays has none of it (cu NULL):
 * the kernels then take their uniform path (d_b = K, seed and
 * first_index + b, the batch-wide rule), the one that is timed. */

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

/* What the prep kernel found of the batch as a whole. */
typedef struct sv_seq_info {
    int32_t ok;            /* 0: a per-sequence value out of range; the kernels do nothing */
    int32_t total;         /* cu[B]: the batch's drafts */
    int32_t n_target_rows; /* total + B: target rows, numbered as the packed layout's */
    int32_t n_rows;        /* and the draft rows after them (total), when there are any */
} sv_seq_info;

/* The kernels' view of it: device pointers into the workspace, and what the
 * host knows without reading device memory. */
typedef struct sv_cuda_seqs {
    const int32_t *cu;          /* [B + 1]: cu[b] = d_0 + .. + d_{b-1}; NULL: no such data */
    const sv_seq_rng *rng;      /* [B] */
    const sv_seq_rule *rules;   /* [B]; logits modes only */
    const sv_seq_info *info;
    int32_t layout;             /* the batch's sv_layout */
    int32_t B;                  /* the batch's sequences */
    int32_t may_cut;            /* some rule may cut: the cut kernel runs */
    int32_t plain;              /* every rule weighs (T > 0) and cuts nothing, surely */
} sv_cuda_seqs;

/* Device bytes of the prep kernel's workspace for batches of up to max_B. */
size_t sv_cuda_seqs_bytes(int32_t max_B);
/* Enqueues the prep kernel on bt->stream for bt (B <= the workspace's max_B,
 * a known layout, cu_num_drafts given in the packed layout: the caller
 * checks these). It reads the per-sequence arrays, NULL ones as the
 * batch-wide fields; checks d_b in [0, K], cu[0] = 0 and cu[b+1] - cu[b] =
 * d_b where both are given, and, when `rules` (a logits mode), T finite
 * and >= 0 and top_p > 0: any other value sets *bad, and every kernel
 * after it does nothing. ws is device memory of sv_cuda_seqs_bytes; *seqs
 * is filled for the launchers below (may_cut and plain from what the host
 * sees: which arrays are NULL, the batch-wide rule). early as for
 * sv_cuda_fused_launch. */
int sv_cuda_seqs_prep_launch(const sv_batch *bt, void *ws, int32_t max_B, int rules, int *bad,
                             int early, sv_cuda_seqs *seqs);

/* cuda_naive: one thread per sequence, the straight loops of ref. Every
 * pointer in bt is device memory; seqs is what sv_cuda_seqs_prep_launch
 * made of a version 3 batch's per-sequence arrays (seqs->cu NULL: a batch
 * without them), which the kernels read instead of bt's arrays.
 * *bad (device memory) is set to 1 when a sequence has a draft token
 * outside [0, V) or an all-zero target row; its outputs are then -1. */
int sv_cuda_naive_launch(const sv_batch *bt, const sv_cuda_seqs *seqs, int *bad);

/* cuda_tree_naive (target_only 0) and cuda_tree_target_only_naive (1): one
 * thread per sequence walks its tree (contract version 6) as ref_tree and
 * ref_tree_target_only do, with their random numbers. bt->parents and
 * bt->out_path are device memory too; seqs and *bad as for cuda_naive, *bad
 * also set for a parent outside [0, k] or a draft row without mass. */
int sv_cuda_tree_launch(const sv_batch *bt, const sv_cuda_seqs *seqs, int target_only, int *bad);

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
