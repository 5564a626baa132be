/* plugin_rule.c: a contract version 5 plugin whose sampler says which rule
 * it implements: ref_exact's exact match under another name (exact_rule.c
 * and inverse_cdf.c are built in). Built a second time with SV_BAD_RULE,
 * it claims rule 7, which sv_sampler.h does not define: the loader must
 * refuse it and name the rule. */
#include "sv_registry.h"
#include "rules.h"

static int verify(void *state, const sv_batch *bt)
{
    return sv_exact_verify(state, bt, SV_EXACT_RIGHT);
}

#ifdef SV_BAD_RULE
#define RULE 7u
#else
#define RULE SV_RULE_EXACT_MATCH
#endif

static const sv_sampler samplers[] = {
    {"plugin_exact", "test: exact match from a plugin", SV_MEM_HOST, sv_rule_init, verify,
     sv_rule_destroy, 0, SV_LAYOUT_BIT(SV_LAYOUT_PADDED) | SV_LAYOUT_BIT(SV_LAYOUT_PACKED), RULE},
};
static const sv_plugin plugin = {SV_CONTRACT_VERSION, 1, samplers};

SV_PLUGIN_EXPORT const sv_plugin *sv_plugin_get(void);
SV_PLUGIN_EXPORT const sv_plugin *sv_plugin_get(void)
{
    return &plugin;
}
