/* send_fds.c: descriptors handed to another process over a Unix socket
 * (SCM_RIGHTS), one byte along so that the message is not empty: the
 * sandbox's seccomp listener to its init, a Python sampler's run to the
 * fork server, and the server's state asked for. Standalone (libc alone):
 * the Python samplers' plugin compiles it too. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include "sv_send_fds.h"

int sv_send_fds(int sock, char byte, const int *fds, int n)
{
    if (n < 1 || n > SV_SEND_FDS_MAX)
        return -1;
    struct iovec iov = {&byte, 1};
    union {
        struct cmsghdr h;
        char room[CMSG_SPACE(SV_SEND_FDS_MAX * sizeof(int))];
    } control;
    memset(&control, 0, sizeof control);
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.room,
                         .msg_controllen = CMSG_SPACE((size_t)n * sizeof(int))};
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN((size_t)n * sizeof(int));
    memcpy(CMSG_DATA(c), fds, (size_t)n * sizeof(int));
    ssize_t sent;
    do
        sent = sendmsg(sock, &msg, MSG_NOSIGNAL);
    while (sent < 0 && errno == EINTR);
    return sent == 1 ? 0 : -1;
}
