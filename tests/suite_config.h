/* suite_config.h: a verify configuration for a named suite, for the tests. */
#ifndef SV_SUITE_CONFIG_H
#define SV_SUITE_CONFIG_H

#include "sv_cases.h"
#include "sv_check.h"

#define SUITE_MAX 32

typedef struct suite_config {
    sv_verify_config cfg;
    const char *specs[SUITE_MAX];
    uint64_t draws[SUITE_MAX];
} suite_config;

/* ref-style defaults: seed 1, family-wise rate 1e-6, 2 threads, no progress.
 * fixed_rows_only leaves out the Markov-pair cases, whose rows change every
 * step and which have no accepted-length or per-position checks. */
static inline void suite_config_init(suite_config *s, const char *suite, const sv_sampler *sampler,
                                     int fixed_rows_only)
{
    const sv_suite *su = sv_suite_find(suite);
    memset(s, 0, sizeof *s);
    for (size_t i = 0; su && i < su->n_entries && s->cfg.n_cases < SUITE_MAX; i++) {
        if (fixed_rows_only && strncmp(su->entries[i].spec, "markov", 6) == 0)
            continue;
        s->specs[s->cfg.n_cases] = su->entries[i].spec;
        s->draws[s->cfg.n_cases] = su->entries[i].draws;
        s->cfg.n_cases++;
    }
    s->cfg.sampler = sampler;
    s->cfg.suite = suite;
    s->cfg.specs = s->specs;
    s->cfg.draws = s->draws;
    s->cfg.seed = 1;
    s->cfg.alpha = 1e-6;
    s->cfg.batch = 4096;
    s->cfg.threads = 2;
    s->cfg.rerun_suspects = 1;
}

#endif
