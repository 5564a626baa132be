/* sv_input.h: a file read as input is a regular file, checked before a
 * byte is read, so that no reader waits forever on a FIFO or reads a
 * device or a folder as data.
 *
 * The path is stat'ed, then opened with O_NONBLOCK (a FIFO put in its place
 * between the two cannot make the open wait for a writer) and the open
 * descriptor fstat'ed: only a regular file, or a link to one, is taken.
 *
 * It lives here, the lowest layer that reads files (recordings, corpora),
 * so that every reader shares the one rule: the harness's HDF5 files (bench,
 * sweep and shard files), experiment files and plugins (sv_plugin_load). */
#ifndef SV_INPUT_H
#define SV_INPUT_H

#include <stddef.h>
#include <stdio.h>

/* What sv_input_open returns instead of a descriptor. */
enum {
    SV_INPUT_UNREADABLE = -1, /* it could not be stat'ed or opened: errno says why */
    SV_INPUT_NOT_FILE = -2    /* it is a FIFO, a folder, a device or a socket */
};

/* Opens path for reading (O_CLOEXEC, blocking once checked): the
 * descriptor, or SV_INPUT_UNREADABLE ("PATH: strerror" in err) or
 * SV_INPUT_NOT_FILE ("PATH: is a FIFO, not a regular file" in err). */
int sv_input_open(const char *path, char *err, size_t len);

/* sv_input_open as a stdio stream opened "rb"; NULL with err said, and the
 * status (SV_INPUT_UNREADABLE or SV_INPUT_NOT_FILE) in *why when why is
 * not NULL. */
FILE *sv_input_fopen(const char *path, int *why, char *err, size_t len);

/* For readers that open by name (HDF5): 0 when path is a regular file that
 * opens, else sv_input_open's status with err said. */
int sv_input_check(const char *path, char *err, size_t len);

#endif
