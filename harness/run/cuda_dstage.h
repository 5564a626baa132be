/* cuda_dstage.h: device staging inside a CUDA stage (cuda_stage.c): the
 * case's alias tables, rows and bins on the device, the batch's drafts
 * drawn there, its outputs checked and counted there (device_staging.h).
 * Built only when CUDA is (SV_HAVE_CUDA). */
#ifndef SV_CUDA_DSTAGE_H
#define SV_CUDA_DSTAGE_H

#include "device_staging.h"

typedef struct sv_dstage sv_dstage;

/* Copies slot's case (alias tables, target rows, bins) to the device once,
 * with zeroed counts, for batches of max_B sequences at most on stream; for
 * a mix (else NULL) every case's from its part (slot[0..n_cases)) and the
 * mix's per-slot arrays. Returns an sv_sampler_status; err says why on
 * failure. */
int sv_dstage_open(sv_staging_slot *slot, const sv_mix *mix, int32_t max_B, void *stream,
                   sv_dstage **out, char *err, size_t errlen);
/* Draws the batch's drafts (sequences first_index.., seed) on the device;
 * *dev is where they are. */
int sv_dstage_drafts(sv_dstage *d, const sv_batch *hb, const int32_t **dev);
/* After the sampler wrote tokens and accepted (device): the check, then the
 * counts unless it found a broken sequence; waits for both and sets the
 * slot's fallback (1: nothing counted, the host must count the batch). */
int sv_dstage_finish(sv_dstage *d, int32_t B, const int32_t *tokens, const int32_t *accepted);
/* The slot's fallback after the last finish: 1 when the host must count it. */
int sv_dstage_fallback(const sv_dstage *d);
/* The last batch's drafts in its layout (B x K, or a packed mix's sum of
 * d_b), into out (tests). */
int sv_dstage_read_drafts(const sv_dstage *d, int32_t B, int32_t *out);
/* Copies the counts into the slot, every part's (counted = 1), unless a
 * device call failed, and frees the device memory. */
void sv_dstage_close(sv_dstage *d);

#endif
