/* host_guard.c: sampler calls in this process (--in-process), under a guard.
 *
 * A SIGSEGV, SIGBUS, SIGFPE or SIGILL inside a call is taken on the thread
 * that made it: the handler keeps the signal and the faulting address and
 * jumps back to the call, which then counts as crashed (sampler_host.c says
 * what it touched and notes the finding); the crashed state is abandoned,
 * not destroyed. SIGABRT (abort, a failed assert, or the C library finding a
 * corrupt heap, its locks perhaps held) is told at once and the process
 * exits with 1: writing reports on such a heap could hang. An exit() inside
 * a call is told and turned into exit status 1, and so is an _exit (its
 * exit_group is trapped on the calling threads). A crash outside a sampler
 * call is the harness's own: it gets the action it had before (the default,
 * or a sanitizer's). Isolation (host_child.c) has none of these limits. */
#define _GNU_SOURCE /* REG_ERR */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>
#include "host_internal.h"

struct guard {
    sigjmp_buf jump;
    volatile sig_atomic_t active, signo, write_fault;
    volatile uintptr_t addr;
    const char *sampler, *call, *case_name;
    uint64_t first, last;
};

static _Thread_local guard *current_guard;
static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
#define N_CRASH_SIGNALS (sizeof crash_signals / sizeof crash_signals[0])
/* the actions the guard replaced, for crashes that are not a sampler's */
static struct sigaction replaced[N_CRASH_SIGNALS];
/* calls running now, and whose: an exit() among them is the sampler's */
static atomic_int calls_running;
static const char *volatile running_sampler;

/* async-signal-safe appends for the handlers */
static void put(char *buf, size_t *n, size_t cap, const char *s)
{
    for (; s && *s && *n + 1 < cap; s++)
        buf[(*n)++] = *s;
}

static void put_u64(char *buf, size_t *n, size_t cap, uint64_t v)
{
    char digits[24];
    int d = 0;
    do {
        digits[d++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (d && *n + 1 < cap)
        buf[(*n)++] = digits[--d];
}

/* Writes msg[0..n) and the words every in-process ending shares, then ends
 * the process with 1 (a verification failed). */
__attribute__((noreturn)) static void end_process(char *msg, size_t n, size_t cap)
{
    put(msg, &n, cap, "; exiting with status 1, without reports (without --in-process the "
                      "run would go on and report it)\n");
    ssize_t w = write(STDERR_FILENO, msg, n);
    (void)w;
    sv_sandbox_exit(SV_EVERIFY);
}

/* SIGSYS from the exit trap (sv_sandbox_trap_exits): an exit_group on a
 * thread that calls the sampler, or one it started. While a call runs it is
 * the sampler's (its _exit, os._exit): told, and the run ends with 1;
 * otherwise the harness's own exit, let through. */
static void on_trapped_exit(int signo, siginfo_t *info, void *context)
{
    (void)signo;
    int status;
    if (!sv_sandbox_is_trapped_exit(info, context, &status))
        return; /* no other call is trapped here */
    if (atomic_load(&calls_running) == 0)
        sv_sandbox_exit(status);
    char msg[512];
    size_t n = 0;
    put(msg, &n, sizeof msg, "specverify: sampler ");
    put(msg, &n, sizeof msg, running_sampler);
    put(msg, &n, sizeof msg, " ended the process inside a call (_exit or exit_group, status ");
    put_u64(msg, &n, sizeof msg, (uint64_t)(status & 0xff));
    put(msg, &n, sizeof msg, "): a sampler must return, not exit");
    end_process(msg, n, sizeof msg);
}

int sv_fault_is_write(void *context)
{
#if defined(__x86_64__)
    const ucontext_t *uc = context;
    return (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0; /* the page fault's W bit */
#else
    (void)context;
    return -1;
#endif
}

static void on_crash(int signo, siginfo_t *info, void *context)
{
    guard *g = current_guard;
    if ((!g || !g->active) && atomic_load(&calls_running) > 0 && signo != SIGABRT &&
        info->si_code > 0) {
        /* a fault on a thread that is in no call while a call runs: most
         * likely a thread the sampler made; it cannot be jumped out of */
        char msg[512];
        size_t n = 0;
        put(msg, &n, sizeof msg, "specverify: ");
        put(msg, &n, sizeof msg, sv_crash_signal_name(signo));
        put(msg, &n, sizeof msg, " on a thread outside the calls while sampler ");
        put(msg, &n, sizeof msg, running_sampler);
        put(msg, &n, sizeof msg, " was running (a thread of the sampler's, most likely)");
        end_process(msg, n, sizeof msg);
    }
    if (!g || !g->active) { /* not in a sampler: the harness's own crash */
        for (size_t i = 0; i < N_CRASH_SIGNALS; i++)
            if (crash_signals[i] == signo)
                sigaction(signo, &replaced[i], NULL);
        if (info->si_code <= 0) /* sent (abort, kill): send it again */
            raise(signo);
        return; /* a fault: the instruction faults again, under the action restored */
    }
    g->active = 0;
    if (signo == SIGABRT) {
        char msg[768];
        size_t n = 0;
        put(msg, &n, sizeof msg, "specverify: sampler ");
        put(msg, &n, sizeof msg, g->sampler);
        put(msg, &n, sizeof msg, " crashed with ");
        put(msg, &n, sizeof msg, sv_crash_signal_name(signo));
        put(msg, &n, sizeof msg, " in ");
        put(msg, &n, sizeof msg, g->call);
        put(msg, &n, sizeof msg, ", case ");
        put(msg, &n, sizeof msg, g->case_name ? g->case_name : "?");
        if (g->last >= g->first) {
            put(msg, &n, sizeof msg, ", sequences ");
            put_u64(msg, &n, sizeof msg, g->first);
            put(msg, &n, sizeof msg, "..");
            put_u64(msg, &n, sizeof msg, g->last);
        }
        put(msg, &n, sizeof msg, "; after an abort the heap may be corrupt");
        end_process(msg, n, sizeof msg);
    }
    g->signo = signo;
    g->addr = (uintptr_t)info->si_addr;
    g->write_fault = signo == SIGSEGV ? sv_fault_is_write(context) : -1;
    siglongjmp(g->jump, 1);
}

/* exit() while a sampler call runs is the sampler's: say so and fail. */
static void on_exit_in_call(void)
{
    if (atomic_load(&calls_running) == 0)
        return;
    char msg[512];
    size_t n = 0;
    put(msg, &n, sizeof msg, "specverify: sampler ");
    put(msg, &n, sizeof msg, running_sampler);
    put(msg, &n, sizeof msg, " called exit() inside a call: a sampler must return, not exit");
    end_process(msg, n, sizeof msg);
}

static void register_exit_check(void)
{
    atexit(on_exit_in_call);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_trapped_exit;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSYS, &sa, NULL);
}

int sv_guard_open(sv_host *h)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, register_exit_check);
    for (int32_t i = 0; i < h->cfg.slots; i++) {
        guard *g = calloc(1, sizeof *g);
        if (!g)
            return sv_fail(SV_EENV, "out of memory for a crash guard");
        g->sampler = h->sampler->name;
        g->case_name = h->cfg.c->name;
        h->slots[i].guard = g;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_crash;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK; /* a stack overflow is caught too */
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < N_CRASH_SIGNALS; i++)
        sigaction(crash_signals[i], &sa, &replaced[i]);
    return SV_OK;
}

void sv_guard_close(sv_host *h)
{
    if (!h->slots || !h->slots[0].guard)
        return;
    for (size_t i = 0; i < N_CRASH_SIGNALS; i++)
        sigaction(crash_signals[i], &replaced[i], NULL);
    for (int32_t i = 0; i < h->cfg.slots; i++) {
        free(h->slots[i].guard);
        h->slots[i].guard = NULL;
    }
}

void sv_guard_call(sv_host *h, int32_t i, guarded_call *call)
{
    slot *s = &h->slots[i];
    slot_control *ctl = s->ctl;
    guard *g = s->guard;
    g->call = sv_command_name(call->command);
    g->first = ctl->first;
    g->last = ctl->last;
    g->signo = 0;
    current_guard = g;
    running_sampler = h->sampler->name;
    static _Thread_local int exits_trapped;
    if (!exits_trapped) /* this thread and those the sampler starts from it */
        exits_trapped = sv_sandbox_trap_exits() == 0 ? 1 : -1;
    atomic_fetch_add(&calls_running, 1);
    if (sigsetjmp(g->jump, 1) != 0) { /* the handler cleared active */
        atomic_fetch_sub(&calls_running, 1);
        current_guard = NULL;
        call->signo = g->signo;
        call->addr = g->addr;
        call->write_fault = g->write_fault;
        return;
    }
    g->active = 1;
    switch (call->command) {
    case CMD_INIT:
        call->rc = sv_call_init(h->sampler, &s->state, ctl, ctl->err, sizeof ctl->err,
                                &ctl->env_error);
        break;
    case CMD_VERIFY: call->rc = sv_call_verify(h->sampler, s->state, &ctl->batch); break;
    default: sv_call_destroy(h->sampler, s->state); call->rc = SV_SAMPLER_OK; break;
    }
    g->active = 0;
    atomic_fetch_sub(&calls_running, 1);
    current_guard = NULL;
    call->signo = 0;
}
