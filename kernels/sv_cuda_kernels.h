/* sv_cuda_kernels.h: host launchers of the CUDA kernels, callable from C.
 * Each returns a cudaError_t as an int (0 = cudaSuccess) and enqueues its work
 * on bt->stream without waiting for it. */
#ifndef SV_CUDA_KERNELS_H
#define SV_CUDA_KERNELS_H

#include "sv_sampler.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cuda_naive: one thread per sequence, the straight loops of ref. Every
 * pointer in bt is device memory. *bad (device memory) is set to 1 when a
 * sequence has a draft token outside [0, V) or an all-zero target row; its
 * outputs are then -1. */
int sv_cuda_naive_launch(const sv_batch *bt, int *bad);

/* cuda_fused: `splits` blocks per sequence race over slices of the final row
 * and the last to finish combines. rng, if not NULL, is device memory holding
 * {seed, first_index} (read instead of bt's, for CUDA graphs). winners holds
 * B * splits entries of sv_cuda_fused_winner_bytes() each; arrivals holds B
 * counters, zero before the first launch (each launch leaves them zero).
 * shared_uniform != 0 is the broken variant cuda_fused_shared_uniform. *bad
 * as for cuda_naive. Never synchronizes with the host. */
int sv_cuda_fused_launch(const sv_batch *bt, const uint64_t *rng, int32_t splits, void *winners,
                         unsigned *arrivals, int *bad, int shared_uniform);
size_t sv_cuda_fused_winner_bytes(void);
/* How many cuda_fused blocks one SM holds at once (the occupancy API). */
int sv_cuda_fused_blocks_per_sm(int *blocks);

/* bench: a one-thread kernel on `stream` (a cudaStream_t) that spins until
 * *go (mapped host memory) is non-zero, or sets *timed_out (mapped too) and
 * returns after max_cycles clock cycles. */
int sv_bench_hold_launch(const volatile int *go, long long max_cycles, int *timed_out,
                         void *stream);

/* Tokens one block of cuda_fused takes at the least (one float4 per thread). */
#define SV_FUSED_MIN_CHUNK 1024

#ifdef __cplusplus
}
#endif

#endif
