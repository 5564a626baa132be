/* sandbox_server.c: a process that serves samplers' processes from a
 * sandbox of its own (a Python sampler's fork server, harness/cli/
 * python_server.c), and what each sampler's process needs of it.
 *
 * The server is started once, confined as a sampler's process is, and forks
 * a process for each run of the sampler, which the run's process talks to
 * instead of starting one of its own. So those processes live in the
 * server's sandbox, not the run's: its watch names what they attempt and
 * ends the server's namespace. The run then sees its worker vanish, and
 * asks here for the words (sv_sandbox_server_news), so that the attempt is
 * the run's finding, as it would be in its own sandbox; and after each run
 * the server's init kills and counts what the run's processes left there
 * (sv_sandbox_sweep), so that a process left running is the run's finding
 * too. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include "sandbox_internal.h"
#include "sv_base.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int kept = -1;             /* the descriptor every sampler's process keeps */
static sv_sandboxed *server;      /* the server's sandbox, until its end is read */

void sv_sandbox_keep_fd(int fd)
{
    pthread_mutex_lock(&lock);
    kept = fd;
    pthread_mutex_unlock(&lock);
}

int sv_sandbox_kept_fd(void)
{
    pthread_mutex_lock(&lock);
    const int fd = kept;
    pthread_mutex_unlock(&lock);
    return fd;
}

void sv_sandbox_server(sv_sandboxed *box)
{
    pthread_mutex_lock(&lock);
    server = box;
    pthread_mutex_unlock(&lock);
}

int sv_sandbox_server_news(char *attempt, size_t len, int *left, double wait)
{
    pthread_mutex_lock(&lock);
    sv_sandboxed *box = server && server->pid > 0 ? server : NULL;
    int got = 0, status = 0;
    const double until = sv_now() + wait;
    pid_t r = -1;
    while (box) {
        r = waitpid(box->pid, &status, WNOHANG);
        if (r != 0 || sv_now() >= until)
            break;
        const struct timespec pause = {0, 5000000};
        nanosleep(&pause, NULL);
    }
    if (box && r == 0) {
        /* serving still: what the last run's processes left, from its init */
        const int swept = sv_sandbox_sweep(box, 2.0);
        if (swept > 0 && left)
            *left += swept;
    } else if (box && r == box->pid) {
        sv_sandbox_end(box, status);
        if (box->attempt[0] && len) {
            snprintf(attempt, len, "%s", box->attempt);
            got = 1;
        }
        if (left)
            *left += box->left;
        box->pid = 0;
        server = NULL; /* ended: the next runs start their interpreters afresh */
    }
    pthread_mutex_unlock(&lock);
    return got;
}
