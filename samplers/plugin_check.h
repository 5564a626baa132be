/* plugin_check.h: plugin.c's check of each sampler a probe reports. */
#ifndef SV_PLUGIN_CHECK_H
#define SV_PLUGIN_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include "sv_sampler.h"

/* 0 when sampler i of the plugin at path is well formed for its contract
 * version; else -1 with a message naming the plugin, sampler and field. */
int sv_plugin_check_sampler(const char *path, uint32_t i, const sv_sampler *s,
                            int has_functions, uint32_t version, char *err, size_t errlen);

#endif
