/* host_calls.c: one call into a sampler, wherever it runs: a host sampler
 * directly, a CUDA sampler through a stage that copies the host batch to the
 * device and back (cuda_stage.c). Runs in the child when isolated, so CUDA is
 * first touched there: a process that forks after initialising CUDA leaves
 * its child unable to use it. */
#include <stdio.h>
#include "host_internal.h"
#ifdef SV_HAVE_CUDA
#include "cuda_stage.h"
#endif


const char *sv_status_name(int rc)
{
    switch (rc) {
    case SV_SAMPLER_EINVAL: return "EINVAL: the batch is outside what it supports";
    case SV_SAMPLER_ENOMEM: return "ENOMEM: an allocation failed";
    case SV_SAMPLER_EDEVICE: return "EDEVICE: a device call failed";
    case SV_SAMPLER_EINTERNAL: return "EINTERNAL";
    default: return "not a status of sv_sampler.h";
    }
}

int sv_call_init(const sv_sampler *s, void **state, const slot_control *ctl, char *err,
                 size_t errlen, int *env_error)
{
    char said[SV_NOTE_LEN] = ""; /* the sampler's own words, if it fails and says why */
    sv_limits with_message = ctl->limits;
    with_message.message = said;
    with_message.message_len = (int32_t)sizeof said;
    const sv_limits *limits = &with_message;
    *env_error = 0;
    *state = NULL;
    if (s->memspace == SV_MEM_CUDA) {
#ifdef SV_HAVE_CUDA
        char why[160];
        if (sv_cuda_device_count(why, sizeof why) == 0) {
            snprintf(err, errlen, "sampler %s needs a CUDA device: %s", s->name, why);
            *env_error = 1;
            return SV_SAMPLER_EDEVICE;
        }
        int rc = sv_cuda_stage_init(s, limits, ctl->resident, ctl->resident_bytes,
                                    (sv_cuda_stage **)state, err, errlen);
        if (rc == SV_SAMPLER_OK && ctl->mix) /* its rows laid out on the device, not copied */
            sv_cuda_stage_use_mix(*state, ctl->mix);
        if (rc == SV_SAMPLER_OK && ctl->staging &&
            (rc = sv_cuda_stage_use_device(*state, ctl->staging, err, errlen)) != SV_SAMPLER_OK) {
            sv_cuda_stage_free(*state);
            *state = NULL;
        }
        return rc;
#else
        snprintf(err, errlen, "sampler %s needs CUDA, and this specverify was built without "
                 "it (no nvcc at configure time)", s->name);
        *env_error = 1;
        return SV_SAMPLER_EDEVICE;
#endif
    }
    int rc = s->init(state, limits);
    said[sizeof said - 1] = '\0';
    if (rc != SV_SAMPLER_OK)
        snprintf(err, errlen, "sampler %s: init failed with status %d (%s)%s%s", s->name, rc,
                 sv_status_name(rc), said[0] ? ": " : "", said);
    return rc;
}

int sv_call_verify(const sv_sampler *s, void *state, const sv_batch *bt)
{
    /* an exact-match or target-only tree sampler never sees draft rows,
     * whichever command built the batch (verify and sweep give it none
     * already; bench's inputs do) */
    sv_batch without;
    if ((s->rule == SV_RULE_EXACT_MATCH || s->rule == SV_RULE_TREE_TARGET_ONLY) &&
        (bt->draft || bt->draft_logits)) {
        without = *bt;
        without.draft = NULL;
        without.draft_logits = NULL;
        bt = &without;
    }
#ifdef SV_HAVE_CUDA
    if (s->memspace == SV_MEM_CUDA)
        return sv_cuda_stage_verify(state, bt);
#endif
    return s->verify(state, bt);
}

void sv_call_destroy(const sv_sampler *s, void *state)
{
#ifdef SV_HAVE_CUDA
    if (s->memspace == SV_MEM_CUDA) {
        sv_cuda_stage_free(state);
        return;
    }
#endif
    s->destroy(state);
}
