/* python_server.c: the Python samplers' fork server, started once a
 * process (python/specverify/_server.py says what it does).
 *
 * Every run of a Python sampler's process used to start its interpreter and
 * import the sampler afresh: a second and more for torch, paid about 28
 * times on `ci` and once a case in each round of the budget's probe. The
 * server imports once, in a sandbox of its own set up as a sampler's
 * process's is (sv_sandbox_fork, sv_sandbox_enter), and forks a worker for
 * each run, which begins from the state the imports left, so no run sees
 * another's. A run's plugin finds it by SV_PYTHON_SERVER_FD, a descriptor
 * every sampler's process keeps (sv_sandbox_keep_fd); where the server
 * cannot fork (the samplers did not load, their imports started threads or
 * CUDA), has ended, or SV_PYTHON_FORK=0, the plugin starts an interpreter
 * of its own as before (python/plugin/py_server.c). */
#define _GNU_SOURCE
#include <ctype.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include "sv_cli.h"
#include "sv_sandbox.h"
#include "sv_send_fds.h"

static const char program[] =
    "import sys; sys.path.insert(0, sys.argv[1]); from specverify._server import main; main()";

static sv_sandboxed box;
static char label[160]; /* whose output the server's is: the specs' names */
static pid_t owner;   /* the process that started it: the one to end it */
static int requests = -1;
static char quit_why[80] = "no fork server"; /* why runs start their own interpreters */
#define STATE_SECONDS 30.0 /* the server's answer to the state asked, at most */

/* Ends the server: its requests closed (it sees their end and exits), then
 * its sandbox ended here, waiting 2 s before a kill unless `now`. */
static void end_server(int now)
{
    sv_sandbox_keep_fd(-1);
    close(requests);
    requests = -1;
    char ignored[8];
    int left = 0;
    if (!now)
        sv_sandbox_server_news(ignored, sizeof ignored, &left, 2.0);
    if (box.pid > 0) { /* asked to go now, or still there after 2 s */
        kill(box.pid, SIGKILL);
        sv_sandbox_server_news(ignored, sizeof ignored, &left, 2.0);
    }
}

/* The server stopped before the runs ask it (it did not answer): each
 * starts an interpreter of its own. */
static void quit(const char *why)
{
    snprintf(quit_why, sizeof quit_why, "%s", why);
    if (requests < 0)
        return;
    unsetenv("SV_PYTHON_SERVER_FD");
    end_server(1);
}

/* At exit, so that nothing of the server outlives this process (a caller
 * that waits for this process's group to empty, as specverify.verify does,
 * would wait for an init nobody reaps). */
static void stop(void)
{
    if (getpid() == owner && requests >= 0)
        end_server(0);
}

/* In the server's process: confined, its socket on descriptor 3, then the
 * chosen Python on _server.py. Never returns. */
__attribute__((noreturn)) static void server_main(int sock, const char *exe,
                                                  const char *package)
{
    char err[512];
    int keep[1] = {sock};
    if (sv_sandbox_enter(keep, 1, err, sizeof err) != SV_OK)
        _exit(SV_EENV); /* no server: each run starts its own, and says why it cannot */
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* without a PID namespace: it goes with the harness */
    signal(SIGINT, SIG_IGN); /* the harness decides when to stop, as for the workers */
    signal(SIGTERM, SIG_IGN);
    if ((sock != 3 && dup2(sock, 3) != 3) || fcntl(3, F_SETFD, 0) != 0)
        _exit(127);
    char *argv[] = {(char *)exe, (char *)"-c", (char *)program, (char *)package, NULL};
    execv(exe, argv);
    _exit(127);
}

const char *sv_python_server_state(void)
{
    static char state[300];
    if (state[0])
        return state;
    const char *fork_ok = getenv("SV_PYTHON_FORK");
    int pair[2] = {-1, -1};
    unsigned char got[4 + 200];
    ssize_t n = 0;
    if (requests >= 0 && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) == 0 &&
        sv_send_fds(requests, 's', &pair[1], 1) == 0) {
        close(pair[1]);
        pair[1] = -1;
        /* the word, and the server's why, until it closes; it serves once
         * the samplers are imported, which the load has waited for */
        int late;
        n = (ssize_t)sv_read_until(pair[0], got, sizeof got, STATE_SECONDS, &late);
        if (n < 4) /* no answer: no server, so the header says what runs do */
            quit("the fork server did not answer");
    }
    for (int i = 0; i < 2; i++)
        if (pair[i] >= 0)
            close(pair[i]);
    const uint32_t word = n >= 4 ? got[0] | (uint32_t)got[1] << 8 | (uint32_t)got[2] << 16 |
                                       (uint32_t)got[3] << 24
                                 : 0;
    if (word == 0xFFFFFFFDu) {
        snprintf(state, sizeof state, "imported once; each run a fork of that process");
    } else if (word == 0xFFFFFFFEu) {
        char why[201];
        size_t k = 0; /* the server runs the sampler's imports: its words, printable */
        for (ssize_t i = 4; i < n && k < sizeof why - 1; i++)
            why[k++] = got[i] >= 0x20 && got[i] < 0x7f ? (char)got[i] : '?';
        why[k] = '\0';
        snprintf(state, sizeof state, "started for each run (%s)", why);
    } else if (fork_ok && !strcmp(fork_ok, "0")) {
        snprintf(state, sizeof state, "started for each run (SV_PYTHON_FORK=0)");
    } else {
        snprintf(state, sizeof state, "started for each run (%s)", quit_why);
    }
    return state;
}

int sv_python_server_start(void)
{
    /* a parent's, inherited across exec, names a descriptor of its own */
    unsetenv("SV_PYTHON_SERVER_FD");
    const char *fork_ok = getenv("SV_PYTHON_FORK");
    const char *exe = getenv("SV_PYTHON_EXE"), *package = getenv("SV_PYTHON_PATH");
    if ((fork_ok && !strcmp(fork_ok, "0")) || !exe || !*exe || !package || !*package)
        return 0; /* the plugin starts an interpreter for each run */
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0)
        return 0;
    /* what the imports print is the samplers': "NAME[,NAME]", as each
     * spec names it after its colon */
    const char *specs = getenv("SV_PYTHON_SAMPLERS");
    size_t used = 0;
    for (const char *line = specs ? specs : ""; *line && used + 2 < sizeof label;) {
        const size_t n = strcspn(line, "\n");
        const char *colon = memrchr(line, ':', n);
        const char *name = colon ? colon + 1 : line;
        if (used)
            label[used++] = ',';
        /* a user's words, printed raw by the relay: letters, digits, _ and . alone */
        for (const char *c = name; c < line + n && used + 1 < sizeof label; c++)
            label[used++] = isalnum((unsigned char)*c) || *c == '_' || *c == '.' ? *c : '?';
        label[used] = '\0';
        line += n + (line[n] == '\n');
    }
    const pid_t pid = sv_sandbox_fork(&box, used ? label : "python");
    if (pid == 0) {
        close(pair[0]);
        server_main(pair[1], exe, package);
    }
    close(pair[1]);
    if (pid < 0) {
        close(pair[0]);
        return 0;
    }
    char fd[16], me[24];
    snprintf(fd, sizeof fd, "%d", pair[0]);
    snprintf(me, sizeof me, "%d", (int)getpid()); /* --in-process: no fork (py_server.c) */
    if (setenv("SV_PYTHON_SERVER_FD", fd, 1) != 0 || setenv("SV_PYTHON_SERVER_OWNER", me, 1)) {
        close(pair[0]); /* it sees the end of its requests and exits */
        return 0;
    }
    sv_sandbox_keep_fd(pair[0]);
    sv_sandbox_server(&box);
    owner = getpid();
    requests = pair[0];
    atexit(stop);
    return 1;
}
