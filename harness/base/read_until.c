/* read_until.c: what another process writes on a descriptor, until it
 * closes it, the buffer is full, or a deadline: the harness's questions to
 * processes it cannot trust to answer (the fork server, the sandbox's GPU
 * check) wait this way, never for ever. */
#include <errno.h>
#include <poll.h>
#include <unistd.h>
#include "sv_base.h"

size_t sv_read_until(int fd, void *buf, size_t len, double seconds, int *timed_out)
{
    char *at = buf;
    size_t got = 0;
    const double until = sv_now() + seconds;
    *timed_out = 0;
    while (got < len) {
        const double left = until - sv_now();
        if (left <= 0) {
            *timed_out = 1;
            break;
        }
        struct pollfd p = {fd, POLLIN, 0};
        const int r = poll(&p, 1, left > 1.0 ? 1000 : (int)(left * 1000) + 1);
        if (r == 0 || (r < 0 && errno == EINTR))
            continue;
        const ssize_t n = r > 0 ? read(fd, at + got, len - got) : -1;
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break; /* its end, or an error: what came is all there is */
        got += (size_t)n;
    }
    return got;
}
