/* cuda_seqs.h: a version 3 batch's per-sequence arrays, staged to the
 * device for the built-in CUDA samplers' kernels (sv_cuda_seqs,
 * kernels/sv_cuda_kernels.h).
 *
 * The per-sequence arrays of a batch given to an SV_MEM_CUDA sampler
 * (num_drafts, cu_num_drafts, indices, seeds, temperatures, top_ks,
 * top_ps) are host memory, read through sv_sampler.h's accessors; the
 * rows, tokens and outputs are device memory. Staging checks them, packs
 * what the kernels need (cu, each sequence's seed and index, and in a
 * logits mode its rule) into one host buffer, and copies that to a device
 * buffer with one cudaMemcpyAsync on the batch's stream; both buffers are
 * sized at init for the largest batch. A batch without these arrays (one as
 * version 2 meant it) is neither checked nor copied: the kernels' uniform
 * path needs none of it. */
#ifndef SV_CUDA_SEQS_H
#define SV_CUDA_SEQS_H

#include "sv_cuda_kernels.h"
#include "sv_sampler.h"

typedef struct sv_cuda_seqs_ws {
    int32_t max_B;
    size_t bytes;        /* of each buffer */
    void *device;        /* device memory */
    unsigned char *host; /* host memory: the copy is built here */
} sv_cuda_seqs_ws;

/* Buffers for batches of up to max_B sequences: an sv_sampler_status (a
 * failure printed as sv_cuda_status does); *ws all NULL on failure. */
int sv_cuda_seqs_alloc(const char *sampler, sv_cuda_seqs_ws *ws, int32_t max_B);
void sv_cuda_seqs_free(sv_cuda_seqs_ws *ws);

/* 1 when bt has per-sequence arrays or the packed layout: a version 3
 * batch that the kernels read through sv_cuda_seqs. */
int sv_cuda_seqs_given(const sv_batch *bt);

/* Stages bt's per-sequence data (with each sequence's rule when `rules`,
 * a logits mode) and sets *out to its device copy; for a batch without
 * per-sequence arrays, *out is all zero (cu NULL) and nothing is enqueued.
 * Returns SV_SAMPLER_OK; SV_SAMPLER_EINVAL for a batch this cannot take: B
 * over max_B, an unknown layout, a packed batch without cu_num_drafts, a
 * d_b outside [0, K], a cu_num_drafts that is not the running sum of the
 * d_b, a temperature that is negative or not finite, a top-p not above 0;
 * or a device error (printed). */
int sv_cuda_seqs_stage(const char *sampler, sv_cuda_seqs_ws *ws, const sv_batch *bt, int rules,
                       sv_cuda_seqs *out);

#endif
