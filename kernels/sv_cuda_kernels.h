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

#ifdef __cplusplus
}
#endif

#endif
