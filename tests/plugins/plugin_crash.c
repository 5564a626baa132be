/* plugin_crash.c: samplers that crash inside the plugin, for the harness to
 * catch and name (sampler, call, case, sequences) instead of dying silently:
 *   crash_segv   verify writes through a null pointer from sequence 10000 on,
 *                after correct batches before it
 *   crash_stack  verify recurses until its stack overflows (caught on the
 *                harness's signal stack)
 *   crash_init   init writes through a null pointer
 *   crash_abort  verify calls abort(), as a failed assert does
 * Before a crash each emits a correct-looking step: no draft accepted and the
 * first draft token as y_1 (the checks may fail it; the crash is the point). */
#include <stdlib.h>
#include "plugin_emit.h"
#include "sv_sampler.h"

static int volatile *volatile nowhere; /* null; volatile: the store is not optimized away */

static int init_ok(void **state, const sv_limits *limits)
{
    (void)limits;
    *state = NULL;
    return SV_SAMPLER_OK;
}

static int init_crash(void **state, const sv_limits *limits)
{
    (void)limits;
    *state = NULL;
    *nowhere = 1;
    return SV_SAMPLER_OK;
}

static void destroy(void *state) { (void)state; }

static int verify_segv(void *state, const sv_batch *bt)
{
    (void)state;
    if (bt->first_index + (uint64_t)bt->B > 10000)
        *nowhere = 1;
    emit(bt);
    return SV_SAMPLER_OK;
}

static volatile int bottom = 1 << 30; /* far below any stack's end */

static int deeper(int depth)
{
    volatile char frame[4096];
    frame[0] = (char)depth;
    if (depth >= bottom)
        return 0;
    return deeper(depth + 1) + frame[0]; /* not a tail call */
}

static int verify_stack(void *state, const sv_batch *bt)
{
    (void)state;
    emit(bt);
    return deeper(0);
}

static int verify_abort(void *state, const sv_batch *bt)
{
    (void)state;
    (void)bt;
    abort();
}

static int verify_ok(void *state, const sv_batch *bt)
{
    (void)state;
    emit(bt);
    return SV_SAMPLER_OK;
}

static const sv_sampler samplers[] = {
    {"crash_segv", "test: SIGSEGV in verify from sequence 10000 on", SV_MEM_HOST, init_ok,
     verify_segv, destroy, 0, 0, SV_RULE_CHAIN},
    {"crash_stack", "test: stack overflow in verify", SV_MEM_HOST, init_ok, verify_stack,
     destroy, 0, 0, SV_RULE_CHAIN},
    {"crash_init", "test: SIGSEGV in init", SV_MEM_HOST,
     init_crash, verify_ok, destroy, 0, 0, SV_RULE_CHAIN},
    {"crash_abort", "test: abort() in verify", SV_MEM_HOST,
     init_ok, verify_abort, destroy, 0, 0, SV_RULE_CHAIN},
};
static const sv_plugin plugin = {SV_CONTRACT_VERSION, sizeof samplers / sizeof samplers[0],
                                 samplers};

SV_PLUGIN_EXPORT const sv_plugin *sv_plugin_get(void) { return &plugin; }
