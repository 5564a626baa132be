/* sandbox_sweep.c: without a PID namespace, what a sampler's process
 * leaves running is found and killed when it ends. The harness is a child
 * subreaper, so a daemon the sampler double-forked (setsid, its parent
 * gone) becomes the harness's child instead of init's; the sampler's
 * process leads a session of its own. The sweep kills its process group,
 * then every child of the harness outside the harness's own session and
 * outside the sessions of sampler processes still running, round after
 * round until none is left (each round's dead leave their children to the
 * harness). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "sandbox_internal.h"

#define MAX_LIVE 256
#define MAX_ROUNDS 200

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t live[MAX_LIVE];
static int n_live;

void sv_sweep_become_subreaper(void)
{
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

void sv_sweep_register(pid_t sid)
{
    pthread_mutex_lock(&lock);
    if (n_live < MAX_LIVE)
        live[n_live++] = sid;
    pthread_mutex_unlock(&lock);
}

static void unregister(pid_t sid)
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < n_live; i++)
        if (live[i] == sid) {
            live[i] = live[--n_live];
            break;
        }
    pthread_mutex_unlock(&lock);
}

static int is_live(pid_t sid)
{
    pthread_mutex_lock(&lock);
    int found = 0;
    for (int i = 0; i < n_live && !found; i++)
        found = live[i] == sid;
    pthread_mutex_unlock(&lock);
    return found;
}

/* Processes of session sid not yet dead, anywhere. */
static int count_session(pid_t sid)
{
    DIR *proc = opendir("/proc");
    if (!proc)
        return 0;
    int n = 0;
    struct dirent *d;
    while ((d = readdir(proc))) {
        char state, *end;
        const long pid = strtol(d->d_name, &end, 10);
        if (pid > 0 && !*end && sv_proc_session((pid_t)pid, &state) == sid && state != 'Z' &&
            state != 'X')
            n++;
    }
    closedir(proc);
    return n;
}

/* Kills this process's children outside its own session and the live
 * samplers' sessions; how many. */
static int kill_strays(pid_t mine, pid_t sid)
{
    int killed = 0;
    DIR *tasks = opendir("/proc/self/task");
    if (!tasks)
        return 0;
    struct dirent *t;
    while ((t = readdir(tasks))) {
        if (t->d_name[0] == '.')
            continue;
        char path[300];
        snprintf(path, sizeof path, "/proc/self/task/%.255s/children", t->d_name);
        pid_t kids[1024];
        const int n = sv_proc_read_pids(path, kids, 1024);
        for (int i = 0; i < n; i++) {
            char state;
            pid_t s = sv_proc_session(kids[i], &state);
            if (s <= 0 || s == mine || is_live(s))
                continue;
            kill(kids[i], SIGKILL);
            while (waitpid(kids[i], NULL, 0) < 0 && errno == EINTR)
                ;
            /* a zombie was dead already; the sampler's session was counted first */
            killed += state != 'Z' && state != 'X' && s != sid;
        }
    }
    closedir(tasks);
    return killed;
}

int sv_sweep(pid_t sid)
{
    unregister(sid);
    const pid_t mine = getsid(0);
    int total = count_session(sid); /* before any is killed */
    for (int round = 0; round < MAX_ROUNDS; round++) {
        int found = kill(-sid, SIGKILL) == 0;
        int strays = kill_strays(mine, sid);
        found += strays;
        if (!found)
            return total;
        total += strays;
        struct timespec pause = {0, 1000000};
        nanosleep(&pause, NULL);
    }
    fprintf(stderr, "specverify: processes the sampler started were still being made after %d "
            "rounds of killing them; some may be left running\n", MAX_ROUNDS);
    return total;
}
