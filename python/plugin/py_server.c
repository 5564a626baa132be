/* py_server.c: a worker from the fork server (python/specverify/_server.py,
 * started by harness/cli/python_server.c) in place of an interpreter
 * started here: the server already imported the samplers, so a run pays a
 * fork, not a start.
 *
 * The request is one byte on SV_PYTHON_SERVER_FD with five descriptors: the
 * worker's end of a fresh socket, the batches' shared memory, this
 * process's stdout and stderr (so what the sampler prints goes where it
 * would), and the read end of a pipe whose write end only this process
 * holds: when this process ends, the server ends the worker. The first word
 * on the socket says YES (the worker is up) or NO (the server cannot fork
 * the samplers): then, or when the server is gone, the caller starts an
 * interpreter of its own. The worker's end comes as a STATUS word with its
 * wait status, since this process cannot wait for another's child. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "py_plugin.h"
#include "sv_send_fds.h"

#define SERVER_ANSWER_SECONDS 20 /* for YES or NO to a request */

int sv_pyw_read_word(int fd, uint32_t *word)
{
    unsigned char b[4] = {0, 0, 0, 0};
    size_t got = 0;
    while (got < 4) {
        ssize_t r = read(fd, b + got, 4 - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    *word = b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    return 0;
}

int sv_pyw_from_server(sv_pyw *w)
{
    /* not in the CLI's own process (--in-process): there the worker would
     * hold the CLI's stdout and stderr, and a signal's stop stalled once */
    const char *owner = getenv("SV_PYTHON_SERVER_OWNER");
    if (owner && strtol(owner, NULL, 10) == (long)getpid())
        return -1;
    const char *given = getenv("SV_PYTHON_SERVER_FD");
    char *end = NULL;
    const long server = given && *given ? strtol(given, &end, 10) : -1;
    int type = 0;
    socklen_t type_len = sizeof type;
    if (server < 3 || server > INT32_MAX || !end || *end ||
        getsockopt((int)server, SOL_SOCKET, SO_TYPE, &type, &type_len) != 0 ||
        type != SOCK_SEQPACKET)
        return -1; /* none, or not this process's: never another socket of the harness's */
    int pair[2], life[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
        return -1;
    if (pipe2(life, O_CLOEXEC) != 0) {
        close(pair[0]);
        close(pair[1]);
        return -1;
    }
    const int fds[5] = {pair[1], w->memfd, 1, 2, life[0]};
    const int sent = sv_send_fds((int)server, 'w', fds, 5);
    close(pair[1]);
    close(life[0]);
    /* a fork takes milliseconds: a server that has not answered in this
     * long is wedged, and the run goes on without it rather than waiting
     * out the load's 600 s (test_a_wedged_server_costs_seconds_not_the_run) */
    int ready = 0;
    if (sent == 0) {
        struct pollfd answer = {pair[0], POLLIN, 0};
        while ((ready = poll(&answer, 1, SERVER_ANSWER_SECONDS * 1000)) < 0 && errno == EINTR)
            ;
        if (ready == 0)
            fprintf(stderr, "specverify: the Python fork server did not answer in %d s; this "
                    "run starts an interpreter of its own\n", SERVER_ANSWER_SECONDS);
    }
    uint32_t word = 0;
    if (ready <= 0 || sv_pyw_read_word(pair[0], &word) != 0 || word != SV_PYW_YES) {
        close(pair[0]); /* NO, or the server gone: an interpreter of this process's own */
        close(life[1]);
        return -1;
    }
    w->sock = pair[0];
    w->life = life[1];
    w->forked = 1;
    w->up = 1;
    return 0;
}
