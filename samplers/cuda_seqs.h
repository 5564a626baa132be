/* cuda_seqs.h: a version 3 batch's per-sequence arrays for the built-in
 * CUDA samplers' kernels.
 *
 * The arrays (num_drafts, cu_num_drafts, indices, seeds, temperatures,
 * top_ks, top_ps) are device memory, as every pointer an SV_MEM_CUDA
 * sampler is given: the host never reads them. Staging checks what the
 * host can see (B within init's limits, a known layout, cu_num_drafts given
 * in the packed layout) and enqueues the prep kernel
 * (sv_cuda_seqs_prep_launch), which checks the values and lays out what the
 * kernels read in a device workspace sized at init. A batch without these
 * arrays (one as version 2 meant it) enqueues nothing: the kernels'
 * uniform path needs none of it. */
#ifndef SV_CUDA_SEQS_H
#define SV_CUDA_SEQS_H

#include "sv_cuda_kernels.h"
#include "sv_sampler.h"

typedef struct sv_cuda_seqs_ws {
    int32_t max_B;
    void *device; /* sv_cuda_seqs_bytes(max_B) of device memory */
} sv_cuda_seqs_ws;

/* The workspace for batches of up to max_B sequences: an sv_sampler_status
 * (a failure printed as sv_cuda_status does); *ws all NULL on failure. */
int sv_cuda_seqs_alloc(const char *sampler, sv_cuda_seqs_ws *ws, int32_t max_B);
void sv_cuda_seqs_free(sv_cuda_seqs_ws *ws);

/* 1 when bt has per-sequence arrays or the packed layout: a version 3
 * batch that the kernels read through sv_cuda_seqs. */
int sv_cuda_seqs_given(const sv_batch *bt);

/* For bt with per-sequence arrays: enqueues the prep kernel on bt's stream
 * (with each sequence's rule when `rules`, a logits mode; launched early
 * when `early`) and fills *out; a value it finds out of range sets *bad
 * (verify then returns EINVAL). For a batch without them, *out is all zero
 * (cu NULL) and nothing is enqueued. Returns SV_SAMPLER_OK;
 * SV_SAMPLER_EINVAL for B over max_B, an unknown layout, or the packed
 * layout without cu_num_drafts; or a device error (printed). */
int sv_cuda_seqs_stage(const char *sampler, sv_cuda_seqs_ws *ws, const sv_batch *bt, int rules,
                       int *bad, int early, sv_cuda_seqs *out);

#endif
