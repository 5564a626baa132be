/* host_child.c: the child process the sampler runs in.
 *
 * Forked before the run's worker threads start, it maps the inputs
 * read-only (from a memory file sealed against writes: it cannot make them
 * writable again), resolves the sampler (a plugin is loaded here, not in the
 * harness), and serves each slot on a thread of its own: a one-byte message
 * on the slot's socket runs the command in the slot's control, a byte back
 * says it is done. Whatever the sampler does ends at most this process: a
 * fault on any thread is recorded in the shared crash record (signal,
 * address, which slot's thread, whether in a call) and then kills it; an
 * exit, a hang or an abort the parent sees as its end or its silence. The
 * child ignores SIGINT and SIGTERM (the harness decides when to stop) and
 * dies with the harness (PR_SET_PDEATHSIG). It runs in the sandbox
 * (harness/sandbox): what it prints is relayed, it can neither reach the
 * harness's memory nor signal it, and writes only its scratch folder. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include "host_internal.h"

static sv_host *child_host;
static const sv_sampler *child_sampler;
static char resolve_error[SV_NOTE_LEN];
static int sandbox_failed; /* the sandbox could not be set up: every init says so, exit 3 */
static _Thread_local int child_slot = -1;
static _Thread_local volatile sig_atomic_t child_in_call;

static const int fault_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS, SIGTRAP};
#define N_FAULT_SIGNALS (sizeof fault_signals / sizeof fault_signals[0])
#define ALT_STACK_BYTES ((size_t)256 * 1024)

static void on_fault(int signo, siginfo_t *info, void *context)
{
    crash_record *r = child_host->crash;
    int expected = 0;
    if (atomic_compare_exchange_strong(&r->taken, &expected, 1)) {
        r->signo = signo;
        r->code = info->si_code;
        r->addr = (uintptr_t)info->si_addr;
        r->write_fault = signo == SIGSEGV ? sv_fault_is_write(context) : -1;
        r->slot = child_slot;
        r->in_call = child_in_call;
        if (!sv_sandbox_trapped_call(info, context, &r->syscall, r->args))
            r->syscall = -1;
    }
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(signo, &dfl, NULL);
    if (info->si_code <= 0 || signo == SIGSYS) /* sent (abort, raise, kill), or a system
                                                 * call trapped: nothing faults again */
        raise(signo);
    /* a fault: the instruction faults again and the default action ends the child */
}

/* A signal stack of this thread's own, so that a stack overflow in the
 * sampler is recorded too; the one it replaces (a sanitizer's) is kept in
 * *old for alt_stack_off, which the sanitizer expects back at thread exit. */
static void *alt_stack_on(stack_t *old)
{
    stack_t alt = {.ss_sp = malloc(ALT_STACK_BYTES), .ss_size = ALT_STACK_BYTES, .ss_flags = 0};
    if (alt.ss_sp && sigaltstack(&alt, old) != 0) {
        free(alt.ss_sp);
        return NULL;
    }
    return alt.ss_sp;
}

static void alt_stack_off(void *mine, const stack_t *old)
{
    if (!mine)
        return;
    sigaltstack(old, NULL);
    free(mine);
}

static void serve(int32_t i)
{
    slot *s = &child_host->slots[i];
    void *state = NULL;
    int live = 0;
    char byte;
    child_slot = i;
    stack_t old;
    void *alt = alt_stack_on(&old);
    while (recv(s->fd, &byte, 1, 0) == 1) {
        slot_control *ctl = s->ctl;
        child_in_call = 1;
        switch (ctl->command) {
        case CMD_INIT:
            if (sandbox_failed) {
                snprintf(ctl->err, sizeof ctl->err, "%s", resolve_error);
                ctl->env_error = 1;
                ctl->rc = SV_SAMPLER_EINTERNAL;
            } else if (!child_sampler) {
                snprintf(ctl->err, sizeof ctl->err, "%s", resolve_error);
                ctl->rc = SV_SAMPLER_EINTERNAL;
            } else {
                ctl->rc = sv_call_init(child_sampler, &state, ctl, ctl->err,
                                       sizeof ctl->err, &ctl->env_error);
            }
            live = ctl->rc == SV_SAMPLER_OK;
            break;
        case CMD_VERIFY: ctl->rc = sv_call_verify(child_sampler, state, &ctl->batch); break;
        default:
            if (live)
                sv_call_destroy(child_sampler, state);
            live = 0;
            ctl->rc = SV_SAMPLER_OK;
            break;
        }
        child_in_call = 0;
        if (send(s->fd, &byte, 1, MSG_NOSIGNAL) != 1)
            break;
    }
    alt_stack_off(alt, &old);
}

static void *serve_thread(void *arg)
{
    serve(*(const int32_t *)arg);
    return NULL;
}

static void set_signals(void)
{
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < N_FAULT_SIGNALS; i++)
        sigaction(fault_signals[i], &sa, NULL);
}

__attribute__((noreturn)) static void child_main(sv_host *h)
{
    child_host = h;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    /* the harness died before the line above (in a PID namespace the parent
     * is the namespace's init, and the harness's end ends the namespace) */
    if (!h->box.pidns && getppid() != h->parent)
        _exit(0);
    set_signals();
    /* the inputs again, read-only: the seal refuses a writable mapping or
     * mprotect to one; the harness's writes still show through */
    if (sv_host_map_readonly(h) != 0)
        mprotect(h->in_base, h->in_bytes, PROT_READ);
    close(h->memfd);
    /* confined before any of the sampler's code runs; it keeps its sockets */
    int *keep = malloc((size_t)h->cfg.slots * sizeof *keep);
    for (int32_t i = 0; keep && i < h->cfg.slots; i++)
        keep[i] = h->slots[i].fd;
    if (!keep || sv_sandbox_enter(keep, h->cfg.slots, resolve_error, sizeof resolve_error) != SV_OK)
        sandbox_failed = 1;
    free(keep);
    /* loading a plugin runs its code: count it as slot 0's init */
    child_slot = 0;
    child_in_call = 1;
    if (!sandbox_failed)
        child_sampler = sv_sampler_resolve(h->cfg.sampler, resolve_error, sizeof resolve_error);
    child_in_call = 0;

    pthread_t *threads = calloc((size_t)h->cfg.slots, sizeof *threads);
    int32_t *slots = calloc((size_t)h->cfg.slots, sizeof *slots);
    int32_t started = 1;
    for (int32_t i = 1; threads && slots && i < h->cfg.slots; i++, started++) {
        slots[i] = i;
        if (pthread_create(&threads[i], NULL, serve_thread, &slots[i]) != 0)
            break; /* that slot's parent sees the socket close: an end it will tell */
    }
    serve(0);
    for (int32_t i = 1; i < started; i++)
        pthread_join(threads[i], NULL);
    atomic_store(&h->crash->done, 1);
    _exit(0);
}

int sv_host_fork(sv_host *h, char *err, size_t len)
{
    const int32_t n = h->cfg.slots;
    int *theirs = malloc((size_t)n * sizeof *theirs);
    if (!theirs) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    int32_t made = 0;
    for (; made < n; made++) {
        int pair[2];
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0)
            break;
        h->slots[made].fd = pair[0];
        theirs[made] = pair[1];
    }
    if (made < n) {
        snprintf(err, len, "cannot make a socket pair for the sampler's process: %s",
                 strerror(errno));
        for (int32_t i = 0; i < made; i++)
            close(theirs[i]);
        free(theirs);
        return -1;
    }
    h->parent = getpid();
    pid_t pid = sv_sandbox_fork(&h->box, h->cfg.sampler->name);
    if (pid == 0) {
        for (int32_t i = 0; i < n; i++) {
            close(h->slots[i].fd);
            h->slots[i].fd = theirs[i];
        }
        child_main(h);
    }
    int e = errno;
    for (int32_t i = 0; i < n; i++)
        close(theirs[i]);
    free(theirs);
    close(h->memfd); /* the child holds its own; the mapping stays */
    h->memfd = -1;
    if (pid < 0) {
        snprintf(err, len, "cannot start a process for the sampler: %s", strerror(e));
        return -1;
    }
    h->child = pid;
    return 0;
}
