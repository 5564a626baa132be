/* sv_output.h: where an output file goes, decided before a byte is written,
 * so that no writer ever replaces a device, a FIFO or a link.
 *
 * A path that names a regular file, or nothing yet, is written whole or not
 * at all: to a temporary beside it, renamed into place. A link to a regular
 * file is followed first and the temporary made beside the file it names,
 * so the link stays a link. A character device or a FIFO (or a chain of
 * links to one), and this process's own standard output or error however
 * it is named (/dev/stdout redirected to a file), are written in place:
 * opened for writing with no O_CREAT and no O_TRUNC, never renamed over, so
 * --json /dev/stdout prints the report. A folder, a block device and a
 * socket are refused.
 *
 * It lives here, the lowest layer that writes files (recordings and their
 * vocabularies), so that the harness's reports share the one rule
 * (harness/atomic_file.c and results_h5.c wrap it). */
#ifndef SV_OUTPUT_H
#define SV_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

#define SV_OUTPUT_PATH 4096

typedef struct sv_output {
    int stream;                  /* written in place, never replaced */
    int std_fd;                  /* a stream that is our fd 1 or 2: written through it; else -1 */
    char path[SV_OUTPUT_PATH];   /* as given (messages, and what a stream opens) */
    char target[SV_OUTPUT_PATH]; /* not a stream: the file to replace, links followed */
} sv_output;

/* Decides what path names. need_file: the writer needs a regular file (an
 * HDF5 file is written in pieces and seeked), so a stream is refused too.
 * 0, or -1 with why in err ("PATH: cannot write there: ..."). */
int sv_output_resolve(const char *path, int need_file, sv_output *o, char *err, size_t len);

/* Whether path can be written, for a command to check before its long
 * work: resolved, and for a file a temporary made beside the target and
 * removed; for a stream only its permission is asked (nothing is opened:
 * a FIFO would wait for its reader, and nothing is created). 0 or -1. */
int sv_output_check(const char *path, int need_file, char *err, size_t len);

/* A new temporary file beside o->target (TARGET.tmp.XXXXXX), as readable
 * as any file the user creates (0666 less the umask); its name in tmp.
 * Returns its descriptor, or -1 with why in err. */
int sv_output_temp(const sv_output *o, char *tmp, size_t tmp_len, char *err, size_t len);

/* 1 when two resolved outputs that are not streams name the same file:
 * the same device and inode when both exist, else the same name in the
 * same folder. */
int sv_output_same(const sv_output *a, const sv_output *b);

/* A text output, written through its FILE. */
typedef struct sv_output_file {
    FILE *fp;
    sv_output out;
    char tmp[SV_OUTPUT_PATH + 16]; /* "" for a stream */
} sv_output_file;

/* 0 with f->fp open, or -1 with why in err. */
int sv_output_open(sv_output_file *f, const char *path, char *err, size_t len);
/* Flushes and, for a file, syncs and renames into place; on an error the
 * temporary is removed and err says "could not write PATH: why". 0 or -1. */
int sv_output_commit(sv_output_file *f, char *err, size_t len);
/* Closes and removes the temporary; what a stream was given stays given. */
void sv_output_abort(sv_output_file *f);

#endif
