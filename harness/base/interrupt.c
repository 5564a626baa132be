/* interrupt.c: SIGINT and SIGTERM during a long run. The first one sets a
 * flag that the runner polls (it stops at the next batch, and the command
 * writes what finished, marked partial); the handler then restores the
 * default action, so a second signal ends the process at once. */
#include <signal.h>
#include <string.h>
#include "sv_base.h"

static volatile sig_atomic_t caught, installed;

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

/* A signal sent to the process may wait for the thread the kernel chose
 * (one blocked elsewhere, on a loaded machine) while a worker takes batch
 * after batch: one still pending counts as caught, so the run stops after
 * the batch it landed in, whichever thread runs the handler. */
int sv_interrupted(void)
{
    if (!caught && installed) {
        sigset_t pending;
        if (sigpending(&pending) == 0)
            caught = sigismember(&pending, SIGINT)    ? SIGINT
                     : sigismember(&pending, SIGTERM) ? SIGTERM
                                                      : 0;
    }
    return caught;
}

const char *sv_signal_name(int signo)
{
    return signo == SIGINT ? "SIGINT" : signo == SIGTERM ? "SIGTERM" : "a signal";
}
