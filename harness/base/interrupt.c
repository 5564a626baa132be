/* interrupt.c: SIGINT and SIGTERM during a long run. The first one sets a
 * flag that the runner polls (it stops at the next batch, and the command
 * writes what finished, marked partial); the handler then restores the
 * default action, so a second signal ends the process at once. */
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include "sv_base.h"

static volatile sig_atomic_t caught, installed;
static int (*override)(void); /* MPI's ranks: when a signal counts (mpi_verify.c) */

static void on_signal(int signo)
{
    caught = signo;
    signal(signo, SIG_DFL);
}

void sv_interrupt_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    installed = 1;
}

/* A signal sent to the process goes to a thread that does not block it:
 * the watcher (sv_interrupt_block_here keeps it from the workers), which on
 * a loaded machine may wait to run while a worker takes batch after batch.
 * The workers block it, so they see it pending until the watcher takes it,
 * and the run stops after the batch it landed in. */
int sv_interrupted(void)
{
    return override ? override() : sv_interrupt_local();
}

void sv_interrupt_override(int (*fn)(void))
{
    override = fn;
}

int sv_interrupt_local(void)
{
    if (!caught && installed) {
        /* never write 0: the handler may have run since the test above */
        sigset_t pending;
        if (sigpending(&pending) != 0)
            return caught;
        if (sigismember(&pending, SIGINT))
            caught = SIGINT;
        else if (sigismember(&pending, SIGTERM))
            caught = SIGTERM;
    }
    return caught;
}

void sv_interrupt_block_here(void)
{
    sigset_t both;
    sigemptyset(&both);
    sigaddset(&both, SIGINT);
    sigaddset(&both, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &both, NULL);
}

void sv_interrupt_raise(int signo)
{
    if (!caught)
        caught = signo;
}

const char *sv_signal_name(int signo)
{
    return signo == SIGINT ? "SIGINT" : signo == SIGTERM ? "SIGTERM" : "a signal";
}
