/* cuda_stage.h: drive a CUDA sampler from the host runner.
 *
 * The runner drafts and counts on the host; a stage copies each host batch
 * to device buffers of its own, calls the CUDA sampler on its own stream,
 * and copies the outputs back. Built only when CUDA is (SV_HAVE_CUDA). */
#ifndef SV_CUDA_STAGE_H
#define SV_CUDA_STAGE_H

#include <stddef.h>
#include "sv_sampler.h"

typedef struct sv_cuda_stage sv_cuda_stage;

/* How many CUDA devices there are; 0 with the reason in why when none can
 * be used (no driver, no device, an error), never a crash. */
int sv_cuda_device_count(char *why, size_t whylen);
/* The same, asked in a forked child (cuda_probe.c): this process does not
 * touch CUDA, so the children it forks can. */
int sv_cuda_device_count_isolated(char *why, size_t whylen);

/* A stage for `inner` (an SV_MEM_CUDA sampler), initialised with limits.
 * resident (NULL: none): host inputs laid out once for every batch (a mix's
 * rows and arrays), copied to the device once. Returns an sv_sampler_status;
 * on failure *out is NULL and err says why. */
int sv_cuda_stage_init(const sv_sampler *inner, const sv_limits *limits, const void *resident,
                       size_t resident_bytes, sv_cuda_stage **out, char *err, size_t errlen);

/* The mix whose laid-out rows the resident inputs lead with (a mixed run):
 * the stage then copies each case's rows to the device once and lays the
 * slots' rows out there, as the host laid them out (mix_rows.c), instead of
 * copying the host's span, every slot of every aliased copy its own rows. */
struct sv_mix;
void sv_cuda_stage_use_mix(sv_cuda_stage *s, const struct sv_mix *m);

/* One host batch through the device: same meaning as sv_sampler.verify. */
int sv_cuda_stage_verify(sv_cuda_stage *s, const sv_batch *host_batch);

void sv_cuda_stage_free(sv_cuda_stage *s);

/* Device staging (verify --device-staging, cuda_dstage.c) from now on, for
 * slot's case (after sv_cuda_stage_use_mix: for the mix, slot the first of
 * its cases' parts, device_staging.h): each batch's drafts are drawn on the
 * device (the batch's draft_tokens are not read), its outputs checked and
 * counted there and copied back only when slot->fallback says the host
 * must count them; the counts reach the slot when the stage is freed. An
 * sv_sampler_status. */
struct sv_staging_slot;
int sv_cuda_stage_use_device(sv_cuda_stage *s, struct sv_staging_slot *slot, char *err,
                             size_t errlen);
/* The last batch's device drafts in its layout, into out (tests). */
int sv_cuda_stage_read_drafts(const sv_cuda_stage *s, int32_t B, int32_t *out);

#endif
