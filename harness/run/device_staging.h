/* device_staging.h: verify --device-staging, the host's side.
 *
 * With device staging a CUDA sampler's stage draws each batch's drafts on
 * the device, checks the outputs there and counts them into device tallies
 * (cuda_dstage.c); the host neither drafts nor counts unless the device
 * finds a sequence that breaks the contract, when the stage copies that
 * batch's outputs back and the host drafts, checks, notes and counts the
 * whole batch as without staging. Each slot's part lies in memory shared
 * with the sampler's child, mapped before it is forked, so the same
 * pointers (the case, its drafter and pair plan, inherited) are good in
 * both. Fixed-row cases only, in uniform or mixed batches (a mixed run's
 * slot has a part per case of the mix, each counting its own case):
 * docs/gpu.md#device-staging. */
#ifndef SV_DEVICE_STAGING_H
#define SV_DEVICE_STAGING_H

#include "sv_run.h"

typedef struct sv_staging_slot {
    /* read by the stage: set before the child is forked */
    const sv_case *c;
    const sv_drafter *d;
    const sv_pair_plan *plan;
    /* written by the stage */
    int fallback;   /* the last call: 1 when the host must draft, check and count its batch */
    int counted;    /* the counts below hold the device's (when its stage ended) */
    uint64_t *hist, *pairs_seq, *pairs_pos; /* in the shared block, sized as sv_tally's */
    uint64_t reached[SV_MAX_K + 1], length[SV_MAX_K + 1];
} sv_staging_slot;

typedef struct sv_staging {
    int32_t slots;
    int32_t n_cases;        /* parts a slot has: one per case of a mix, else 1 */
    size_t bytes;           /* of the whole mapping, this header first */
    sv_staging_slot *slot;  /* [slots][n_cases]: slot i's part for case c at i n_cases + c */
} sv_staging;

/* Maps the slots' shared parts for case c, drafter d and plan. SV_OK, or
 * SV_EENV with a message. */
int sv_staging_open(const sv_case *c, const sv_drafter *d, const sv_pair_plan *plan,
                    int32_t slots, sv_staging **out);
/* The same for a mix's n cases (drafters and plans one a case): each slot
 * a part per case, the first of which the stage sets `fallback` in. */
int sv_staging_open_mix(const sv_case *const *cases, const sv_drafter *const *drafters,
                        const sv_pair_plan *plans, int32_t n, int32_t slots, sv_staging **out);
/* Slot i's parts: n_cases of them from here. */
static inline sv_staging_slot *sv_staging_parts(const sv_staging *s, int32_t i)
{
    return &s->slot[(size_t)i * (size_t)s->n_cases];
}
void sv_staging_close(sv_staging *s);
/* Adds what the device counted in a slot (once its stage has ended) into t. */
void sv_staging_collect(const sv_staging_slot *s, sv_tally *t);

#endif
