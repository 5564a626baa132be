/* own_drafts.c: what verify gives a sampler that draws its own drafts
 * (contract v8, SV_INPUT_OWN_DRAFTS): mixed batches of the cases whose
 * drafts come from fixed draft rows it is given. A Markov pair's rows
 * follow its drafts, and a one-hot drafter gives no rows to draw from:
 * those cases are left out and named in the report's checks not taken. */
#include <stdio.h>
#include <string.h>
#include "sv_check.h"

int sv_own_drafts_take(const sv_case *c)
{
    return !c->chain && c->draft_probs_given;
}

int sv_own_drafts_refusal(const sv_verify_config *cfg, sv_case *const *cases, size_t skipped,
                          char *text, size_t len)
{
    const char *name = cfg->sampler->name;
    if (cfg->uniform)
        return sv_fail(SV_EBAD, "--batches uniform: sampler %s draws its own drafts, from "
                       "the uniforms mixed batches (the default) give it", name);
    if (cfg->tree)
        return sv_fail(SV_EBAD, "sampler %s draws its own drafts, which contract version 8 "
                       "allows chains of drafts only, not trees", name);
    if (skipped == cfg->n_cases)
        return sv_fail(SV_EBAD, "sampler %s draws its own drafts, but none of the %zu "
                       "case%s has fixed draft rows to draw them from (Markov pairs and "
                       "one-hot drafters have none): give it cases with draft rows", name,
                       cfg->n_cases, cfg->n_cases == 1 ? "" : "s");
    text[0] = '\0';
    if (!skipped)
        return SV_OK;
    size_t at = (size_t)snprintf(text, len, "%zu case%s left out, whose drafts a sampler "
                                 "drawing its own cannot draw (a Markov pair's rows follow "
                                 "the drafts; a one-hot drafter gives no rows):", skipped,
                                 skipped == 1 ? "" : "s");
    for (size_t i = 0; i < cfg->n_cases && at < len; i++)
        if (!sv_own_drafts_take(cases[i]))
            at += (size_t)snprintf(text + at, len - at, " %s", cases[i]->name);
    if (at >= len && len > 4)
        memcpy(text + len - 4, "...", 4);
    return SV_OK;
}
