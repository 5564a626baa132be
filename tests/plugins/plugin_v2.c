/* plugin_v2.c: a plugin built against contract version 2, before sv_sampler
 * had `layouts`: the struct is spelled out here as the version 2 header had
 * it. Its sampler is ref (ref.c and inverse_cdf.c are built into this
 * plugin, tests/CMakeLists.txt), which refuses any batch a version 2 sampler
 * must not be given: one with the version 3 arrays or another layout.
 *
 * The table is filled at load time over bytes of 0xff, as one built in
 * reused memory is: where pointers are 8 bytes, version 2's struct has the
 * same stride as today's, and the 4 bytes after `inputs`, where today's has
 * `layouts`, are padding, here not 0. A loader that read the table as
 * today's sv_sampler would see layouts 0xffffffff (where pointers are 4
 * bytes it would read the second entry at the wrong stride too). */
#include <string.h>
#include "sv_registry.h"

typedef struct sampler_v2 {
    const char *name;
    const char *description;
    sv_memspace memspace;
    int (*init)(void **state, const sv_limits *limits);
    int (*verify)(void *state, const sv_batch *batch);
    void (*destroy)(void *state);
    uint32_t inputs;
} sampler_v2;

typedef struct plugin_v2 {
    uint32_t contract_version;
    uint32_t n_samplers;
    const sampler_v2 *samplers;
} plugin_v2;

static int init(void **state, const sv_limits *limits)
{
    return sv_sampler_ref.init(state, limits);
}

static void destroy(void *state) { sv_sampler_ref.destroy(state); }

static int verify(void *state, const sv_batch *bt)
{
    if (bt->layout != SV_LAYOUT_PADDED || bt->num_drafts || bt->cu_num_drafts || bt->indices ||
        bt->seeds || bt->seeded || bt->temperatures || bt->top_ks || bt->top_ps)
        return SV_SAMPLER_EINVAL; /* a version 3 batch: not for a version 2 sampler */
    return sv_sampler_ref.verify(state, bt);
}

static sampler_v2 table[2];
static plugin_v2 plugin;

SV_PLUGIN_EXPORT const plugin_v2 *sv_plugin_get(void);
SV_PLUGIN_EXPORT const plugin_v2 *sv_plugin_get(void)
{
    memset(table, 0xff, sizeof table);
    const char *names[2] = {"old_v2", "old_v2_second"};
    const char *descriptions[2] = {"test: a contract version 2 plugin (ref)",
                                   "test: the second entry, read at version 2's stride"};
    for (int i = 0; i < 2; i++) {
        table[i].name = names[i];
        table[i].description = descriptions[i];
        table[i].memspace = SV_MEM_HOST;
        table[i].init = init;
        table[i].verify = verify;
        table[i].destroy = destroy;
        table[i].inputs = 0;
    }
    plugin = (plugin_v2){2u, 2, table};
    return &plugin;
}
