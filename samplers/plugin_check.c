/* plugin_check.c: what a plugin's probe said of each sampler, checked
 * before the harness registers it (plugin.c): a name a user can type,
 * functions, a memory space, and only the input, layout, rule and lacks
 * bits its contract version defines. */
#include <stdio.h>
#include <string.h>
#include "sv_input.h"
#include "plugin_check.h"

static int name_ok(const char *name)
{
    if (!name[0] || strlen(name) > 64)
        return 0;
    for (const char *c = name; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_'))
            return 0;
    return 1;
}

int sv_plugin_check_sampler(const char *path, uint32_t i, const sv_sampler *s,
                            int has_functions, uint32_t version, char *err, size_t errlen)
{
    const uint32_t known = SV_INPUT_BIT(SV_INPUT_LOGITS_F32) | SV_INPUT_BIT(SV_INPUT_LOGITS_BF16);
    const uint32_t layouts = SV_LAYOUT_BIT(SV_LAYOUT_PADDED) | SV_LAYOUT_BIT(SV_LAYOUT_PACKED);
    if (!s->name[0]) {
        snprintf(err, errlen, "%s: sampler %u has no name", path, i);
        return -1;
    }
    if (!name_ok(s->name)) {
        snprintf(err, errlen, "%s: sampler %u is named '%.80s'; a name is 1 to 64 of "
                 "a-z, 0-9 and _ (it is typed in --sampler lists and printed in tables)",
                 path, i, s->name);
        return -1;
    }
    if (!has_functions) {
        snprintf(err, errlen, "%s: sampler '%s' lacks an init, verify or destroy function", path,
                 s->name);
        return -1;
    }
    if (s->memspace != SV_MEM_HOST && s->memspace != SV_MEM_CUDA) {
        snprintf(err, errlen, "%s: sampler '%s' has unknown memory space %d", path, s->name,
                 (int)s->memspace);
        return -1;
    }
    if (s->inputs & ~(known | (version >= 8u ? SV_INPUT_OWN_DRAFTS : 0u))) {
        snprintf(err, errlen, "%s: sampler '%s' says it takes inputs 0x%x, which has bits "
                 "sv_sampler.h does not define (known: 0x%x, SV_INPUT_BIT of "
                 "SV_INPUT_LOGITS_F32 and SV_INPUT_LOGITS_BF16)", path, s->name, s->inputs,
                 known);
        return -1;
    }
    if (s->layouts & ~layouts) {
        snprintf(err, errlen, "%s: sampler '%s' says it takes layouts 0x%x, which has bits "
                 "sv_sampler.h does not define (known: 0x%x, SV_LAYOUT_BIT of "
                 "SV_LAYOUT_PADDED and SV_LAYOUT_PACKED; 0 for a version 2 sampler's batches)",
                 path, s->name, s->layouts, layouts);
        return -1;
    }
    if (s->rule >= SV_RULE_COUNT) {
        snprintf(err, errlen, "%s: sampler '%s' says it implements rule %u, which sv_sampler.h "
                 "does not define (known: 0 SV_RULE_CHAIN, 1 SV_RULE_EXACT_MATCH, 2 "
                 "SV_RULE_BLOCK, 3 SV_RULE_TYPICAL, 4 SV_RULE_TREE, 5 "
                 "SV_RULE_TREE_TARGET_ONLY)", path, s->name, s->rule);
        return -1;
    }
    if (s->lacks & ~(uint32_t)SV_LACKS_KNOWN) {
        snprintf(err, errlen, "%s: sampler '%s' says it lacks 0x%x, which has bits sv_sampler.h "
                 "does not define (known: 0x%x, SV_LACKS_TOP_K_P, SV_LACKS_SEEDS and "
                 "SV_LACKS_BONUS)", path, s->name, s->lacks, (unsigned)SV_LACKS_KNOWN);
        return -1;
    }
    if (sv_rule_is_tree(s->rule) && version < 6u) {
        /* a version 5 batch has no parents or out_path: it cannot carry a tree */
        snprintf(err, errlen, "%s: sampler '%s' says it implements the %s rule, which contract "
                 "version 6 added, but the plugin was built against version %u; rebuild it "
                 "against this specverify's sv_sampler.h", path, s->name, sv_rule_name(s->rule),
                 version);
        return -1;
    }
    if ((s->inputs & SV_INPUT_OWN_DRAFTS) && (s->rule != SV_RULE_CHAIN || !s->layouts)) {
        /* its drafts come in mixed (version 3) batches of the chain rule */
        snprintf(err, errlen, "%s: sampler '%s' draws its own drafts (SV_INPUT_OWN_DRAFTS), "
                 "which sv_sampler.h allows a chain-rule sampler that takes a layout; this "
                 "one has rule %s and layouts 0x%x", path, s->name, sv_rule_name(s->rule),
                 s->layouts);
        return -1;
    }
    return 0;
}
