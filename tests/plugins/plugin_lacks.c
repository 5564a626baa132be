/* plugin_lacks.c: samplers that do not implement a feature, each with and
 * without saying so in sv_sampler.lacks (contract version 7), for
 * tests/cli/lacks_cli.sh. Right in law for what they implement:
 *   own_rng     ref keyed by its own call counter, not the requests' seeds
 *               (one global generator): a seeded request's tokens change
 *               with its batch, so batch composition FAILs it unless it
 *               declares SV_LACKS_SEEDS;
 *   temp_only   ref_logits with every request's top-k and top-p dropped
 *               (temperature only): a top-k or top-p case FAILs support
 *               unless it declares SV_LACKS_TOP_K_P;
 *   own_rng_q_ignored  own_rng that also ignores the draft probabilities
 *               (a one-hot drafter's rule where q is given): a defect the
 *               declaration must not hide (its accepted lengths FAIL).
 * Built with SV_LACKS_UNKNOWN_BIT, it offers one more, whose lacks has a bit
 * the contract does not define: the harness refuses the plugin. ref.c,
 * ref_race.c, ref_logits.c and what they use are built in. */
#include <stdlib.h>
#include "sv_registry.h"

/* The calls so far, of every thread: each call's randomness its own. */
static uint64_t calls;

static int ref_init(void **state, const sv_limits *limits)
{
    return sv_sampler_ref.init(state, limits);
}
static void ref_destroy(void *state) { sv_sampler_ref.destroy(state); }

/* ref on the batch with the seeds replaced by a running key */
static int own_rng(void *state, const sv_batch *bt)
{
    sv_batch own = *bt;
    own.seeds = NULL; /* every sequence on the batch-wide seed, which is the call's */
    own.seed = 0x9e3779b97f4a7c15ull * (__atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED) + 1);
    return sv_sampler_ref.verify(state, &own);
}

static int own_rng_q_ignored(void *state, const sv_batch *bt)
{
    sv_batch own = *bt;
    own.draft = NULL; /* BUG: accepts with p(x), as if q were one-hot at x */
    return own_rng(state, &own);
}

static int logits_init(void **state, const sv_limits *limits)
{
    return sv_sampler_ref_logits.init(state, limits);
}
static void logits_destroy(void *state) { sv_sampler_ref_logits.destroy(state); }

/* ref_logits with no request's top-k or top-p */
static int temp_only(void *state, const sv_batch *bt)
{
    const size_t n = bt->B > 0 ? (size_t)bt->B : 1;
    int32_t *top_ks = calloc(n, sizeof *top_ks);
    double *top_ps = malloc(n * sizeof *top_ps);
    if (!top_ks || !top_ps) {
        free(top_ks);
        free(top_ps);
        return SV_SAMPLER_ENOMEM;
    }
    for (size_t b = 0; b < n; b++)
        top_ps[b] = 1.0;
    sv_batch all = *bt;
    all.top_k = 0, all.top_p = 1.0;
    if (bt->top_ks)
        all.top_ks = top_ks;
    if (bt->top_ps)
        all.top_ps = top_ps;
    int rc = sv_sampler_ref_logits.verify(state, &all);
    free(top_ks);
    free(top_ps);
    return rc;
}

#define BOTH_LAYOUTS (SV_LAYOUT_BIT(SV_LAYOUT_PADDED) | SV_LAYOUT_BIT(SV_LAYOUT_PACKED))
#define LOGITS_F32 SV_INPUT_BIT(SV_INPUT_LOGITS_F32)

static const sv_sampler samplers[] = {
    {"own_rng", "test: ref on its own running key, not the requests' seeds", SV_MEM_HOST,
     ref_init, own_rng, ref_destroy, 0, BOTH_LAYOUTS, SV_RULE_CHAIN, 0},
    {"own_rng_lacks", "test: own_rng, declaring SV_LACKS_SEEDS", SV_MEM_HOST, ref_init,
     own_rng, ref_destroy, 0, BOTH_LAYOUTS, SV_RULE_CHAIN, SV_LACKS_SEEDS},
    {"own_rng_q_ignored", "test: own_rng_lacks that ignores q (a defect)", SV_MEM_HOST,
     ref_init, own_rng_q_ignored, ref_destroy, 0, BOTH_LAYOUTS, SV_RULE_CHAIN,
     SV_LACKS_SEEDS},
    {"temp_only", "test: ref_logits without top-k or top-p", SV_MEM_HOST, logits_init,
     temp_only, logits_destroy, LOGITS_F32, BOTH_LAYOUTS, SV_RULE_CHAIN, 0},
    {"temp_only_lacks", "test: temp_only, declaring SV_LACKS_TOP_K_P", SV_MEM_HOST,
     logits_init, temp_only, logits_destroy, LOGITS_F32, BOTH_LAYOUTS, SV_RULE_CHAIN,
     SV_LACKS_TOP_K_P},
    {"bonus_glue", "test: ref, declaring SV_LACKS_BONUS (its bonus drawn by glue)",
     SV_MEM_HOST, ref_init, own_rng, ref_destroy, 0, BOTH_LAYOUTS, SV_RULE_CHAIN,
     SV_LACKS_SEEDS | SV_LACKS_BONUS},
#ifdef SV_LACKS_UNKNOWN_BIT /* the plugin built a second time: a bit it cannot mean */
    {"lacks_unknown", "test: lacks a bit sv_sampler.h does not define", SV_MEM_HOST, ref_init,
     own_rng, ref_destroy, 0, BOTH_LAYOUTS, SV_RULE_CHAIN, SV_LACKS_UNKNOWN_BIT},
#endif
};
static const sv_plugin plugin = {SV_CONTRACT_VERSION, sizeof samplers / sizeof samplers[0],
                                 samplers};

SV_PLUGIN_EXPORT const sv_plugin *sv_plugin_get(void) { return &plugin; }
