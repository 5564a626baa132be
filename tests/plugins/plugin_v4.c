/* plugin_v4.c: a plugin built against contract version 4, before sv_sampler
 * had `rule`: the struct is spelled out here as the version 4 header had
 * it. Its samplers are ref (ref.c and inverse_cdf.c are built in), chain
 * samplers as every version 4 one is.
 *
 * The table is filled at load time over bytes of 0xff, as one built in
 * reused memory is. Where pointers are 8 bytes version 4's stride is 56 and
 * today's 64: a loader that read the table as today's sv_sampler would read
 * the first entry's `rule` from the second entry's name and the second
 * entry 8 bytes off. */
#include <string.h>
#include "sv_registry.h"

typedef struct sampler_v4 {
    const char *name;
    const char *description;
    sv_memspace memspace;
    int (*init)(void **state, const sv_limits *limits);
    int (*verify)(void *state, const sv_batch *batch);
    void (*destroy)(void *state);
    uint32_t inputs;
    uint32_t layouts;
} sampler_v4;

typedef struct plugin_v4 {
    uint32_t contract_version;
    uint32_t n_samplers;
    const sampler_v4 *samplers;
} plugin_v4;

static sampler_v4 table[2];
static plugin_v4 plugin;

SV_PLUGIN_EXPORT const plugin_v4 *sv_plugin_get(void);
SV_PLUGIN_EXPORT const plugin_v4 *sv_plugin_get(void)
{
    memset(table, 0xff, sizeof table);
    const char *names[2] = {"old_v4", "old_v4_second"};
    const char *descriptions[2] = {"test: a contract version 4 plugin (ref)",
                                   "test: the second entry, read at version 4's stride"};
    for (int i = 0; i < 2; i++) {
        table[i].name = names[i];
        table[i].description = descriptions[i];
        table[i].memspace = SV_MEM_HOST;
        table[i].init = sv_sampler_ref.init;
        table[i].verify = sv_sampler_ref.verify;
        table[i].destroy = sv_sampler_ref.destroy;
        table[i].inputs = 0;
        table[i].layouts = SV_LAYOUT_BIT(SV_LAYOUT_PADDED) | SV_LAYOUT_BIT(SV_LAYOUT_PACKED);
    }
    plugin = (plugin_v4){4u, 2, table};
    return &plugin;
}
