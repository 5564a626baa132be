/* sv_python.c: Python samplers, as a specverify plugin whose sampler runs
 * in an interpreter process of the user's choosing.
 *
 * `specverify verify --python FILE.py:FUNCTION` loads this plugin like any
 * other, so a Python sampler runs where a C one does: in the isolated,
 * sandboxed child (a crash, an exit, a hang or a write to the inputs is a
 * finding, never the harness's end), its plugin first opened in a forked
 * probe. The plugin links no libpython: it starts the interpreter the CLI
 * chose (py_worker.c) and hands it each batch through shared memory
 * (py_batch.c), so any CPython from 3.9 on, in a venv or not, runs the
 * sampler with its own numpy, torch and Triton; or it asks the fork server
 * the CLI started for a fork of an interpreter that imported the samplers
 * once (py_server.c, SV_PYTHON_SERVER_FD). What to load comes in the
 * environment, which the CLI sets before loading and every process inherits:
 *   SV_PYTHON_SAMPLERS  one spec a line ("path/file.py:name" or "module:name")
 *   SV_PYTHON_CONFIG    JSON object of keyword arguments for every sampler
 *   SV_PYTHON_PATH      the folder holding the specverify package (the glue)
 *   SV_PYTHON_EXE       the interpreter (default: python3 on PATH)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "py_plugin.h"

#define MAX_SAMPLERS 8

static sv_sampler table[MAX_SAMPLERS];
static int bonus_policy[MAX_SAMPLERS];
static char names[MAX_SAMPLERS][72], descriptions[MAX_SAMPLERS][200];
static sv_plugin plugin = {SV_CONTRACT_VERSION, 0, table};
static sv_pyw worker;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* one request at a time: the
                                                          * harness calls from several threads */
static pthread_t lock_owner;
static int lock_held, generation; /* generation: of the worker now up, counted from 1 */
static char load_error[1024];
static int next_slot, live_slots;
static int load_samplers(const char *exe, const char *specs, const char *config, int fill);
static int worker_up(char *err, size_t len, int fill);

SV_PLUGIN_EXPORT const char *sv_plugin_error(void) { return load_error; }

/* An answer's words (its "error", else what is given), into buf. */
static void words(const cJSON *answer, const char *otherwise, char *buf, size_t len)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(answer, "error");
    snprintf(buf, len, "%s", cJSON_IsString(e) ? e->valuestring : otherwise);
}

static int ok(const cJSON *answer)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(answer, "ok"));
}

/* ---- the calls ---------------------------------------------------------------- */

static void take(void)
{
    pthread_mutex_lock(&lock);
    lock_owner = pthread_self();
    lock_held = 1;
}

static void give(void)
{
    lock_held = 0;
    pthread_mutex_unlock(&lock);
}

/* The worker has ended in a call (py_worker.c raises its signal or exits
 * its status here next): under --in-process the harness's guard goes on
 * past the call, so the lock is given back and the slots made with that
 * worker are let go; the next init starts another. */
static void worker_ended(void)
{
    live_slots = 0;
    if (lock_held && pthread_equal(lock_owner, pthread_self()))
        give();
}

/* One instance. Each is on the list until destroyed: under --in-process
 * the harness abandons the state of a call that crashed (it never calls
 * destroy), and those left are freed when the plugin is unloaded. */
typedef struct slot_state {
    int slot; /* the worker's name for it */
    int generation; /* the worker it was made in */
    int32_t *bonus; /* the bonus tokens the harness draws, held for every call */
    size_t bonus_room;
    struct slot_state *next;
} slot_state;
static slot_state *states;

static void unlist(const slot_state *s)
{
    for (slot_state **at = &states; *at; at = &(*at)->next)
        if (*at == s) {
            *at = s->next;
            return;
        }
}

/* At unload: nobody holds what is still listed. */
__attribute__((destructor)) static void free_abandoned(void)
{
    while (states) {
        slot_state *s = states;
        states = s->next;
        free(s->bonus);
        free(s);
    }
}

/* Whether the worker state was made in is the one up now. */
static int current(const slot_state *s)
{
    return worker.up && s->generation == generation;
}

static int py_init(int i, void **state, const sv_limits *limits)
{
    slot_state *s = calloc(1, sizeof *s);
    if (!s)
        return SV_SAMPLER_ENOMEM;
    cJSON *req = cJSON_CreateObject();
    cJSON_AddStringToObject(req, "op", "init");
    take();
    /* the last destroy ended the interpreter; an instance made after it
     * (a later group of cases, another thread's) starts it again */
    if (!worker.up && worker_up(limits->message, limits->message && limits->message_len > 0
                                                         ? (size_t)limits->message_len : 0,
                                     0) != 0) {
        give();
        cJSON_Delete(req);
        free(s);
        *state = NULL;
        return SV_SAMPLER_EINTERNAL;
    }
    s->slot = next_slot++;
    s->generation = generation;
    s->next = states;
    states = s;
    live_slots++;
    cJSON_AddNumberToObject(req, "slot", s->slot);
    cJSON_AddNumberToObject(req, "i", i);
    cJSON_AddNumberToObject(req, "max_b", limits->max_B);
    cJSON_AddNumberToObject(req, "max_k", limits->max_K);
    cJSON_AddNumberToObject(req, "max_v", limits->max_V);
    cJSON *a = sv_pyw_ask(&worker, req);
    give();
    int rc = SV_SAMPLER_OK;
    if (!ok(a)) { /* the harness puts the words in its finding */
        if (limits->message && limits->message_len > 0)
            words(a, "the interpreter's answer could not be read", limits->message,
                  (size_t)limits->message_len);
        /* no device: the environment's failure, which the harness makes exit 3 */
        rc = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "device_missing"))
                 ? SV_SAMPLER_EDEVICE : SV_SAMPLER_EINTERNAL;
        take();
        if (current(s))
            live_slots--;
        unlist(s);
        give();
        free(s);
        s = NULL;
    }
    cJSON_Delete(a);
    *state = s;
    return rc;
}

static void say(const sv_batch *bt, const char *what)
{
    if (bt->message && bt->message_len > 0)
        snprintf(bt->message, (size_t)bt->message_len, "%s", what);
}

static int py_verify(int i, void *state, const sv_batch *bt)
{
    slot_state *st = state;
    int32_t *bonus = NULL;
    if (bonus_policy[i] != SV_PY_BONUS_SAMPLER) {
        const size_t want = (size_t)(bt->B ? bt->B : 1);
        if (want > st->bonus_room) {
            int32_t *more = realloc(st->bonus, want * sizeof *more);
            if (more)
                st->bonus = more, st->bonus_room = want;
        }
        bonus = want <= st->bonus_room ? st->bonus : NULL;
        if (!bonus || sv_py_bonus(bt, bonus) != 0) {
            say(bt, "out of memory drawing the bonus tokens");
            return SV_SAMPLER_ENOMEM;
        }
    }
    take();
    cJSON *req = current(state) ? sv_py_pack(&worker, bt, bonus, ((slot_state *)state)->slot)
                                : NULL;
    int rc = SV_SAMPLER_OK;
    if (!current(state)) {
        say(bt, "its interpreter ended in an earlier call");
        rc = SV_SAMPLER_EINTERNAL;
    } else if (!req) {
        say(bt, "out of memory for the batch's shared copy");
        rc = SV_SAMPLER_ENOMEM;
    } else {
        cJSON *a = sv_pyw_ask(&worker, req);
        char said[400];
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(a, "said");
        if (!ok(a)) { /* the glue itself failed: what Python says */
            words(a, "the interpreter's answer could not be read", said, sizeof said);
            say(bt, said);
            rc = SV_SAMPLER_EINTERNAL;
        } else if (sv_py_unpack(&worker, bt, bonus, said, sizeof said) != 0) {
            say(bt, said);
            rc = SV_SAMPLER_EINTERNAL;
        } else if (cJSON_IsString(s)) { /* the sampler failed: the glue's words */
            say(bt, s->valuestring);
            rc = SV_SAMPLER_EINTERNAL;
        }
        cJSON_Delete(a);
    }
    give();
    return rc;
}

static void py_destroy(void *state)
{
    if (!state)
        return;
    cJSON *req = cJSON_CreateObject();
    cJSON_AddStringToObject(req, "op", "destroy");
    cJSON_AddNumberToObject(req, "slot", ((slot_state *)state)->slot);
    take();
    if (current(state)) { /* else its worker is gone, and with it the instance */
        cJSON_Delete(sv_pyw_ask(&worker, req));
        if (--live_slots == 0) /* the last: the interpreter ends with the sampler's use */
            sv_pyw_stop(&worker);
    } else {
        cJSON_Delete(req);
    }
    unlist(state);
    give();
    free(((slot_state *)state)->bonus);
    free(state);
}

/* One init and verify per table entry: the contract's calls do not say
 * which sampler they are for. */
#define ENTRY(i)                                                                             \
    static int init_##i(void **s, const sv_limits *l) { return py_init(i, s, l); }          \
    static int verify_##i(void *s, const sv_batch *b) { return py_verify(i, s, b); }
ENTRY(0) ENTRY(1) ENTRY(2) ENTRY(3) ENTRY(4) ENTRY(5) ENTRY(6) ENTRY(7)
static int (*const inits[MAX_SAMPLERS])(void **, const sv_limits *) = {
    init_0, init_1, init_2, init_3, init_4, init_5, init_6, init_7};
static int (*const verifies[MAX_SAMPLERS])(void *, const sv_batch *) = {
    verify_0, verify_1, verify_2, verify_3, verify_4, verify_5, verify_6, verify_7};

/* ---- loading ------------------------------------------------------------------ */

/* One sampler of the glue's load: [name, description, inputs, layouts,
 * bonus, rule, lacks] into table entry i. */
static int take_entry(int i, const cJSON *e)
{
    const cJSON *f[7];
    for (int k = 0; k < 7; k++)
        f[k] = cJSON_GetArrayItem(e, k);
    if (!cJSON_IsString(f[0]) || !cJSON_IsString(f[1]))
        return -1;
    for (int k = 2; k < 7; k++)
        if (!cJSON_IsNumber(f[k]))
            return -1;
    snprintf(names[i], sizeof names[i], "%s", f[0]->valuestring);
    snprintf(descriptions[i], sizeof descriptions[i], "%s", f[1]->valuestring);
    bonus_policy[i] = f[4]->valueint;
    table[i] = (sv_sampler){names[i], descriptions[i], SV_MEM_HOST, inits[i], verifies[i],
                            py_destroy, (uint32_t)f[2]->valueint, (uint32_t)f[3]->valueint,
                            (uint32_t)f[5]->valueint, (uint32_t)f[6]->valueint};
    return 0;
}

static int load_samplers(const char *exe, const char *specs, const char *config, int fill)
{
    cJSON *req = cJSON_CreateObject();
    cJSON_AddStringToObject(req, "op", "load");
    cJSON_AddStringToObject(req, "specs", specs);
    cJSON_AddStringToObject(req, "config", config);
    cJSON *a = sv_pyw_ask(&worker, req);
    if (!ok(a)) {
        char why[800];
        words(a, "its answer could not be read", why, sizeof why);
        snprintf(load_error, sizeof load_error, "%s", why);
        if (!cJSON_GetObjectItemCaseSensitive(a, "error"))
            snprintf(load_error, sizeof load_error, "python samplers: %s: %s", exe, why);
        cJSON_Delete(a);
        return -1;
    }
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(a, "samplers");
    const int n = cJSON_GetArraySize(list);
    int rc = 0;
    if (n < 1 || n > MAX_SAMPLERS) {
        snprintf(load_error, sizeof load_error, "python samplers: %d given; 1 to %d at once",
                 n, MAX_SAMPLERS);
        rc = -1;
    }
    if (!fill && rc == 0 && (uint32_t)n != plugin.n_samplers) {
        snprintf(load_error, sizeof load_error, "python samplers: started again, the "
                 "interpreter loaded %d samplers where it had %u", n, plugin.n_samplers);
        rc = -1;
    }
    for (int i = 0; fill && rc == 0 && i < n; i++)
        if (take_entry(i, cJSON_GetArrayItem(list, i)) != 0) {
            snprintf(load_error, sizeof load_error, "python samplers: the glue's answer for "
                     "sampler %d could not be read", i);
            rc = -1;
        }
    if (fill)
        plugin.n_samplers = rc == 0 ? (uint32_t)n : 0;
    cJSON_Delete(a);
    return rc;
}

/* Starts the interpreter and loads the samplers into it: 0, or -1 with why
 * in load_error (and in err, when given). fill: the first time, the table
 * is made from what it loads; after, the table stands (other threads read
 * it) and the load must only succeed. */
static int worker_up(char *err, size_t len, int fill)
{
    const char *specs = getenv("SV_PYTHON_SAMPLERS"), *config = getenv("SV_PYTHON_CONFIG");
    const char *exe = getenv("SV_PYTHON_EXE"), *package = getenv("SV_PYTHON_PATH");
    int rc = -1;
    if (!specs || !*specs) {
        snprintf(load_error, sizeof load_error,
                 "python samplers: none named (SV_PYTHON_SAMPLERS is empty; specverify's "
                 "--python FILE.py:FUNCTION sets it)");
    } else {
        if (!exe || !*exe)
            exe = "/usr/bin/python3";
        rc = sv_pyw_start(&worker, exe, package && *package ? package : SV_PYTHON_PACKAGE_DIR,
                          load_error, sizeof load_error);
        if (rc == 0)
            rc = load_samplers(exe, specs, config ? config : "", fill);
        if (rc == 0)
            generation++;
    }
    if (rc != 0 && err && len)
        snprintf(err, len, "%s", load_error);
    return rc;
}

SV_PLUGIN_EXPORT const sv_plugin *sv_plugin_get(void)
{
    static int done, loaded;
    if (done)
        return loaded ? &plugin : NULL;
    done = 1;
    sv_pyw_on_end(worker_ended);
    loaded = worker_up(NULL, 0, 1) == 0;
    return loaded ? &plugin : NULL;
}
