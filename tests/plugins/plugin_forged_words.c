/* plugin_forged_words.c: samplers whose words are an attack on the reports
 * that quote them, for tests/cli/escaped_words.sh. Each fails its call and
 * says why in bytes meant to forge a summary line (a newline, then what a
 * passing run prints), erase the FAIL line on a terminal or an ANSI CI log
 * (ESC [2J, a carriage return), break a JUnit file (a vertical tab, an XML
 * close tag) and slip past a line filter (U+2028, a C1 CSI, bytes that are
 * not UTF-8). Its description says the same. The harness must print and
 * write every one of them escaped.
 *   forged_verify  fails every verify call with the words
 *   forged_init    fails init with the words */
#include <stdio.h>
#include "plugin_emit.h"
#include "sv_sampler.h"

#define FORGED "bad\n1 cases: 1 passed, 0 suspect, 0 failed.\x1b[2J\rX\v</failure>|" \
               "\xe2\x80\xa8\xc2\x9b\xff\\n"

static void say(char *message, int32_t len)
{
    if (message && len > 0)
        snprintf(message, (size_t)len, "%s", FORGED);
}

static int init(void **state, const sv_limits *limits)
{
    *state = NULL;
    (void)limits;
    return SV_SAMPLER_OK;
}

static int init_fails(void **state, const sv_limits *limits)
{
    *state = NULL;
    say(limits->message, limits->message_len);
    return SV_SAMPLER_EINTERNAL;
}

static void destroy(void *state) { (void)state; }

static int forged_verify(void *state, const sv_batch *bt)
{
    (void)state;
    emit(bt);
    say(bt->message, bt->message_len);
    return SV_SAMPLER_EINTERNAL;
}

static const sv_sampler samplers[] = {
    {"forged_verify", "test: " FORGED, SV_MEM_HOST, init, forged_verify, destroy, 0, 0,
     SV_RULE_CHAIN},
    {"forged_init", "test: " FORGED, SV_MEM_HOST, init_fails, forged_verify, destroy, 0, 0,
     SV_RULE_CHAIN},
};
static const sv_plugin plugin = {SV_CONTRACT_VERSION, sizeof samplers / sizeof samplers[0],
                                 samplers};

SV_PLUGIN_EXPORT const sv_plugin *sv_plugin_get(void) { return &plugin; }
