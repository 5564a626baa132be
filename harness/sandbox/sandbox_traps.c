/* sandbox_traps.c: system calls trapped by a seccomp rule, read back from
 * the SIGSYS they raise; and in-process calls (--in-process) cannot end the run
 * with a status of the sampler's choosing. The threads that call the
 * sampler carry a system-call rule (libseccomp, that thread and the threads
 * it starts only: the harness's other threads and the programs it runs are
 * untouched): exit_group, the system call under _exit, os._exit and
 * syscall(SYS_exit_group), traps with SIGSYS unless its status carries this
 * run's random mark, which only sv_sandbox_exit adds. The guard
 * (harness/run/host_guard.c) then tells whose exit it was. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include "sandbox_internal.h"

/* bits 8..30 of exit_group's argument (the kernel keeps bits 0..7) */
static uint32_t mark;
static pthread_once_t mark_once = PTHREAD_ONCE_INIT;

static void make_mark(void)
{
    uint32_t r = 0;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
        r = (uint32_t)time(NULL) ^ (uint32_t)getpid() << 12;
    mark = ((r & 0x3fffffu) | 0x400000u) << 8; /* never 0: an ordinary status has none */
}

int sv_sandbox_trap_exits(void)
{
    pthread_once(&mark_once, make_mark);
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx)
        return -1;
    /* trapped unless mark <= status <= mark | 0xff (all 64 bits compared:
     * a sign-extended -1 is past it) */
    int rc = seccomp_rule_add(ctx, SCMP_ACT_TRAP, SCMP_SYS(exit_group), 1,
                              sv_seccomp_arg0(SCMP_CMP_LT, mark, 0));
    if (rc == 0)
        rc = seccomp_rule_add(ctx, SCMP_ACT_TRAP, SCMP_SYS(exit_group), 1,
                              sv_seccomp_arg0(SCMP_CMP_GT, mark | 0xffu, 0));
    if (rc == 0)
        rc = seccomp_load(ctx); /* this thread alone: no TSYNC */
    seccomp_release(ctx);
    return rc == 0 ? 0 : -1;
}

int sv_sandbox_trapped_call(const void *siginfo, const void *context, int *nr, long args[3])
{
    const siginfo_t *info = siginfo;
    if (info->si_signo != SIGSYS || info->si_code != 1 /* SYS_SECCOMP */)
        return 0;
    *nr = info->si_syscall;
    args[0] = args[1] = args[2] = -1;
#if defined(__x86_64__)
    const ucontext_t *uc = context;
    args[0] = (long)uc->uc_mcontext.gregs[REG_RDI];
    args[1] = (long)uc->uc_mcontext.gregs[REG_RSI];
    args[2] = (long)uc->uc_mcontext.gregs[REG_RDX];
#elif defined(__aarch64__)
    const ucontext_t *uc = context;
    for (int i = 0; i < 3; i++)
        args[i] = (long)uc->uc_mcontext.regs[i];
#else
    (void)context;
#endif
    return 1;
}

int sv_sandbox_is_trapped_exit(const void *siginfo, const void *context, int *status)
{
    int nr;
    long args[3];
    if (!sv_sandbox_trapped_call(siginfo, context, &nr, args) || nr != SYS_exit_group)
        return 0;
    *status = (int)(args[0] & 0xff);
    return 1;
}

void sv_sandbox_exit(int status)
{
    pthread_once(&mark_once, make_mark);
    for (;;)
        syscall(SYS_exit_group, (long)(mark | ((uint32_t)status & 0xffu)));
}
