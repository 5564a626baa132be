/* plugin_seedless.c: ref with its randomness on a fixed seed, whatever the
 * run's seed, as a sampler that seeds its own generator once would be. Each
 * run's output is distributed right, but a check that does not see the
 * harness's drafts (identical:'s bonus token, drawn from p) gives the same
 * p-value run after run: calibrate must say that the sampler ignores the
 * seed, not that the harness is not calibrated. ref.c and inverse_cdf.c are
 * built into this plugin (tests/CMakeLists.txt). */
#include "sv_registry.h"

static int init(void **state, const sv_limits *limits)
{
    return sv_sampler_ref.init(state, limits);
}

static void destroy(void *state) { sv_sampler_ref.destroy(state); }

static int verify(void *state, const sv_batch *batch)
{
    sv_batch fixed = *batch;
    fixed.seed = 42;
    return sv_sampler_ref.verify(state, &fixed);
}

static const sv_sampler samplers[] = {
    {"seedless", "test: ref on seed 42, whatever the run's seed", SV_MEM_HOST, init, verify,
     destroy, 0, 0, SV_RULE_CHAIN},
};
static const sv_plugin plugin = {SV_CONTRACT_VERSION, 1, samplers};

SV_PLUGIN_EXPORT const sv_plugin *sv_plugin_get(void) { return &plugin; }
