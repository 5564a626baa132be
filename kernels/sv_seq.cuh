/* sv_seq.cuh: sequence b's pieces in a launch, in either layout of a
 * version 3 batch: sv_sampler.h's accessors, on the device, over
 * sv_cuda_seqs (the device copy of the batch's per-sequence arrays).
 *
 * Each takes RAGGED: true for a batch with per-sequence data (s.cu not
 * NULL); false for a batch as version 2 meant it (d_b = K, the padded
 * offsets, whose strides may be 0), where each gives exactly the expression
 * the kernels used before version 3, so that the uniform kernels, the ones
 * timed, compile as they did. */
#ifndef SV_SEQ_CUH
#define SV_SEQ_CUH

#include <cuda_runtime.h>
#include <stdint.h>
#include "sv_cuda_kernels.h"

/* d_b: target rows 0..d_b, draft rows and tokens 0..d_b-1, out slots 0..d_b. */
template <bool RAGGED>
__device__ __forceinline__ static int32_t seq_drafts(const sv_batch &bt, const sv_cuda_seqs &s,
                                                     int32_t b)
{
    return RAGGED ? s.cu[b + 1] - s.cu[b] : bt.K;
}

template <bool RAGGED>
__device__ __forceinline__ static bool seq_packed(const sv_cuda_seqs &s)
{
    return RAGGED && s.layout == SV_LAYOUT_PACKED;
}

/* Element offsets of sequence b's target rows and draft rows. */
template <bool RAGGED>
__device__ __forceinline__ static int64_t seq_target_offset(const sv_batch &bt,
                                                            const sv_cuda_seqs &s, int32_t b)
{
    return seq_packed<RAGGED>(s) ? ((int64_t)s.cu[b] + b) * bt.V
                                 : (int64_t)b * bt.target_stride;
}

template <bool RAGGED>
__device__ __forceinline__ static int64_t seq_draft_offset(const sv_batch &bt,
                                                           const sv_cuda_seqs &s, int32_t b)
{
    return seq_packed<RAGGED>(s) ? (int64_t)s.cu[b] * bt.V : (int64_t)b * bt.draft_stride;
}

/* Where sequence b's draft tokens and output slots start. */
template <bool RAGGED>
__device__ __forceinline__ static int64_t seq_drafts_offset(const sv_batch &bt,
                                                            const sv_cuda_seqs &s, int32_t b)
{
    return seq_packed<RAGGED>(s) ? (int64_t)s.cu[b] : (int64_t)b * bt.K;
}

template <bool RAGGED>
__device__ __forceinline__ static int64_t seq_out_offset(const sv_batch &bt,
                                                         const sv_cuda_seqs &s, int32_t b)
{
    return seq_packed<RAGGED>(s) ? (int64_t)s.cu[b] + b : (int64_t)b * (bt.K + 1);
}

#endif
