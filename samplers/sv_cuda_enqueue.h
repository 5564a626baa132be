/* sv_cuda_enqueue.h: the built-in CUDA samplers' launches without the wait.
 *
 * verify (the contract) returns a status, so it waits for the kernel to read
 * the bad-input flag back. `specverify bench` times and graph-captures the
 * launch alone: enqueue does what verify does on the stream but neither
 * waits nor reads the flag. Internal to specverify: plugins are timed
 * through verify, wait included. */
#ifndef SV_CUDA_ENQUEUE_H
#define SV_CUDA_ENQUEUE_H

#include "sv_sampler.h"

/* rng: device memory {seed, first_index} read at run time, or NULL for bt's
 * (samplers that cannot read it ignore it; a graph then replays bt's). */
typedef int (*sv_cuda_enqueue_fn)(void *state, const sv_batch *bt, const uint64_t *rng);

/* The enqueue of a built-in CUDA sampler; NULL for any other sampler. */
sv_cuda_enqueue_fn sv_cuda_enqueue_for(const sv_sampler *s);

/* The entries, one per built-in CUDA sampler's file. */
int sv_cuda_naive_enqueue(void *state, const sv_batch *bt, const uint64_t *rng);
int sv_cuda_fused_enqueue(void *state, const sv_batch *bt, const uint64_t *rng);

#endif
