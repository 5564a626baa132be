/* cuda_flag.h: what the CUDA samplers' host sides share: CUDA errors turned
 * into sampler statuses with a message, and the bad-input flag a kernel sets
 * and verify reads back. */
#ifndef SV_CUDA_FLAG_H
#define SV_CUDA_FLAG_H

#include "sv_sampler.h"

/* Prints "SAMPLER: WHAT: CUDA's message (name)" to stderr; returns
 * SV_SAMPLER_ENOMEM for an allocation failure, SV_SAMPLER_EDEVICE otherwise. */
int sv_cuda_status(const char *sampler, const char *what, int cuda_error);

/* A device int the kernel sets on bad input, and a pinned host copy. */
typedef struct sv_cuda_flag {
    int *device, *host;
} sv_cuda_flag;

int sv_cuda_flag_alloc(const char *sampler, sv_cuda_flag *flag);
void sv_cuda_flag_free(sv_cuda_flag *flag);
/* Enqueues clearing the flag on stream. */
int sv_cuda_flag_clear(const char *sampler, sv_cuda_flag *flag, void *stream);
/* After the launch: copies the flag back, waits for the stream, and returns
 * SV_SAMPLER_OK, SV_SAMPLER_EINVAL (the flag was set) or a device error. */
int sv_cuda_flag_read(const char *sampler, const char *kernel, sv_cuda_flag *flag, void *stream);

#endif
