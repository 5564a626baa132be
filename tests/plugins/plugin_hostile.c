/* plugin_hostile.c: samplers that misbehave in the ways that once fooled or
 * damaged the harness, for tests/hostile_samplers.sh. Each must end as a
 * finding (exit 1) that names the sampler and what it did, with the reports
 * written; none may crash the harness, hang it or make it pass:
 *   rows_sharpened    squares its target rows and renormalises them in place
 *                     on its first call, then samples correctly from the rows
 *                     it changed: it once PASSED, the harness judging it
 *                     against those same changed rows
 *   bonus_in_place    tempers the bonus row (target row K+1) in place, as an
 *                     in-place softmax does
 *   drafts_overwrite  writes over its input draft tokens
 *   past_tokens       writes 256 bytes past the end of out_tokens
 *   before_tokens     writes out_tokens[-1]
 *   past_accepted     writes out_accepted[B]
 *   far_past_tokens   writes 6000 bytes past the end of out_tokens
 *   exit_zero         calls exit(0) inside verify
 *   quick_exit_zero   calls _exit(0) inside verify
 *   hang              never returns from verify
 *   thread_segv       crashes on a thread it created inside verify
 *   interrupt_harness sends SIGINT to the harness in the call of sequence 5000
 *                     (a Ctrl-C that lands mid-call, for the stop-at-the-next-
 *                     batch test)
 * Outputs are otherwise well formed: no draft accepted, y_1 = the first draft. */
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "plugin_chain.h"
#include "plugin_emit.h"
#include "sv_sampler.h"

static int init(void **state, const sv_limits *limits)
{
    (void)limits;
    *state = NULL;
    return SV_SAMPLER_OK;
}

static void destroy(void *state) { (void)state; }

static size_t n_tokens(const sv_batch *bt)
{
    return (size_t)bt->B * (size_t)(bt->K + 1);
}

static int rows_sharpened(void *state, const sv_batch *bt)
{
    (void)state;
    static int sharpened;
    const int32_t K = bt->K, V = bt->V;
    if (!sharpened) { /* the const cast is the bug */
        float *target = (float *)(uintptr_t)bt->target;
        for (int32_t k = 0; k <= K; k++) {
            float *row = target + (size_t)k * (size_t)V;
            double sum = 0.0;
            for (int32_t v = 0; v < V; v++)
                sum += (double)row[v] * row[v];
            for (int32_t v = 0; v < V; v++)
                row[v] = (float)((double)row[v] * row[v] / sum);
        }
        sharpened = 1;
    }
    return chain_sample(bt);
}

static int bonus_in_place(void *state, const sv_batch *bt)
{
    (void)state;
    float *bonus = (float *)(uintptr_t)bt->target + (size_t)bt->K * (size_t)bt->V;
    for (int32_t v = 0; v < bt->V; v++)
        bonus[v] *= 0.5f;
    emit(bt);
    return SV_SAMPLER_OK;
}

static int drafts_overwrite(void *state, const sv_batch *bt)
{
    (void)state;
    ((int32_t *)(uintptr_t)bt->draft_tokens)[(size_t)bt->K] = 0; /* sequence 1's first draft */
    emit(bt);
    return SV_SAMPLER_OK;
}

static int past_tokens(void *state, const sv_batch *bt)
{
    (void)state;
    emit(bt);
    memset(bt->out_tokens + n_tokens(bt), 0x11, 256);
    return SV_SAMPLER_OK;
}

static int before_tokens(void *state, const sv_batch *bt)
{
    (void)state;
    emit(bt);
    bt->out_tokens[-1] = 0;
    return SV_SAMPLER_OK;
}

static int past_accepted(void *state, const sv_batch *bt)
{
    (void)state;
    emit(bt);
    bt->out_accepted[bt->B] = 0;
    return SV_SAMPLER_OK;
}

static int far_past_tokens(void *state, const sv_batch *bt)
{
    (void)state;
    emit(bt);
    ((volatile char *)(bt->out_tokens + n_tokens(bt)))[6000] = 1;
    return SV_SAMPLER_OK;
}

static int exit_zero(void *state, const sv_batch *bt)
{
    (void)state;
    (void)bt;
    exit(0);
}

static int quick_exit_zero(void *state, const sv_batch *bt)
{
    (void)state;
    (void)bt;
    _exit(0);
}

static int hang(void *state, const sv_batch *bt)
{
    (void)state;
    (void)bt;
    for (volatile int forever = 1; forever;)
        sleep(1);
    return SV_SAMPLER_OK;
}

static int volatile *volatile nowhere; /* null; volatile: the store is not optimized away */

static void *crash(void *arg)
{
    (void)arg;
    *nowhere = 1;
    return NULL;
}

static int thread_segv(void *state, const sv_batch *bt)
{
    (void)state;
    pthread_t t;
    if (pthread_create(&t, NULL, crash, NULL) == 0)
        pthread_join(t, NULL);
    emit(bt);
    return SV_SAMPLER_OK;
}

/* The harness: this process's parent when isolated (the child ignores
 * SIGINT, the harness decides), else this process. */
static int interrupt_harness(void *state, const sv_batch *bt)
{
    (void)state;
    if (bt->first_index <= 5000 && 5000 < bt->first_index + (uint64_t)bt->B) {
        struct sigaction now;
        sigaction(SIGINT, NULL, &now);
        if (now.sa_handler == SIG_IGN)
            kill(getppid(), SIGINT);
        else
            raise(SIGINT);
    }
    emit(bt);
    return SV_SAMPLER_OK;
}

#define HOSTILE(name, what) {#name, "test: " what, SV_MEM_HOST, init, name, destroy, 0, 0, SV_RULE_CHAIN}
static const sv_sampler samplers[] = {
    HOSTILE(rows_sharpened, "sharpens its target rows in place, then samples from them"),
    HOSTILE(bonus_in_place, "tempers the bonus row in place"),
    HOSTILE(drafts_overwrite, "writes over its draft tokens"),
    HOSTILE(past_tokens, "writes 256 bytes past out_tokens"),
    HOSTILE(before_tokens, "writes out_tokens[-1]"),
    HOSTILE(past_accepted, "writes out_accepted[B]"),
    HOSTILE(far_past_tokens, "writes 6000 bytes past out_tokens"),
    HOSTILE(exit_zero, "calls exit(0) in verify"),
    HOSTILE(quick_exit_zero, "calls _exit(0) in verify"),
    HOSTILE(hang, "never returns from verify"),
    HOSTILE(thread_segv, "crashes on a thread of its own"),
    HOSTILE(interrupt_harness, "sends SIGINT to the harness at sequence 5000"),
};
static const sv_plugin plugin = {SV_CONTRACT_VERSION, sizeof samplers / sizeof samplers[0],
                                 samplers};

SV_PLUGIN_EXPORT const sv_plugin *sv_plugin_get(void) { return &plugin; }
