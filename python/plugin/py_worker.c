/* py_worker.c: the sampler's interpreter as a process of its own.
 *
 * The plugin starts the chosen Python (SV_PYTHON_EXE) running
 * specverify._worker, with a socket on its descriptor 3 and the shared
 * memory on 4, and asks it one thing at a time: a 4-byte little-endian
 * length, then JSON. The worker is the plugin's child, so it lives in the
 * same sandbox (its layers are inherited across exec) and dies with the
 * plugin's process (PR_SET_PDEATHSIG). When it ends while asked, its end
 * becomes the plugin's own: a signal is raised again here and an exit
 * status is exited with, so the harness tells "crashed with SIGSEGV" or
 * "exited (exit status 0 ...)" exactly as for a sampler in its process.
 * Where the fork server can give one (py_server.c), the worker is a fork
 * of its interpreter instead, the server's child: its end then comes as a
 * STATUS word on the socket, and becomes this process's the same way. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include "py_plugin.h"

/* What the worker runs: the package folder first on sys.path, so that the
 * glue is this plugin's own version whatever else the environment holds. */
static const char program[] =
    "import sys; sys.path.insert(0, sys.argv[1]); from specverify._worker import main; main()";

int sv_pyw_start(sv_pyw *w, const char *exe, const char *package, char *err, size_t len)
{
    memset(w, 0, sizeof *w);
    w->sock = w->memfd = w->life = -1;
    w->memfd = memfd_create("specverify-python-batch", MFD_CLOEXEC);
    if (w->memfd < 0) {
        snprintf(err, len, "python samplers: memfd_create: %s", strerror(errno));
        return -1;
    }
    if (sv_pyw_from_server(w) == 0)
        return 0;
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
        snprintf(err, len, "python samplers: socketpair: %s", strerror(errno));
        close(w->memfd);
        w->memfd = -1;
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* the plugin's process gone: this goes too */
        /* the harness decides when to stop: Ctrl-C or a kill of the process
         * group (which holds this worker under --in-process) must not end a
         * call as a KeyboardInterrupt or a death; ignored stays ignored in
         * Python, across exec */
        signal(SIGINT, SIG_IGN);
        signal(SIGTERM, SIG_IGN);
        /* 3 and 4 as the worker reads them, without close-on-exec */
        int sock = fcntl(pair[1], F_DUPFD, 10), mem = fcntl(w->memfd, F_DUPFD, 10);
        if (sock < 0 || mem < 0 || dup2(sock, 3) != 3 || dup2(mem, 4) != 4)
            _exit(127);
        char *argv[] = {(char *)exe, (char *)"-c", (char *)program, (char *)package, NULL};
        execv(exe, argv);
        fprintf(stderr, "specverify: cannot run %s: %s\n", exe, strerror(errno));
        _exit(127);
    }
    close(pair[1]);
    if (pid < 0) {
        snprintf(err, len, "python samplers: fork: %s", strerror(errno));
        close(pair[0]);
        close(w->memfd);
        w->memfd = -1;
        return -1;
    }
    w->pid = pid;
    w->sock = pair[0];
    w->up = 1;
    return 0;
}

static int write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n > 0) {
        ssize_t w = send(fd, c, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

static int read_all(int fd, void *p, size_t n)
{
    char *c = p;
    while (n > 0) {
        ssize_t r = read(fd, c, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        c += r;
        n -= (size_t)r;
    }
    return 0;
}

/* A forked worker's wait status, as the server tells it after its end
 * (word: what was read in place of an answer's length, or 0 to read it):
 * 0, or -1 when the server went without telling. */
static int forked_status(sv_pyw *w, uint32_t word, int *status)
{
    uint32_t st;
    if (!word && sv_pyw_read_word(w->sock, &word) != 0)
        return -1;
    if (word != SV_PYW_STATUS || sv_pyw_read_word(w->sock, &st) != 0)
        return -1;
    *status = (int)st;
    return 0;
}

static void (*on_end)(void);

void sv_pyw_on_end(void (*fn)(void)) { on_end = fn; }

/* A worker that has ended: what this process held of it, closed. */
static void let_go(sv_pyw *w)
{
    if (w->sock >= 0)
        close(w->sock);
    if (w->life >= 0)
        close(w->life);
    if (w->mem)
        munmap(w->mem, w->size);
    if (w->memfd >= 0)
        close(w->memfd);
    w->sock = w->life = w->memfd = -1;
    w->mem = NULL, w->size = 0;
    w->up = w->forked = 0;
    w->pid = 0;
}

/* The worker has ended while asked: its end is this process's (word: what
 * stood where an answer's length should, or 0). */
__attribute__((noreturn)) static void end_as_worker(sv_pyw *w, uint32_t word)
{
    int status = 0;
    const int lost = w->forked && forked_status(w, word, &status) != 0;
    while (!w->forked && waitpid(w->pid, &status, 0) < 0 && errno == EINTR)
        ;
    let_go(w);
    if (on_end)
        on_end();
    if (lost)
        _exit(SV_PYW_SERVER_LOST); /* the harness asks the server's sandbox why */
    if (WIFSIGNALED(status)) {
        /* the harness's handlers see it as the sampler's; where none ends the
         * process (a signal it ignores), the default action does */
        const int sig = WTERMSIG(status);
        struct sigaction old;
        if (sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            signal(sig, SIG_DFL);
        raise(sig);
    }
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

cJSON *sv_pyw_ask(sv_pyw *w, cJSON *request)
{
    char *text = cJSON_PrintUnformatted(request);
    cJSON_Delete(request);
    if (!text)
        return NULL;
    const uint32_t n = (uint32_t)strlen(text);
    const unsigned char head[4] = {(unsigned char)n, (unsigned char)(n >> 8),
                                   (unsigned char)(n >> 16), (unsigned char)(n >> 24)};
    const int sent = write_all(w->sock, head, 4) == 0 && write_all(w->sock, text, n) == 0;
    free(text);
    uint32_t m = 0;
    if (!sent || sv_pyw_read_word(w->sock, &m) != 0)
        end_as_worker(w, 0);
    if (w->forked && m == SV_PYW_STATUS)
        end_as_worker(w, m);
    char *reply = malloc((size_t)m + 1);
    if (!reply)
        return NULL;
    if (read_all(w->sock, reply, m) != 0) {
        free(reply); /* under --in-process this process goes on past the end */
        end_as_worker(w, 0);
    }
    reply[m] = '\0';
    cJSON *j = cJSON_Parse(reply);
    free(reply);
    return j;
}

void sv_pyw_stop(sv_pyw *w)
{
    if (!w->up)
        return;
    static const unsigned char bye[4] = {0, 0, 0, 0}; /* an empty request: the end */
    (void)write_all(w->sock, bye, 4);
    int status;
    if (w->forked) /* the worker's end, as the server tells it */
        (void)forked_status(w, 0, &status);
    while (!w->forked && waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
        ;
    let_go(w); /* its batches' memory too: a worker started again maps its own */
}

int sv_pyw_memory(sv_pyw *w, size_t bytes)
{
    if (bytes <= w->size)
        return 0;
    size_t want = w->size ? w->size : 1u << 20;
    while (want < bytes)
        want *= 2;
    if (ftruncate(w->memfd, (off_t)want) != 0)
        return -1;
    void *m = mmap(NULL, want, PROT_READ | PROT_WRITE, MAP_SHARED, w->memfd, 0);
    if (m == MAP_FAILED)
        return -1;
    if (w->mem)
        munmap(w->mem, w->size);
    w->mem = m;
    w->size = want;
    return 0;
}
