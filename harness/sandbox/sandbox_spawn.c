/* sandbox_spawn.c: the sampler's process, started and ended.
 *
 * With a PID namespace the harness forks an init of its own into a new
 * namespace, and the init forks the sampler's process: the sampler then sees
 * and signals only its own tree, and when the init ends (the sampler's
 * process ended, the harness killed the init, or the harness died) the
 * kernel kills everything left in the namespace. The init is the harness's
 * code alone: it closes every descriptor but the pipe on which it tells the
 * harness how the sampler's process ended, and it cannot be signalled or
 * traced from inside. Without a namespace the sampler's process is forked
 * directly, in a session of its own, and what it leaves is swept
 * (sandbox_sweep.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sandbox_internal.h"
#include "sv_base.h"
#include "sv_send_fds.h"

/* ---- the scratch folder ------------------------------------------------------ */

static char scratch[PATH_MAX];
static pid_t scratch_owner;

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (flag == FTW_DP)
        rmdir(path);
    else
        unlink(path); /* a link the sampler made is removed, never followed */
    return 0;
}

static void remove_scratch(void)
{
    if (scratch[0] && getpid() == scratch_owner)
        nftw(scratch, remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

static void make_scratch(void)
{
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp)
        tmp = "/tmp";
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/specverify-sampler-XXXXXX", tmp) >= (int)sizeof path ||
        !mkdtemp(path))
        return;
    memcpy(scratch, path, sizeof scratch);
    scratch_owner = getpid();
    atexit(remove_scratch);
}

const char *sv_sandbox_scratch(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, make_scratch);
    return scratch[0] ? scratch : NULL;
}

/* ---- starting it --------------------------------------------------------------- */

/* What the sampler's process was forked under, for sv_sandbox_enter there. */
static unsigned child_layers;
static int child_off; /* --sandbox off */
static int child_relay = -1;
static int child_watch = -1; /* where the seccomp listener goes to the init */
static const char *child_scratch;
static pid_t harness_pid;

/* Closes every descriptor from `from` on but those in keep (sorted). */
static void close_all_but(int from, const int *keep, int n)
{
    for (int i = 0; i < n; i++) {
        if (keep[i] < from)
            continue;
        if (keep[i] > from)
            close_range((unsigned)from, (unsigned)keep[i] - 1, 0);
        from = keep[i] + 1;
    }
    close_range((unsigned)from, ~0u, 0);
}

/* What the init tells the harness: the sampler's end, and what it left; or
 * (interim) what a sweep the harness asked for found. */
typedef struct init_report {
    int status;
    int left;          /* processes still running when the sampler's process ended */
    int interim;       /* 1: a sweep's count in left, the sampler's process still running */
    char attempt[256]; /* what the watch refused, in words, or "" */
} init_report;

static volatile sig_atomic_t sweep_asked;

static void on_sweep(int signo)
{
    (void)signo;
    sweep_asked = 1;
}

/* Kills every child of this init but the sampler's process, round after
 * round: what the processes a server forked left when they ended (their
 * orphans come here); how many were running. */
static int sweep_orphans(pid_t sampler)
{
    int killed = 0;
    for (int round = 0; round < 200; round++) {
        pid_t kids[1024];
        const int n = sv_proc_read_pids("/proc/thread-self/children", kids, 1024);
        int found = 0;
        for (int i = 0; i < n; i++) {
            /* /proc is the harness's: its pids, and this namespace's in NSpid */
            char status[64], state;
            pid_t here = -1;
            snprintf(status, sizeof status, "/proc/%d/status", (int)kids[i]);
            if (sv_proc_nspid(status, &here) < 2 || here == sampler)
                continue;
            killed += sv_proc_session(kids[i], &state) > 0 && state != 'Z' && state != 'X';
            kill(here, SIGKILL);
            while (waitpid(here, NULL, 0) < 0 && errno == EINTR)
                ;
            found = 1;
        }
        if (!found)
            break;
    }
    return killed;
}

/* This process's children not yet dead (zombies are not counted). */
static int live_children(void)
{
    pid_t kids[1024];
    const int n = sv_proc_read_pids("/proc/thread-self/children", kids, 1024);
    int live = 0;
    for (int i = 0; i < n; i++) {
        char state;
        live += sv_proc_session(kids[i], &state) > 0 && state != 'Z' && state != 'X';
    }
    return live;
}

/* The seccomp listener the sampler's process sends once confined, or -1. */
static int receive_listener(int sock)
{
    char data;
    struct iovec iov = {&data, 1};
    union {
        struct cmsghdr h;
        char room[CMSG_SPACE(sizeof(int))];
    } control;
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.room,
                         .msg_controllen = sizeof control.room};
    if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) <= 0)
        return -1;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    if (!c || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof(int)))
        return -1;
    int fd;
    memcpy(&fd, CMSG_DATA(c), sizeof fd);
    return fd;
}

static void send_listener(int sock, int fd)
{
    /* the init gone: nothing watches, nothing waits */
    (void)sv_send_fds(sock, 1, &fd, 1);
}

/* The namespace's init: serves the watch (sandbox_watch.c) until the
 * sampler's process ends, then tells its end. */
__attribute__((noreturn)) static void init_main(pid_t sampler, int status_fd, int watch_fd)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* the harness gone: the namespace goes too */
    int keep[2] = {status_fd < watch_fd ? status_fd : watch_fd,
                   status_fd < watch_fd ? watch_fd : status_fd};
    close_all_but(0, keep[0] < 0 ? keep + 1 : keep, keep[0] < 0 ? 1 : 2);
    sv_watch_setup(harness_pid);
    init_report rep;
    memset(&rep, 0, sizeof rep);
    const int pidfd = (int)syscall(SYS_pidfd_open, sampler, 0);
    int listener = -1;
    /* SIGUSR1, from the harness alone (the sampler's signals to this init
     * are refused): sweep now (sv_sandbox_sweep); taken only while waiting */
    sigset_t usr1, waiting;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    sigprocmask(SIG_BLOCK, &usr1, &waiting);
    sigdelset(&waiting, SIGUSR1);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sweep;
    sigaction(SIGUSR1, &sa, NULL);
    for (;;) {
        struct pollfd fds[3] = {{pidfd, POLLIN, 0}, {watch_fd, POLLIN, 0}, {listener, POLLIN, 0}};
        /* without a pidfd (before Linux 5.3), a look at the sampler every 50 ms */
        const struct timespec tick = {0, 50000000};
        if (ppoll(fds, 3, pidfd >= 0 ? NULL : &tick, &waiting) < 0 && errno != EINTR)
            _exit(1);
        if (sweep_asked) {
            sweep_asked = 0;
            init_report swept;
            memset(&swept, 0, sizeof swept);
            swept.interim = 1;
            swept.left = sweep_orphans(sampler);
            if (write(status_fd, &swept, sizeof swept) != (ssize_t)sizeof swept)
                _exit(1);
        }
        if (fds[1].revents) { /* the listener, or the sampler's end of the socket closed */
            listener = receive_listener(watch_fd);
            close(watch_fd);
            watch_fd = -1;
        }
        if (fds[2].revents & POLLIN) {
            if (!rep.attempt[0] && sv_watch_serve(listener, rep.attempt, sizeof rep.attempt) == 1)
                kill(-1, SIGKILL); /* named: the sampler and all it started end here */
            else if (rep.attempt[0]) /* what is still waiting goes on to its end */
                sv_watch_serve(listener, (char[256]){0}, 256);
        } else if (fds[2].revents) {
            close(listener);
            listener = -1;
        }
        if (pidfd >= 0 && !(fds[0].revents & POLLIN))
            continue;
        pid_t r = waitpid(sampler, &rep.status, pidfd >= 0 ? 0 : WNOHANG);
        if (r == sampler) {
            /* its orphans are this init's now; after a named attempt, killed already */
            rep.left = rep.attempt[0] ? 0 : live_children();
            ssize_t w = write(status_fd, &rep, sizeof rep);
            _exit(w == (ssize_t)sizeof rep ? 0 : 1); /* the kernel kills the rest */
        }
        if (r < 0 && errno != EINTR)
            _exit(1);
    }
}

pid_t sv_sandbox_fork(sv_sandboxed *box, const char *label)
{
    return sv_sandbox_fork_layers(box, label, sv_sandbox_layers());
}

pid_t sv_sandbox_fork_layers(sv_sandboxed *box, const char *label, unsigned layers)
{
    memset(box, 0, sizeof *box);
    box->status_fd = box->relay_fd = -1;
    box->label = label;
    box->layers = layers;
    int relay[2], status[2] = {-1, -1};
    if (pipe2(relay, O_CLOEXEC) != 0)
        return -1;
    int ns = -1;
    if (box->layers & SV_LAYER_PIDNS) {
        ns = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
        if (ns < 0 || pipe2(status, O_CLOEXEC) != 0 || unshare(CLONE_NEWPID) != 0) {
            /* the probe said it would work: go on without, and say so */
            box->layers &= ~(unsigned)SV_LAYER_PIDNS;
            if (status[0] >= 0) {
                close(status[0]);
                close(status[1]);
            }
        } else {
            box->pidns = 1;
        }
    }
    int watch[2] = {-1, -1};
    if (!box->pidns || ((box->layers & SV_LAYER_WATCH) &&
                        socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, watch) != 0))
        box->layers &= ~(unsigned)SV_LAYER_WATCH;
    harness_pid = getpid();
    child_layers = box->layers;
    child_off = sv_sandbox_get_mode() == SV_SANDBOX_OFF;
    child_scratch = sv_sandbox_scratch(); /* made here: the child takes no locks */
    fflush(NULL); /* nothing buffered is written twice */
    pid_t pid = fork();
    int e = errno;
    if (box->pidns && pid != 0 && setns(ns, CLONE_NEWPID) != 0) {
        /* the harness's later children would land in the namespace: fatal */
        fprintf(stderr, "specverify: cannot return to its own PID namespace: %s\n",
                strerror(errno));
        _exit(SV_EENV);
    }
    if (pid == 0) {
        close(relay[0]);
        child_relay = relay[1];
        if (!box->pidns)
            return 0;
        pid_t sampler = fork();
        if (sampler == 0) {
            close(status[0]);
            close(status[1]);
            if (watch[0] >= 0)
                close(watch[0]);
            child_watch = watch[1];
            return 0;
        }
        if (watch[1] >= 0)
            close(watch[1]);
        init_main(sampler, status[1], watch[0]);
    }
    for (int i = 0; i < 2; i++)
        if (watch[i] >= 0)
            close(watch[i]);
    if (ns >= 0)
        close(ns);
    close(relay[1]);
    if (box->pidns)
        close(status[1]);
    if (pid < 0) {
        close(relay[0]);
        if (box->pidns)
            close(status[0]);
        errno = e;
        return -1;
    }
    box->pid = pid;
    box->status_fd = box->pidns ? status[0] : -1;
    box->relay_fd = relay[0];
    if (!box->pidns && box->layers)
        sv_sweep_register(pid); /* its session, once it makes one */
    sv_relay_start(box);
    return pid;
}

static int by_value(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

/* The environment and the layers of one process (the sampler's, or a
 * plugin's load probe); without a PID namespace its signals are its own. */
static int confine(unsigned layers, const char *home, char *err, size_t len)
{
    if (home) { /* caches and temporary files (torch's, Triton's) go here; not
                 * Python's bytecode: a prefix would hide the compiled files beside
                 * the sources, and every run would compile numpy again */
        setenv("HOME", home, 1);
        setenv("TMPDIR", home, 1);
        setenv("XDG_CACHE_HOME", home, 1);
        /* nor is bytecode written beside them: Landlock would refuse it, and in
         * a reports' folder the watch would name it */
        setenv("PYTHONDONTWRITEBYTECODE", "1", 1);
    }
    if (layers & SV_LAYER_SECCOMP) /* it traps the ptrace of a leak check */
        sv_sandbox_no_leak_check();
    char why[SV_WHY_LEN] = "";
    const char *failed = NULL;
    if ((layers & SV_LAYER_NOPRIV) && sv_layer_nopriv(why, sizeof why) != 0)
        failed = "nopriv";
    else if ((layers & SV_LAYER_LANDLOCK) && sv_layer_landlock(home, why, sizeof why) != 0)
        failed = "landlock";
    const int watch = (layers & SV_LAYER_WATCH) && child_watch >= 0;
    int listener = -1;
    if (!failed && (layers & SV_LAYER_SECCOMP) &&
        sv_layer_seccomp(layers & SV_LAYER_PIDNS ? 0 : getpid(), watch ? &listener : NULL, why,
                         sizeof why) != 0)
        failed = "seccomp";
    if (watch) { /* the init serves it from here on; the sampler keeps no copy */
        if (listener >= 0)
            send_listener(child_watch, listener);
        close(listener);
        close(child_watch);
        child_watch = -1;
    }
    if (!failed)
        return SV_OK;
    snprintf(err, len, "the sampler's sandbox could not be set up: layer %s: %s", failed, why);
    return SV_EENV;
}

int sv_sandbox_enter(const int *keep_fds, int n, char *err, size_t len)
{
    const unsigned layers = child_layers;
    /* its own session: no signal to a group or a terminal reaches the harness */
    setsid();
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0)
        dup2(null, 0);
    if (child_relay >= 0) { /* what it prints goes through the harness's relay */
        dup2(child_relay, 1);
        dup2(child_relay, 2);
    }
    int *keep = malloc((size_t)(n + 2) * sizeof *keep), kept = 0;
    if (!keep) {
        snprintf(err, len, "the sampler's sandbox could not be set up: out of memory");
        return SV_EENV;
    }
    for (int i = 0; i < n; i++)
        if (keep_fds[i] > 2)
            keep[kept++] = keep_fds[i];
    if (child_watch > 2) /* until the listener is sent */
        keep[kept++] = child_watch;
    if (sv_sandbox_kept_fd() > 2) /* its way to a server of samplers' processes */
        keep[kept++] = sv_sandbox_kept_fd();
    qsort(keep, (size_t)kept, sizeof *keep, by_value);
    close_all_but(3, keep, kept);
    free(keep);
    if (child_off)
        return SV_OK;
    return confine(layers, child_scratch, err, len);
}

void sv_sandbox_before_probe(void)
{
    sv_sandbox_layers(); /* the probe of the layers, and the harness made not dumpable */
    sv_sandbox_scratch();
}

void sv_sandbox_confine_probe(void)
{
    if (sv_sandbox_get_mode() == SV_SANDBOX_OFF)
        return;
    setsid();
    dup2(2, 1); /* what a constructor prints never reaches a report on stdout */
    char err[SV_WHY_LEN + 80];
    if (confine(sv_sandbox_layers() & ~(unsigned)SV_LAYER_PIDNS, sv_sandbox_scratch(), err,
                sizeof err) != SV_OK) {
        fprintf(stderr, "specverify: %s\n", err);
        _exit(SV_EENV);
    }
}

/* ---- ending it ------------------------------------------------------------------ */

int sv_sandbox_sweep(sv_sandboxed *box, double wait)
{
    if (!box->pidns || box->status_fd < 0 || box->pid <= 0 || kill(box->pid, SIGUSR1) != 0)
        return -1;
    struct pollfd p = {box->status_fd, POLLIN, 0};
    int ready;
    do
        ready = poll(&p, 1, (int)(wait * 1000));
    while (ready < 0 && errno == EINTR);
    init_report rep;
    if (ready <= 0 || !(p.revents & POLLIN))
        return -1;
    ssize_t r;
    do
        r = read(box->status_fd, &rep, sizeof rep);
    while (r < 0 && errno == EINTR);
    if (r == (ssize_t)sizeof rep && !rep.interim) { /* its last word: sv_sandbox_end's */
        box->has_end = 1;
        box->end_status = rep.status;
        box->end_left = rep.left;
        rep.attempt[sizeof rep.attempt - 1] = '\0';
        memcpy(box->attempt, rep.attempt, sizeof box->attempt);
    }
    return r == (ssize_t)sizeof rep && rep.interim ? rep.left : -1;
}

int sv_sandbox_end(sv_sandboxed *box, int status)
{
    box->left = 0;
    if (box->has_end) { /* read already, by a sweep */
        status = box->end_status;
        box->left = box->end_left;
        close(box->status_fd);
        box->status_fd = -1;
    } else {
        box->attempt[0] = '\0';
    }
    if (box->status_fd >= 0) { /* the init has ended: what it wrote is there, or nothing */
        init_report rep;
        ssize_t r;
        do /* past the sweeps' reports nobody read */
            r = read(box->status_fd, &rep, sizeof rep);
        while ((r < 0 && errno == EINTR) || (r == (ssize_t)sizeof rep && rep.interim));
        if (r == (ssize_t)sizeof rep) {
            status = rep.status;
            box->left = rep.left;
            rep.attempt[sizeof rep.attempt - 1] = '\0';
            memcpy(box->attempt, rep.attempt, sizeof box->attempt);
        }
        close(box->status_fd);
        box->status_fd = -1;
    }
    if (!box->pidns && box->layers && box->pid > 0)
        box->left = sv_sweep(box->pid);
    sv_relay_stop(box);
    return status;
}
