/* sv_registry.h: the built-in samplers and those loaded from plugins. */
#ifndef SV_REGISTRY_H
#define SV_REGISTRY_H

#include <stddef.h>
#include "sv_sampler.h"

/* Built-in samplers, defined one per file. */
extern const sv_sampler sv_sampler_ref;
extern const sv_sampler sv_sampler_direct;

/* Every sampler known now: the built-ins, then those of loaded plugins. */
size_t sv_registry_count(void);
const sv_sampler *sv_registry_get(size_t i);
/* Where sampler i comes from: "built-in" or the plugin's path. */
const char *sv_registry_origin(size_t i);
/* NULL if no sampler has that name. */
const sv_sampler *sv_registry_find(const char *name);

/* Loads a plugin and adds its samplers. Returns 0, or -1 with a message in
 * err that names the file and says what is wrong and what to do. */
int sv_plugin_load(const char *path, char *err, size_t errlen);
/* Unloads every plugin; samplers from them are gone after this. */
void sv_plugin_unload_all(void);

/* Used by plugin.c to add samplers; -1 if the name is taken or on no memory. */
int sv_registry_add(const sv_sampler *s, const char *origin, char *err, size_t errlen);
/* Forgets every sampler added by sv_registry_add. */
void sv_registry_clear_added(void);

const char *sv_memspace_name(sv_memspace m);

#endif
