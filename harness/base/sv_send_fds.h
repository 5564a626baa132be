/* sv_send_fds.h: descriptors to another process over a Unix socket. */
#ifndef SV_SEND_FDS_H
#define SV_SEND_FDS_H

#define SV_SEND_FDS_MAX 8

/* Sends byte with fds[0..n) (1 to SV_SEND_FDS_MAX) on sock: 0, or -1 with
 * errno (the other end gone: EPIPE, never SIGPIPE). */
int sv_send_fds(int sock, char byte, const int *fds, int n);

#endif
