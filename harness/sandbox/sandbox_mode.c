/* sandbox_mode.c: which layers the sampler's process gets, and why not the
 * others. A probe, once a process: a child tries each layer on itself with
 * the very functions the sampler's process calls, and tells the harness
 * which held, so that the report's header says what is in force. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sandbox_internal.h"
#include "sv_base.h"

static const char *const layer_names[] = {"nodump", "nopriv", "seccomp", "pidns", "landlock",
                                          "watch"};
#define N_LAYERS 6

static struct {
    int done;
    sv_sandbox_mode mode;
    unsigned layers;
    char why[N_LAYERS][SV_WHY_LEN];
    char summary[1400];
    int fitted; /* sandbox_fit.c has looked (once a process) */
} state;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

int sv_sandbox_mode_parse(const char *s)
{
    if (!strcmp(s, "auto"))
        return SV_SANDBOX_AUTO;
    if (!strcmp(s, "strict"))
        return SV_SANDBOX_STRICT;
    if (!strcmp(s, "off"))
        return SV_SANDBOX_OFF;
    return -1;
}

unsigned sv_sandbox_denied(void)
{
    const char *deny = getenv("SPECVERIFY_SANDBOX_DENY");
    unsigned bits = 0;
    for (int i = 0; deny && i < N_LAYERS; i++) {
        const char *at = strstr(deny, layer_names[i]);
        if (at) /* no layer's name is inside another's */
            bits |= 1u << i;
    }
    return bits;
}

/* The probe's child: each layer in the order the sampler's process takes
 * them; its result on fd. */
typedef struct probe_result {
    unsigned ok;
    char why[N_LAYERS][SV_WHY_LEN];
} probe_result;

__attribute__((noreturn)) static void probe_child(int fd)
{
    probe_result r;
    memset(&r, 0, sizeof r);
    int ns = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
    if (ns < 0)
        snprintf(r.why[3], SV_WHY_LEN, "/proc/self/ns/pid: %s", strerror(errno));
    else if (unshare(CLONE_NEWPID) != 0)
        snprintf(r.why[3], SV_WHY_LEN, "unshare(CLONE_NEWPID): %s (it needs CAP_SYS_ADMIN)",
                 strerror(errno));
    else if (setns(ns, CLONE_NEWPID) != 0)
        snprintf(r.why[3], SV_WHY_LEN, "setns back to its own PID namespace: %s",
                 strerror(errno));
    else
        r.ok |= SV_LAYER_PIDNS;
    if (sv_layer_nopriv(r.why[1], SV_WHY_LEN) == 0)
        r.ok |= SV_LAYER_NOPRIV;
    if (sv_layer_landlock(sv_sandbox_scratch(), r.why[4], SV_WHY_LEN) == 0)
        r.ok |= SV_LAYER_LANDLOCK;
    int notify = -1; /* the watch: a listener for the init, which needs the namespace */
    if (!(r.ok & SV_LAYER_PIDNS))
        snprintf(r.why[5], SV_WHY_LEN, "it needs the PID namespace's init");
    else if (sv_layer_seccomp(0, &notify, r.why[5], SV_WHY_LEN) == 0)
        r.ok |= SV_LAYER_SECCOMP | SV_LAYER_WATCH;
    if (!(r.ok & SV_LAYER_SECCOMP) &&
        sv_layer_seccomp(r.ok & SV_LAYER_PIDNS ? 0 : getpid(), NULL, r.why[2], SV_WHY_LEN) == 0)
        r.ok |= SV_LAYER_SECCOMP;
    ssize_t n = write(fd, &r, sizeof r);
    _exit(n == (ssize_t)sizeof r ? 0 : 1);
}

static void probe(probe_result *r)
{
    memset(r, 0, sizeof *r);
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) {
        for (int i = 1; i < N_LAYERS; i++)
            snprintf(r->why[i], SV_WHY_LEN, "cannot probe it: pipe: %s", strerror(errno));
        return;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        probe_child(p[1]);
    }
    close(p[1]);
    ssize_t n = 0;
    if (pid > 0) {
        do
            n = read(p[0], r, sizeof *r);
        while (n < 0 && errno == EINTR);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    close(p[0]);
    if (n != (ssize_t)sizeof *r) {
        memset(r, 0, sizeof *r);
        for (int i = 1; i < N_LAYERS; i++)
            snprintf(r->why[i], SV_WHY_LEN, "the probe of the layers failed");
    }
}

/* The header's line from state.layers and state.why. Under the lock. */
static void summarize(void)
{
    size_t n = (size_t)snprintf(state.summary, sizeof state.summary, "sandbox:");
    for (int i = 0; i < N_LAYERS; i++)
        if (state.layers & (1u << i))
            n += (size_t)snprintf(state.summary + n, sizeof state.summary - n, " %s",
                                  layer_names[i]);
    if (state.layers == SV_LAYERS_ALL)
        snprintf(state.summary + n, sizeof state.summary - n, " (every layer)");
    for (int i = 0; i < N_LAYERS && n < sizeof state.summary; i++) {
        if (state.layers & (1u << i))
            continue;
        n += (size_t)snprintf(state.summary + n, sizeof state.summary - n, "; not in force: %s "
                              "(%s%s)", layer_names[i], state.why[i],
                              i == 3   ? "; instead: signals only to its own process, and what "
                                         "it leaves running is swept at its end"
                              : i == 5 ? "; what it tries on the harness is still refused, "
                                         "but named only if it says so itself"
                                       : "");
    }
}

/* Under the lock. */
static void set_up(sv_sandbox_mode mode)
{
    state.mode = mode;
    state.layers = 0;
    state.fitted = 0;
    memset(state.why, 0, sizeof state.why);
    if (mode == SV_SANDBOX_OFF) {
        snprintf(state.summary, sizeof state.summary, "sandbox: off (--sandbox off: the "
                 "sampler's child process alone, no layers)");
        state.done = 1;
        return;
    }
    /* a denied nodump is not taken at all: the harness's children inherit it */
    if (sv_sandbox_denied() & SV_LAYER_NODUMP)
        ; /* named as turned off below */
    else if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0 && prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 0)
        state.layers |= SV_LAYER_NODUMP;
    else
        snprintf(state.why[0], SV_WHY_LEN, "prctl(PR_SET_DUMPABLE): %s", strerror(errno));
    probe_result r;
    sv_sandbox_scratch(); /* made here, not in the probe's child: removed at exit */
    probe(&r);
    state.layers |= r.ok;
    for (int i = 1; i < N_LAYERS; i++)
        memcpy(state.why[i], r.why[i], SV_WHY_LEN);
    const unsigned denied = sv_sandbox_denied();
    for (int i = 0; i < N_LAYERS; i++)
        if (denied & (state.layers | SV_LAYER_NODUMP) & (1u << i)) {
            state.layers &= ~(1u << i);
            snprintf(state.why[i], SV_WHY_LEN, "turned off by SPECVERIFY_SANDBOX_DENY");
        }
    if (!(state.layers & SV_LAYER_PIDNS) || !(state.layers & SV_LAYER_SECCOMP)) {
        if (state.layers & SV_LAYER_WATCH)
            snprintf(state.why[5], SV_WHY_LEN, "it needs the PID namespace's init and seccomp");
        state.layers &= ~(unsigned)SV_LAYER_WATCH;
    }
    if (!(state.layers & SV_LAYER_PIDNS))
        sv_sweep_become_subreaper();
    summarize();
    state.done = 1;
}

int sv_sandbox_setup(sv_sandbox_mode mode)
{
    pthread_mutex_lock(&lock);
    if (!state.done || state.mode != mode)
        set_up(mode);
    const unsigned missing = SV_LAYERS_ALL & ~state.layers;
    pthread_mutex_unlock(&lock);
    if (mode != SV_SANDBOX_STRICT || !missing)
        return SV_OK;
    char text[1200];
    size_t n = 0;
    text[0] = '\0';
    for (int i = 0; i < N_LAYERS && n < sizeof text; i++)
        if (missing & (1u << i))
            n += (size_t)snprintf(text + n, sizeof text - n, "%s%s (%s)", n ? "; " : "",
                                  layer_names[i], state.why[i]);
    return sv_fail(SV_EENV, "--sandbox strict: the sampler's sandbox cannot be set up on this "
                   "machine: %s", text);
}

static void ensure(void)
{
    pthread_mutex_lock(&lock);
    if (!state.done)
        set_up(SV_SANDBOX_AUTO);
    pthread_mutex_unlock(&lock);
}

sv_sandbox_mode sv_sandbox_get_mode(void)
{
    ensure();
    return state.mode;
}

/* The fit (sandbox_fit.c), once, before any caller sees the layers; its
 * trials fork under layers of their own, so they do not come back here. */
static void ensure_fitted(void)
{
    static pthread_mutex_t fit_lock = PTHREAD_MUTEX_INITIALIZER;
    ensure();
    pthread_mutex_lock(&fit_lock);
    if (!state.fitted && sv_sandbox_fit_wanted() && state.mode == SV_SANDBOX_AUTO &&
        state.layers) {
        char why[SV_WHY_LEN];
        const unsigned drop = sv_sandbox_fit_layers(state.layers, why, sizeof why);
        pthread_mutex_lock(&lock);
        for (int i = 0; i < N_LAYERS; i++)
            if (drop & (1u << i))
                snprintf(state.why[i], SV_WHY_LEN, "the GPU does not start under it here: %.120s",
                         why);
        state.layers &= ~drop;
        if (drop & SV_LAYER_PIDNS)
            sv_sweep_become_subreaper();
        if (drop)
            summarize();
        pthread_mutex_unlock(&lock);
    }
    state.fitted = 1;
    pthread_mutex_unlock(&fit_lock);
}

unsigned sv_sandbox_layers(void)
{
    ensure_fitted();
    return state.layers;
}

const char *sv_sandbox_summary(void)
{
    ensure_fitted();
    return state.summary;
}
