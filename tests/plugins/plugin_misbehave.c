/* plugin_misbehave.c: samplers that break the contract without crashing; the
 * harness poisons the outputs before each call and checks them after, and
 * must fail the case with a finding that says what was wrong:
 *   ids_out_of_range    y_1 = V, a token outside [0, V)
 *   count_out_of_range  n = K + 1 accepted drafts
 *   unwritten           writes nothing and returns OK
 *   tokens_unwritten    writes n = 0 and the -1 padding, but not y_1
 *   verify_error        returns SV_SAMPLER_EINVAL from verify
 *   init_error          returns SV_SAMPLER_ENOMEM from init, saying why (version 4)
 *   bad_status          returns 7, a status sv_sampler.h does not define
 *   explains            returns SV_SAMPLER_EINTERNAL and says why in `message`
 *                       (version 4), past its end too: the harness must cut it */
#include <string.h>
#include "sv_sampler.h"

static int init_ok(void **state, const sv_limits *limits)
{
    (void)limits;
    *state = 0;
    return SV_SAMPLER_OK;
}

static int init_enomem(void **state, const sv_limits *limits)
{
    *state = 0;
    if (limits->message && limits->message_len > 0) /* version 4: why */
        strncpy(limits->message, "the workspace of 64 GiB", (size_t)limits->message_len);
    return SV_SAMPLER_ENOMEM;
}

static void destroy(void *state) { (void)state; }

/* n = 0, y_1 = `first` (the first draft when first < 0), -1 after */
static void emit(const sv_batch *bt, int32_t first, int32_t n, int write_y1)
{
    for (int32_t b = 0; b < bt->B; b++) {
        int32_t *y = bt->out_tokens + (size_t)b * (size_t)(bt->K + 1);
        if (write_y1)
            y[0] = first >= 0 ? first : bt->draft_tokens[(size_t)b * (size_t)bt->K];
        for (int32_t k = 1; k <= bt->K; k++)
            y[k] = -1;
        bt->out_accepted[b] = n;
    }
}

static int ids_out_of_range(void *state, const sv_batch *bt)
{
    (void)state;
    emit(bt, bt->V, 0, 1);
    return SV_SAMPLER_OK;
}

static int count_out_of_range(void *state, const sv_batch *bt)
{
    (void)state;
    emit(bt, -1, bt->K + 1, 1);
    return SV_SAMPLER_OK;
}

static int unwritten(void *state, const sv_batch *bt)
{
    (void)state;
    (void)bt;
    return SV_SAMPLER_OK;
}

static int tokens_unwritten(void *state, const sv_batch *bt)
{
    (void)state;
    emit(bt, -1, 0, 0);
    return SV_SAMPLER_OK;
}

static int verify_einval(void *state, const sv_batch *bt)
{
    (void)state;
    emit(bt, -1, 0, 1);
    return SV_SAMPLER_EINVAL;
}

static int verify_bad_status(void *state, const sv_batch *bt)
{
    (void)state;
    emit(bt, -1, 0, 1);
    return 7;
}

static int verify_explains(void *state, const sv_batch *bt)
{
    (void)state;
    emit(bt, -1, 0, 1);
    static const char why[] = "KeyError: 'temperature' (sampler.py:12 in verify)";
    if (bt->message && bt->message_len > 0) {
        /* the whole message, then no NUL at all: the harness must end it */
        strncpy(bt->message, why, (size_t)bt->message_len);
        if (bt->message_len > (int32_t)sizeof why)
            memset(bt->message + sizeof why - 1, 'x', (size_t)bt->message_len - sizeof why + 1);
    }
    return SV_SAMPLER_EINTERNAL;
}

static const sv_sampler samplers[] = {
    {"ids_out_of_range", "test: emits token V", SV_MEM_HOST,
     init_ok, ids_out_of_range, destroy, 0, 0, SV_RULE_CHAIN},
    {"count_out_of_range", "test: reports K + 1 accepted", SV_MEM_HOST, init_ok,
     count_out_of_range, destroy, 0, 0, SV_RULE_CHAIN},
    {"unwritten", "test: writes no output", SV_MEM_HOST,
     init_ok, unwritten, destroy, 0, 0, SV_RULE_CHAIN},
    {"tokens_unwritten", "test: leaves y_1 unwritten", SV_MEM_HOST, init_ok, tokens_unwritten,
     destroy, 0, 0, SV_RULE_CHAIN},
    {"verify_error", "test: verify returns EINVAL", SV_MEM_HOST,
     init_ok, verify_einval, destroy, 0, 0, SV_RULE_CHAIN},
    {"init_error", "test: init returns ENOMEM", SV_MEM_HOST,
     init_enomem, unwritten, destroy, 0, 0, SV_RULE_CHAIN},
    {"bad_status", "test: verify returns 7", SV_MEM_HOST,
     init_ok, verify_bad_status, destroy, 0, 0, SV_RULE_CHAIN},
    {"explains", "test: verify fails and says why", SV_MEM_HOST, init_ok, verify_explains, destroy,
     0, 0, SV_RULE_CHAIN},
};
static const sv_plugin plugin = {SV_CONTRACT_VERSION, sizeof samplers / sizeof samplers[0],
                                 samplers};

SV_PLUGIN_EXPORT const sv_plugin *sv_plugin_get(void) { return &plugin; }
