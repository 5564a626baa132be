/* plugin_load_hostile.c: plugins that misbehave while loading or describe
 * themselves wrongly, one per build of this file (tests/CMakeLists.txt gives
 * each its HOSTILE_* definition). The harness must refuse each with exit 2
 * and what happened, never crash or exit with it:
 *   HOSTILE_CTOR_SEGV     a constructor writes through a null pointer
 *   HOSTILE_CTOR_EXIT     a constructor calls exit(0)
 *   HOSTILE_CTOR_PTRACE   a constructor ptraces the harness (the probe's
 *                         parent): the sandbox traps it (issue 36)
 *   HOSTILE_WILD_PLUGIN   sv_plugin_get returns a wild pointer
 *   HOSTILE_WILD_SAMPLERS the plugin's samplers pointer is wild
 *   HOSTILE_BAD_NAME      a sampler named "bad,name" (breaks list flags)
 *   HOSTILE_BAD_INPUTS    inputs with a bit sv_sampler.h does not define
 *   HOSTILE_BAD_LAYOUTS   layouts with a bit sv_sampler.h does not define
 *   HOSTILE_NULL_DESC     a NULL description: loads, shown as "(no description)" */
#include <stdint.h>
#include <stdlib.h>
#include "sv_sampler.h"

static int init(void **state, const sv_limits *limits)
{
    (void)limits;
    *state = NULL;
    return SV_SAMPLER_OK;
}

static int verify(void *state, const sv_batch *bt)
{
    (void)state;
    (void)bt;
    return SV_SAMPLER_EINVAL;
}

static void destroy(void *state) { (void)state; }

#if defined(HOSTILE_CTOR_SEGV)
static int volatile *volatile nowhere;
__attribute__((constructor)) static void on_load(void) { *nowhere = 1; }
#elif defined(HOSTILE_CTOR_EXIT)
__attribute__((constructor)) static void on_load(void) { exit(0); }
#elif defined(HOSTILE_CTOR_PTRACE)
#include <sys/ptrace.h>
#include <unistd.h>
/* attached, it would go on loading: the harness then said nothing */
__attribute__((constructor)) static void on_load(void) { ptrace(PTRACE_SEIZE, getppid(), 0, 0); }
#endif

#if defined(HOSTILE_BAD_NAME)
#define NAME "bad,name"
#else
#define NAME "load_hostile"
#endif
#if defined(HOSTILE_NULL_DESC)
#define DESCRIPTION NULL
#else
#define DESCRIPTION "test: a plugin that misbehaves at load time"
#endif
#if defined(HOSTILE_BAD_INPUTS)
#define INPUTS (1u << 7)
#else
#define INPUTS 0u
#endif
#if defined(HOSTILE_BAD_LAYOUTS)
#define LAYOUTS (SV_LAYOUT_BIT(SV_LAYOUT_PACKED) | (1u << 5))
#else
#define LAYOUTS 0u
#endif

/* used: some builds leave one of these unreferenced */
__attribute__((used)) static const sv_sampler samplers[] = {
    {NAME, DESCRIPTION, SV_MEM_HOST, init, verify, destroy, INPUTS, LAYOUTS, SV_RULE_CHAIN},
};
#if defined(HOSTILE_WILD_SAMPLERS)
__attribute__((used)) static const sv_plugin plugin = {SV_CONTRACT_VERSION, 1, (const sv_sampler *)(uintptr_t)0x40};
#else
__attribute__((used)) static const sv_plugin plugin = {SV_CONTRACT_VERSION, 1, samplers};
#endif

SV_PLUGIN_EXPORT const sv_plugin *sv_plugin_get(void)
{
#if defined(HOSTILE_WILD_PLUGIN)
    return (const sv_plugin *)(uintptr_t)0x40;
#else
    return &plugin;
#endif
}
