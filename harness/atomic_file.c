/* atomic_file.c: write to a temporary beside the target, then rename, so a
 * reader never sees half a file and a failure loses nothing already there. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sv_harness.h"

int sv_atomic_open(sv_atomic_file *f, const char *path)
{
    memset(f, 0, sizeof *f);
    size_t n = strlen(path);
    f->path = malloc(n + 1);
    f->tmp = malloc(n + 16);
    if (!f->path || !f->tmp) {
        sv_atomic_abort(f);
        return sv_fail(SV_EENV, "%s: out of memory", path);
    }
    memcpy(f->path, path, n + 1);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) { /* rename would fail at the end */
        sv_atomic_abort(f);
        return sv_fail(SV_EBAD, "%s: cannot write there: it is a folder", path);
    }
    snprintf(f->tmp, n + 16, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(f->tmp);
    if (fd < 0) {
        int e = errno;
        free(f->tmp);
        f->tmp = NULL;
        sv_atomic_abort(f);
        return sv_fail(SV_EBAD, "%s: cannot write there: %s", path, strerror(e));
    }
    /* mkstemp makes the file 0600; a report is as readable as any file the
     * user creates (0666 less the umask) */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    f->fp = fdopen(fd, "w");
    if (!f->fp) {
        close(fd);
        sv_atomic_abort(f);
        return sv_fail(SV_EENV, "%s: cannot open a stream", path);
    }
    return SV_OK;
}

int sv_atomic_commit(sv_atomic_file *f)
{
    int bad = ferror(f->fp) || fflush(f->fp) != 0 || fsync(fileno(f->fp)) != 0;
    int e = errno;
    bad |= fclose(f->fp) != 0;
    f->fp = NULL;
    if (bad || rename(f->tmp, f->path) != 0) {
        if (!bad)
            e = errno;
        int status = sv_fail(SV_EBAD, "%s: write failed: %s", f->path, strerror(e));
        sv_atomic_abort(f);
        return status;
    }
    free(f->tmp);
    f->tmp = NULL;
    sv_atomic_abort(f);
    return SV_OK;
}

void sv_atomic_abort(sv_atomic_file *f)
{
    if (f->fp)
        fclose(f->fp);
    if (f->tmp)
        unlink(f->tmp);
    free(f->tmp);
    free(f->path);
    memset(f, 0, sizeof *f);
}

int sv_atomic_check(const char *path)
{
    sv_atomic_file f;
    int rc = sv_atomic_open(&f, path);
    if (rc == SV_OK)
        sv_atomic_abort(&f);
    return rc;
}
