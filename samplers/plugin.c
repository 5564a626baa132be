/* plugin.c: load samplers from a shared library through SV_PLUGIN_SYMBOL. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "sv_registry.h"

static void **handles;
static size_t n_handles;
static sv_sampler **copies; /* version 1 samplers, widened to today's struct */
static size_t n_copies;

/* sv_sampler as contract version 1 laid it out: today's without `inputs`. */
typedef struct sampler_v1 {
    const char *name;
    const char *description;
    sv_memspace memspace;
    int (*init)(void **state, const sv_limits *limits);
    int (*verify)(void *state, const sv_batch *batch);
    void (*destroy)(void *state);
} sampler_v1;

/* A version 1 plugin's samplers as today's structs (inputs 0: probs only).
 * Its verify reads only the version 1 prefix of sv_batch, which is unchanged,
 * and the harness gives a probs-only sampler probs only. NULL on no memory. */
static const sv_sampler *widen_v1(const sv_plugin *plugin)
{
    const sampler_v1 *old = (const sampler_v1 *)(const void *)plugin->samplers;
    sv_sampler *wide = calloc(plugin->n_samplers, sizeof *wide);
    sv_sampler **grown = wide ? realloc(copies, (n_copies + 1) * sizeof *grown) : NULL;
    if (!grown) {
        free(wide);
        return NULL;
    }
    copies = grown;
    copies[n_copies++] = wide;
    for (uint32_t i = 0; i < plugin->n_samplers; i++)
        wide[i] = (sv_sampler){old[i].name, old[i].description, old[i].memspace, old[i].init,
                               old[i].verify, old[i].destroy, 0};
    return wide;
}

static int check_sampler(const char *path, uint32_t i, const sv_sampler *s, char *err,
                         size_t errlen)
{
    if (!s->name || !s->name[0]) {
        snprintf(err, errlen, "%s: sampler %u has no name", path, i);
        return -1;
    }
    if (!s->init || !s->verify || !s->destroy) {
        snprintf(err, errlen, "%s: sampler '%s' lacks an init, verify or destroy function", path,
                 s->name);
        return -1;
    }
    if (s->memspace != SV_MEM_HOST && s->memspace != SV_MEM_CUDA) {
        snprintf(err, errlen, "%s: sampler '%s' has unknown memory space %d", path, s->name,
                 (int)s->memspace);
        return -1;
    }
    return 0;
}

int sv_plugin_load(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(err, errlen, "plugin %s: no such file", path);
        return -1;
    }
    /* dlopen needs a slash to take a path rather than search the library path */
    char local[4096];
    if (!strchr(path, '/') && snprintf(local, sizeof local, "./%s", path) < (int)sizeof local)
        path = local;

    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        snprintf(err, errlen, "plugin %s: cannot load it as a shared library: %s", path,
                 dlerror());
        return -1;
    }
    sv_plugin_get_fn get;
    *(void **)&get = dlsym(handle, SV_PLUGIN_SYMBOL);
    if (!get) {
        snprintf(err, errlen,
                 "plugin %s: exports no '%s' symbol; a plugin defines "
                 "'SV_PLUGIN_EXPORT const sv_plugin *%s(void)' (see sv_sampler.h)",
                 path, SV_PLUGIN_SYMBOL, SV_PLUGIN_SYMBOL);
        dlclose(handle);
        return -1;
    }
    const sv_plugin *plugin = get();
    if (!plugin) {
        snprintf(err, errlen, "plugin %s: %s() returned NULL", path, SV_PLUGIN_SYMBOL);
        dlclose(handle);
        return -1;
    }
    if (plugin->contract_version != SV_CONTRACT_VERSION && plugin->contract_version != 1u) {
        snprintf(err, errlen,
                 "plugin %s: built against sampler contract version %u, but this specverify "
                 "speaks versions 1 to %u; rebuild the plugin against the sv_sampler.h "
                 "installed with this specverify",
                 path, plugin->contract_version, SV_CONTRACT_VERSION);
        dlclose(handle);
        return -1;
    }
    if (plugin->n_samplers == 0 || !plugin->samplers) {
        snprintf(err, errlen, "plugin %s: offers no samplers", path);
        dlclose(handle);
        return -1;
    }
    const sv_sampler *samplers =
        plugin->contract_version == 1u ? widen_v1(plugin) : plugin->samplers;
    if (!samplers) {
        snprintf(err, errlen, "plugin %s: out of memory", path);
        dlclose(handle);
        return -1;
    }
    for (uint32_t i = 0; i < plugin->n_samplers; i++) {
        if (check_sampler(path, i, &samplers[i], err, errlen) != 0) {
            dlclose(handle);
            return -1;
        }
    }
    void **grown = realloc(handles, (n_handles + 1) * sizeof *grown);
    if (!grown) {
        snprintf(err, errlen, "plugin %s: out of memory", path);
        dlclose(handle);
        return -1;
    }
    handles = grown;
    handles[n_handles++] = handle;
    for (uint32_t i = 0; i < plugin->n_samplers; i++)
        if (sv_registry_add(&samplers[i], path, err, errlen) != 0)
            return -1;
    return 0;
}

void sv_plugin_unload_all(void)
{
    sv_registry_clear_added();
    for (size_t i = 0; i < n_handles; i++)
        dlclose(handles[i]);
    free(handles);
    handles = NULL;
    n_handles = 0;
    for (size_t i = 0; i < n_copies; i++)
        free(copies[i]);
    free(copies);
    copies = NULL;
    n_copies = 0;
}
