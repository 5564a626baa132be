/* lacks.c: what a sampler says it does not implement (sv_sampler.lacks,
 * contract version 7). The cases and checks it cannot take are left out of
 * the run and named in the report's "checks not taken", rather than failed
 * for a reason that is not a defect of what it does implement. Nothing else
 * changes: every check it can take runs and is judged as before, so a
 * declaration never turns a FAIL into a pass. */
#include <stdio.h>
#include <string.h>
#include "sv_check.h"

int sv_lacks_leaves_out(const sv_verify_config *cfg, const sv_case *c)
{
    /* with probabilities as input the cut is already in p: nothing to leave out */
    if (!(cfg->sampler->lacks & SV_LACKS_TOP_K_P) || cfg->input == SV_INPUT_PROBS || !c->logits)
        return 0;
    const sv_sampling *s = &c->sampling;
    return (s->top_k > 0 && s->top_k < c->V) || (s->top_p > 0.0 && s->top_p < 1.0);
}

int sv_lacks_seeding(const sv_verify_config *cfg, int *seeding)
{
    if (!(cfg->sampler->lacks & SV_LACKS_SEEDS))
        return SV_OK;
    if (*seeding == SV_SEEDING_ALL)
        return sv_fail(SV_EBAD, "--seeding all: sampler %s says it lacks per-request seeds "
                       "(SV_LACKS_SEEDS, lacks=(\"seeds\",)), so no sequence of its batches "
                       "is seeded; leave --seeding out", cfg->sampler->name);
    *seeding = SV_SEEDING_NONE;
    return SV_OK;
}

/* Appends "; " (when not first) and the formatted text to buf, cut at its end. */
static void append(char *buf, size_t len, const char *text)
{
    const size_t at = strlen(buf);
    if (at + 1 < len)
        snprintf(buf + at, len - at, "%s%s", at ? "; " : "", text);
}

void sv_lacks_describe(const sv_verify_config *cfg, sv_case *const *cases,
                       const unsigned char *left_out, const char *older, char *buf, size_t len)
{
    buf[0] = '\0';
    if (older)
        append(buf, len, older);
    char line[SV_CASE_NAME_MAX + 160];
    size_t n = 0;
    for (size_t i = 0; i < cfg->n_cases; i++)
        n += left_out[i] != 0;
    if (n) {
        snprintf(line, sizeof line, "%zu case%s with top-k or top-p (the sampler lacks them, "
                 "SV_LACKS_TOP_K_P):", n, n == 1 ? "" : "s");
        append(buf, len, line);
        for (size_t i = 0, k = 0; i < cfg->n_cases; i++)
            if (left_out[i]) {
                const size_t at = strlen(buf);
                snprintf(buf + at, len - at, "%s %s", k++ ? "," : "", cases[i]->name);
            }
    }
    if (cfg->sampler->lacks & SV_LACKS_SEEDS)
        append(buf, len, "seeded requests and the probes that need them, batch composition "
               "and seed sensitivity (the sampler lacks per-request seeds, SV_LACKS_SEEDS)");
}

int sv_lacks_nothing_left(const sv_verify_config *cfg, sv_case *const *cases,
                          const unsigned char *left_out)
{
    size_t kept = 0, first = SIZE_MAX;
    for (size_t i = 0; i < cfg->n_cases; i++) {
        kept += !left_out[i];
        if (left_out[i] && first == SIZE_MAX)
            first = i;
    }
    if (kept || first == SIZE_MAX)
        return SV_OK;
    return sv_fail(SV_EBAD, "sampler %s says it lacks top-k and top-p (SV_LACKS_TOP_K_P, "
                   "lacks=(\"top_k_p\",)), and every case of this run has one (%s%s): nothing "
                   "is left to verify; give cases sampled by temperature alone, or probabilities "
                   "as input", cfg->sampler->name, cases[first]->name,
                   cfg->n_cases > 1 ? ", ..." : "");
}

const char *sv_lacks_bonus_words(uint32_t lacks)
{
    return lacks & SV_LACKS_BONUS
               ? "drawn by the harness from each bonus row (bonus=\"harness\", SV_LACKS_BONUS), "
                 "not by the engine's own bonus sampler: a bug there, such as vLLM's float32 "
                 "exponential race (PR 43150), is not tested; give the engine's bonus code "
                 "(bonus=\"sampler\") to test it"
               : "drawn by the sampler itself (bonus=\"sampler\")";
}
