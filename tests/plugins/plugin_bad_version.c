/* plugin_bad_version.c: a plugin built against a contract version that does
 * not exist; specverify must refuse it and say why. */
#include "sv_sampler.h"

static int init(void **state, const sv_limits *limits)
{
    (void)limits;
    *state = 0;
    return SV_SAMPLER_OK;
}
static int verify(void *state, const sv_batch *batch)
{
    (void)state;
    (void)batch;
    return SV_SAMPLER_EINTERNAL;
}
static void destroy(void *state) { (void)state; }

static const sv_sampler samplers[] = {
    {"future", "from a contract version this specverify does not know", SV_MEM_HOST, init,
     verify, destroy, 0, 0, SV_RULE_CHAIN},
};
static const sv_plugin plugin = {42u, 1, samplers}; /* no such version */

SV_PLUGIN_EXPORT const sv_plugin *sv_plugin_get(void) { return &plugin; }
