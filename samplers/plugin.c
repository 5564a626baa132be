/* plugin.c: samplers from a shared library, through SV_PLUGIN_SYMBOL.
 *
 * Loading runs the plugin's code (its constructors, sv_plugin_get), so it is
 * first done in a forked probe: a constructor that crashes, exits or hangs,
 * or a wild pointer among the samplers, ends the probe, not the harness, and
 * is refused with exit 2 and what happened. The probe sends back what the
 * samplers say of themselves (name, description, memory space, inputs,
 * layouts); the registry holds those as proxies without functions. Whoever
 * calls a sampler (the child that runs it, or the harness in --in-process
 * mode) resolves the proxy to the plugin's own struct with
 * sv_sampler_resolve, loading the library there. Version 1 and 2 plugins'
 * tables are read at their own structs' strides and widened. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "sv_input.h"
#include "sv_registry.h"
#include "plugin_check.h"

/* How long a plugin may take to load. */
#define LOAD_SECONDS 600

/* sv_sampler as contract version 1 laid it out: today's without `inputs`. */
typedef struct sampler_v1 {
    const char *name;
    const char *description;
    sv_memspace memspace;
    int (*init)(void **state, const sv_limits *limits);
    int (*verify)(void *state, const sv_batch *batch);
    void (*destroy)(void *state);
} sampler_v1;

/* sv_sampler as contract version 2 laid it out: today's without `layouts`.
 * Version 1's ends with a pointer, so `inputs` sits where version 2 had it.
 * The stride is smaller where pointers are 4 bytes; where they are 8 it is
 * today's, and `layouts` would be read from the padding after `inputs`. */
typedef struct sampler_v2 {
    sampler_v1 v1;
    uint32_t inputs;
} sampler_v2;

/* sv_sampler as contract versions 3 and 4 laid it out: today's without
 * `rule`. Where pointers are 8 bytes its stride is 56, today's 64 (spelled
 * flat: a sampler_v2 member would bring its own padding, and stride 64). */
typedef struct sampler_v4 {
    sampler_v1 v1;
    uint32_t inputs;
    uint32_t layouts;
} sampler_v4;

/* A sampler the registry knows by what the probe said; `real` once resolved
 * in this process. */
typedef struct proxy {
    sv_sampler s; /* first: the registry's pointer is the proxy's */
    char *path;
    uint32_t index, version;
    sv_sampler real;
    int resolved;
} proxy;

static proxy **proxies;
static size_t n_proxies;
static void **handles; /* libraries loaded in this process, to close at the end */
static size_t n_handles;

/* ---- reading a plugin (in the probe, and where it is resolved) ---------------------- */

/* The plugin's table, checked: NULL with err set when it cannot be used. */
static const sv_plugin *open_plugin(const char *path, void **handle_out, char *err,
                                    size_t errlen)
{
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        snprintf(err, errlen, "plugin %s: cannot load it as a shared library: %s", path,
                 dlerror());
        return NULL;
    }
    sv_plugin_get_fn get;
    *(void **)&get = dlsym(handle, SV_PLUGIN_SYMBOL);
    if (!get) {
        snprintf(err, errlen,
                 "plugin %s: exports no '%s' symbol; a plugin defines "
                 "'SV_PLUGIN_EXPORT const sv_plugin *%s(void)' (see sv_sampler.h)",
                 path, SV_PLUGIN_SYMBOL, SV_PLUGIN_SYMBOL);
        dlclose(handle);
        return NULL;
    }
    const sv_plugin *plugin = get();
    if (!plugin) {
        /* a plugin may say why (SV_PLUGIN_ERROR_SYMBOL, optional) */
        const char *(*why)(void);
        *(void **)&why = dlsym(handle, SV_PLUGIN_ERROR_SYMBOL);
        const char *text = why ? why() : NULL;
        if (text && *text)
            snprintf(err, errlen, "%s", text);
        else
            snprintf(err, errlen, "plugin %s: %s() returned NULL", path, SV_PLUGIN_SYMBOL);
    }
    else if (plugin->contract_version < 1u || plugin->contract_version > SV_CONTRACT_VERSION)
        snprintf(err, errlen,
                 "plugin %s: built against sampler contract version %u, but this specverify "
                 "speaks versions 1 to %u; rebuild the plugin against the sv_sampler.h "
                 "installed with this specverify",
                 path, plugin->contract_version, SV_CONTRACT_VERSION);
    else if (plugin->n_samplers == 0 || !plugin->samplers)
        snprintf(err, errlen, "plugin %s: offers no samplers", path);
    else if (plugin->n_samplers > 256)
        snprintf(err, errlen, "plugin %s: says it offers %u samplers; at most 256", path,
                 plugin->n_samplers);
    else {
        *handle_out = handle;
        return plugin;
    }
    dlclose(handle);
    return NULL;
}

/* A version 1 or 2 entry in today's layout, with what it could not say:
 * one case per batch (layouts 0), and for version 1 probabilities only. */
static sv_sampler widened(const sampler_v1 *old, uint32_t inputs, uint32_t layouts)
{
    return (sv_sampler){old->name, old->description, old->memspace, old->init, old->verify,
                        old->destroy, inputs, layouts, SV_RULE_CHAIN};
}

/* Sampler i of the plugin in today's layout, read at its version's stride. */
static sv_sampler entry(const sv_plugin *plugin, uint32_t i)
{
    const void *table = plugin->samplers;
    if (plugin->contract_version == 1u)
        return widened((const sampler_v1 *)table + i, 0, 0);
    if (plugin->contract_version == 2u) {
        const sampler_v2 *old = (const sampler_v2 *)table + i;
        return widened(&old->v1, old->inputs, 0);
    }
    if (plugin->contract_version <= 4u) { /* chain samplers, all of them */
        const sampler_v4 *old = (const sampler_v4 *)table + i;
        return widened(&old->v1, old->inputs, old->layouts);
    }
    sv_sampler s = plugin->samplers[i];
    if (plugin->contract_version <= 6u) /* same stride; `lacks` was padding then */
        s.lacks = 0;
    return s;
}

/* ---- the probe ------------------------------------------------------------------- */

/* What the probe writes: a status line, then per sampler its fields. */
static void put_text(FILE *f, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    fprintf(f, "%d %zu\n", s != NULL, n);
    if (n)
        fwrite(s, 1, n, f);
}

static void (*confine_before)(void), (*confine_child)(void);

void sv_plugin_set_confine(void (*before_fork)(void), void (*in_child)(void))
{
    confine_before = before_fork;
    confine_child = in_child;
}

__attribute__((noreturn)) static void probe(const char *path, int fd)
{
    if (confine_child) /* a plugin is untrusted from its first constructor on */
        confine_child();
    /* a fault ends the probe by its signal, which the harness names; not
     * through a handler (a sanitizer's) that would exit with a status */
    static const int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS, SIGTRAP};
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
        signal(faults[i], SIG_DFL);
    FILE *f = fdopen(fd, "w");
    if (!f)
        _exit(3);
    char err[1024];
    void *handle;
    const sv_plugin *plugin = open_plugin(path, &handle, err, sizeof err);
    if (!plugin) {
        fprintf(f, "error\n");
        put_text(f, err);
    } else {
        fprintf(f, "ok\n%u %u\n", plugin->contract_version, plugin->n_samplers);
        for (uint32_t i = 0; i < plugin->n_samplers; i++) { /* a wild pointer faults here */
            sv_sampler s = entry(plugin, i);
            put_text(f, s.name);
            put_text(f, s.description);
            fprintf(f, "%u %u %u %u %u %d\n", (unsigned)s.memspace, s.inputs, s.layouts, s.rule,
                    s.lacks, s.init && s.verify && s.destroy);
        }
    }
    _exit(fclose(f) == 0 ? 0 : 3); /* no atexit handlers: the harness's are not the probe's */
}

/* A line of n whole numbers, each at most max: 0, or -1 when it is not that. */
static int get_numbers(FILE *f, unsigned long long *v, int n, unsigned long long max)
{
    char line[128], *at = line, *end;
    if (!fgets(line, sizeof line, f) || !strchr(line, '\n'))
        return -1;
    for (int i = 0; i < n; i++) {
        if (*at < '0' || *at > '9')
            return -1;
        errno = 0;
        v[i] = strtoull(at, &end, 10);
        if (errno || v[i] > max || (*end != ' ' && *end != '\n'))
            return -1;
        at = end + (*end == ' ');
    }
    return *at == '\n' ? 0 : -1;
}

static char *get_text(FILE *f)
{
    unsigned long long v[2]; /* present, length */
    if (get_numbers(f, v, 2, 65536) != 0)
        return NULL;
    if (!v[0]) /* NULL in the plugin */
        return strdup("(no description)");
    char *s = malloc(v[1] + 1);
    if (s && fread(s, 1, v[1], f) == v[1]) {
        s[v[1]] = '\0';
        return s;
    }
    free(s);
    return NULL;
}

/* All the probe writes, until it closes the pipe or the time to load is up
 * (then it is stopped): a malloc'ed buffer, NULL on no memory. */
static char *read_answer(int fd, pid_t pid, size_t *len, int *killed)
{
    *killed = 0;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (!buf)
        return NULL;
    const time_t until = time(NULL) + LOAD_SECONDS;
    for (;;) {
        struct pollfd p = {fd, POLLIN, 0};
        int ready = poll(&p, 1, 1000);
        if (ready == 0 && time(NULL) >= until) {
            kill(pid, SIGKILL);
            *killed = 1;
            break;
        }
        if (ready <= 0)
            continue;
        if (n == cap) {
            char *grown = realloc(buf, cap *= 2);
            if (!grown) {
                free(buf);
                return NULL;
            }
            buf = grown;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r > 0)
            n += (size_t)r;
        else if (r == 0 || errno != EINTR)
            break;
    }
    *len = n;
    return buf;
}

/* Waits for the probe: 0 ended with status 0; else err says how it ended. */
static int probe_end(const char *path, pid_t pid, int killed, char *err, size_t errlen)
{
    int status = 0;
    double until = (double)time(NULL) + LOAD_SECONDS;
    pid_t r;
    while ((r = waitpid(pid, &status, WNOHANG)) == 0 && (double)time(NULL) < until) {
        struct timespec pause = {0, 5000000};
        nanosleep(&pause, NULL);
    }
    if (r == 0 || killed) {
        if (r == 0) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
        }
        snprintf(err, errlen, "plugin %s: did not finish loading within %d s", path,
                 LOAD_SECONDS);
        return -1;
    }
    if (WIFSIGNALED(status)) {
        const char *sig = WTERMSIG(status) == SIGSEGV ? "SIGSEGV" : WTERMSIG(status) == SIGBUS
                          ? "SIGBUS" : WTERMSIG(status) == SIGABRT ? "SIGABRT"
                          : WTERMSIG(status) == SIGFPE ? "SIGFPE" : WTERMSIG(status) == SIGILL
                          ? "SIGILL" : strsignal(WTERMSIG(status));
        snprintf(err, errlen, "plugin %s crashed while loading (%s): in a constructor, in %s, "
                 "or reading the samplers it returned (a bad pointer)", path, sig,
                 SV_PLUGIN_SYMBOL);
        return -1;
    }
    if (WEXITSTATUS(status) != 0) {
        snprintf(err, errlen, "plugin %s ended the process while loading (exit status %d): a "
                 "plugin's constructors and %s must return", path, WEXITSTATUS(status),
                 SV_PLUGIN_SYMBOL);
        return -1;
    }
    return 0;
}

static void proxy_free(proxy *p)
{
    if (!p)
        return;
    free((char *)p->s.name);
    free((char *)p->s.description);
    free(p->path);
    free(p);
}

/* Reads the probe's answer into proxies (*out, *n); -1 with err. */
static int read_probe(const char *path, FILE *f, proxy ***out, uint32_t *n, char *err,
                      size_t errlen)
{
    char word[8];
    unsigned long long head[2]; /* contract version, samplers */
    *out = NULL;
    *n = 0;
    if (!fgets(word, sizeof word, f))
        return 1; /* nothing: how the probe ended says why */
    if (strcmp(word, "error\n") == 0) {
        char *msg = get_text(f);
        snprintf(err, errlen, "%s", msg ? msg : "plugin: cannot load it");
        free(msg);
        return -1;
    }
    if (strcmp(word, "ok\n") != 0 || get_numbers(f, head, 2, UINT32_MAX) != 0 || head[1] == 0 ||
        head[1] > 256)
        return 1;
    *n = (uint32_t)head[1];
    proxy **list = calloc(*n, sizeof *list);
    for (uint32_t i = 0; list && i < *n; i++) {
        proxy *p = calloc(1, sizeof *p);
        unsigned long long fields[6]; /* memory space, inputs, layouts, rule, lacks, has its
                                       * functions */
        char *name = get_text(f), *description = get_text(f);
        if (!p || !name || !description || get_numbers(f, fields, 6, UINT32_MAX) != 0) {
            free(name);
            free(description);
            free(p);
            for (uint32_t j = 0; j < i; j++)
                proxy_free(list[j]);
            free(list);
            return 1;
        }
        p->s = (sv_sampler){name, description, (sv_memspace)fields[0], NULL, NULL, NULL,
                            (uint32_t)fields[1], (uint32_t)fields[2], (uint32_t)fields[3],
                            (uint32_t)fields[4]};
        p->index = i;
        p->version = (uint32_t)head[0];
        list[i] = p;
        if (sv_plugin_check_sampler(path, i, &p->s, fields[5] != 0, p->version, err, errlen) !=
            0) {
            for (uint32_t j = 0; j <= i; j++)
                proxy_free(list[j]);
            free(list);
            return -1;
        }
    }
    if (!list) {
        snprintf(err, errlen, "plugin %s: out of memory", path);
        return -1;
    }
    *out = list;
    return 0;
}

int sv_plugin_load(const char *path, char *err, size_t errlen)
{
    char why[4200];
    int state = sv_input_check(path, why, sizeof why); /* a FIFO would hang its probe */
    if (state == SV_INPUT_NOT_FILE) {
        snprintf(err, errlen, "plugin %s", why);
        return -1;
    }
    if (state != 0) {
        snprintf(err, errlen, "plugin %s: %s", path,
                 errno == ENOENT ? "no such file" : strerror(errno));
        return -1;
    }
    /* dlopen needs a slash to take a path rather than search the library path */
    char local[4096];
    if (!strchr(path, '/') && snprintf(local, sizeof local, "./%s", path) < (int)sizeof local)
        path = local;
    int pipefd[2];
    if (pipe(pipefd) != 0) {
        snprintf(err, errlen, "plugin %s: cannot make a pipe for its probe: %s", path,
                 strerror(errno));
        return -1;
    }
    if (confine_before)
        confine_before();
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(pipefd[0]);
        probe(path, pipefd[1]);
    }
    close(pipefd[1]);
    if (pid < 0) {
        close(pipefd[0]);
        snprintf(err, errlen, "plugin %s: cannot start its probe: %s", path, strerror(errno));
        return -1;
    }
    size_t len = 0;
    int killed;
    char *answer = read_answer(pipefd[0], pid, &len, &killed);
    close(pipefd[0]);
    FILE *f = answer ? fmemopen(answer, len ? len : 1, "r") : NULL;
    proxy **list = NULL;
    uint32_t n = 0;
    int rc = f && len ? read_probe(path, f, &list, &n, err, errlen) : 1;
    if (f)
        fclose(f);
    free(answer);
    if (probe_end(path, pid, killed, err, errlen) != 0) { /* how it ended comes first */
        for (uint32_t i = 0; i < n && list; i++)
            proxy_free(list[i]);
        free(list);
        return -1;
    }
    if (rc != 0) {
        if (rc > 0 && len == 0) /* it ended with status 0 before it could answer */
            snprintf(err, errlen, "plugin %s ended the process while loading (exit status 0): "
                     "a plugin's constructors and %s must return", path, SV_PLUGIN_SYMBOL);
        else if (rc > 0)
            snprintf(err, errlen, "plugin %s: its probe's answer is garbled", path);
        return -1;
    }
    proxy **grown = realloc(proxies, (n_proxies + n) * sizeof *grown);
    if (!grown) {
        for (uint32_t i = 0; i < n; i++)
            proxy_free(list[i]);
        free(list);
        snprintf(err, errlen, "plugin %s: out of memory", path);
        return -1;
    }
    proxies = grown;
    for (uint32_t i = 0; i < n; i++) {
        list[i]->path = strdup(path);
        proxies[n_proxies++] = list[i];
    }
    free(list);
    for (size_t i = n_proxies - n; i < n_proxies; i++) {
        if (!proxies[i]->path) {
            snprintf(err, errlen, "plugin %s: out of memory", path);
            return -1;
        }
        if (sv_registry_add(&proxies[i]->s, path, err, errlen) != 0)
            return -1;
    }
    return 0;
}

const sv_sampler *sv_sampler_resolve(const sv_sampler *s, char *err, size_t errlen)
{
    proxy *p = NULL;
    for (size_t i = 0; i < n_proxies && !p; i++)
        if (&proxies[i]->s == s)
            p = proxies[i];
    if (!p)
        return s; /* built in */
    if (p->resolved)
        return &p->real;
    void *handle;
    const sv_plugin *plugin = open_plugin(p->path, &handle, err, errlen);
    if (!plugin)
        return NULL;
    void **grown = realloc(handles, (n_handles + 1) * sizeof *grown);
    if (!grown) {
        dlclose(handle);
        snprintf(err, errlen, "plugin %s: out of memory", p->path);
        return NULL;
    }
    handles = grown;
    handles[n_handles++] = handle;
    if (plugin->contract_version != p->version || p->index >= plugin->n_samplers) {
        snprintf(err, errlen, "plugin %s: its table changed since it was first loaded",
                 p->path);
        return NULL;
    }
    p->real = entry(plugin, p->index);
    if (!p->real.name || strcmp(p->real.name, p->s.name) != 0) {
        snprintf(err, errlen, "plugin %s: sampler %u is no longer named '%s'", p->path,
                 p->index, p->s.name);
        return NULL;
    }
    p->real.description = p->s.description; /* what the harness shows: checked, never NULL */
    p->real.rule = p->s.rule;               /* and the rule the probe checked */
    p->real.lacks = p->s.lacks;             /* and what it lacks */
    p->resolved = 1;
    return &p->real;
}

void sv_plugin_unload_all(void)
{
    sv_registry_clear_added();
    for (size_t i = 0; i < n_handles; i++)
        dlclose(handles[i]);
    free(handles);
    handles = NULL;
    n_handles = 0;
    for (size_t i = 0; i < n_proxies; i++)
        proxy_free(proxies[i]);
    free(proxies);
    proxies = NULL;
    n_proxies = 0;
}
