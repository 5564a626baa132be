/* output_file.c: where an output goes (sv_output.h): replaced whole when it
 * is a regular file, written in place when it is a device or a FIFO. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sv_output.h"

static int fail(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return -1;
}

/* 1 or 2 when st is this process's standard output or error, else -1. */
static int standard_stream(const struct stat *st)
{
    for (int fd = 1; fd <= 2; fd++) {
        struct stat s;
        if (fstat(fd, &s) == 0 && s.st_dev == st->st_dev && s.st_ino == st->st_ino)
            return fd;
    }
    return -1;
}

/* o->target: o->path with its links followed to the last one's target,
 * which may not exist yet (a dangling link gets its file made). Each hop
 * is read with readlink, a relative one from the link's own folder. */
static int follow_links(sv_output *o, char *err, size_t len)
{
    char *t = o->target;
    snprintf(t, sizeof o->target, "%s", o->path);
    for (int hops = 0; hops < 40; hops++) {
        struct stat st;
        if (lstat(t, &st) != 0 || !S_ISLNK(st.st_mode))
            return 0;
        char link[SV_OUTPUT_PATH];
        ssize_t n = readlink(t, link, sizeof link - 1);
        if (n < 0)
            return fail(err, len, "%s: cannot write there: %s", o->path, strerror(errno));
        link[n] = '\0';
        const char *slash = strrchr(t, '/');
        size_t dir = link[0] == '/' || !slash ? 0 : (size_t)(slash - t) + 1;
        if (dir + (size_t)n >= sizeof o->target)
            return fail(err, len, "%s: cannot write there: its link leads to too long a path",
                        o->path);
        memmove(t + dir, link, (size_t)n + 1);
    }
    return fail(err, len, "%s: cannot write there: %s", o->path, strerror(ELOOP));
}

int sv_output_resolve(const char *path, int need_file, sv_output *o, char *err, size_t len)
{
    memset(o, 0, sizeof *o);
    o->std_fd = -1;
    if (!path || !path[0])
        return fail(err, len, "an empty path: cannot write there");
    if (strlen(path) >= sizeof o->path)
        return fail(err, len, "%.60s...: cannot write there: the path is too long", path);
    snprintf(o->path, sizeof o->path, "%s", path);
    struct stat st;
    const char *what = NULL; /* a stream, in words */
    if (stat(path, &st) != 0) {
        if (errno != ENOENT)
            return fail(err, len, "%s: cannot write there: %s", path, strerror(errno));
    } else if ((o->std_fd = standard_stream(&st)) > 0) {
        what = o->std_fd == 1 ? "this command's standard output" : "its standard error";
    } else if (S_ISDIR(st.st_mode)) {
        return fail(err, len, "%s: cannot write there: it is a folder", path);
    } else if (S_ISBLK(st.st_mode)) {
        return fail(err, len, "%s: cannot write there: it is a block device (a disk)", path);
    } else if (S_ISSOCK(st.st_mode)) {
        return fail(err, len, "%s: cannot write there: it is a socket", path);
    } else if (S_ISCHR(st.st_mode)) {
        what = "a character device";
    } else if (S_ISFIFO(st.st_mode)) {
        what = "a FIFO";
    } else if (!S_ISREG(st.st_mode)) {
        return fail(err, len, "%s: cannot write there: it is not a regular file", path);
    }
    if (!what)
        return follow_links(o, err, len);
    o->stream = 1;
    if (need_file)
        return fail(err, len, "%s: cannot write there: it is %s, and this output must be a "
                    "regular file (HDF5 is written in pieces and seeked); name a file", path,
                    what);
    return 0;
}

int sv_output_temp(const sv_output *o, char *tmp, size_t tmp_len, char *err, size_t len)
{
    if (snprintf(tmp, tmp_len, "%s.tmp.XXXXXX", o->target) >= (int)tmp_len) {
        tmp[0] = '\0';
        return fail(err, len, "%s: cannot write there: the path is too long", o->path);
    }
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        tmp[0] = '\0';
        return fail(err, len, "%s: cannot write there: %s", o->path, strerror(e));
    }
    /* mkstemp makes the file 0600; an output is as readable as any file the
     * user creates (0666 less the umask) */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    return fd;
}

int sv_output_check(const char *path, int need_file, char *err, size_t len)
{
    sv_output o;
    if (sv_output_resolve(path, need_file, &o, err, len) != 0)
        return -1;
    if (o.stream) /* asked, not opened: a FIFO's open waits for its reader */
        return o.std_fd > 0 || access(path, W_OK) == 0
                   ? 0
                   : fail(err, len, "%s: cannot write there: %s", path, strerror(errno));
    char tmp[SV_OUTPUT_PATH + 16];
    int fd = sv_output_temp(&o, tmp, sizeof tmp, err, len);
    if (fd < 0)
        return -1;
    close(fd);
    unlink(tmp);
    return 0;
}

/* The folder ("." for none) and the name of a path. */
static const char *split(const char *path, char *dir, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, len, ".");
    else
        snprintf(dir, len, "%.*s", slash == path ? 1 : (int)(slash - path), path);
    return slash ? slash + 1 : path;
}

int sv_output_same(const sv_output *a, const sv_output *b)
{
    if (a->stream || b->stream)
        return 0;
    struct stat sa, sb;
    if (stat(a->target, &sa) == 0 && stat(b->target, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char da[SV_OUTPUT_PATH], db[SV_OUTPUT_PATH];
    if (strcmp(split(a->target, da, sizeof da), split(b->target, db, sizeof db)) != 0)
        return 0;
    if (stat(da, &sa) == 0 && stat(db, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    return strcmp(da, db) == 0; /* no such folder: as written */
}

int sv_output_open(sv_output_file *f, const char *path, char *err, size_t len)
{
    memset(f, 0, sizeof *f);
    if (sv_output_resolve(path, 0, &f->out, err, len) != 0)
        return -1;
    int fd;
    if (f->out.stream) {
        /* what the command printed before comes first on a shared stream */
        fflush(stdout);
        fflush(stderr);
        fd = f->out.std_fd > 0 ? dup(f->out.std_fd) : open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
        if (fd < 0)
            return fail(err, len, "%s: cannot write there: %s", path, strerror(errno));
    } else if ((fd = sv_output_temp(&f->out, f->tmp, sizeof f->tmp, err, len)) < 0) {
        return -1;
    }
    f->fp = fdopen(fd, "w");
    if (!f->fp) {
        int e = errno;
        close(fd);
        sv_output_abort(f);
        return fail(err, len, "%s: cannot write there: %s", path, strerror(e));
    }
    return 0;
}

int sv_output_commit(sv_output_file *f, char *err, size_t len)
{
    int e = 0;
    if (fflush(f->fp) != 0)
        e = errno;
    if (!e && ferror(f->fp))
        e = EIO;
    if (!e && !f->out.stream && fsync(fileno(f->fp)) != 0)
        e = errno;
    if (fclose(f->fp) != 0 && !e)
        e = errno;
    f->fp = NULL;
    if (!e && !f->out.stream && rename(f->tmp, f->out.target) != 0)
        e = errno;
    if (e) {
        fail(err, len, "could not write %s: %s", f->out.path, strerror(e));
        sv_output_abort(f);
        return -1;
    }
    f->tmp[0] = '\0'; /* renamed: nothing to remove */
    return 0;
}

void sv_output_abort(sv_output_file *f)
{
    if (f->fp)
        fclose(f->fp);
    f->fp = NULL;
    if (f->tmp[0])
        unlink(f->tmp);
    f->tmp[0] = '\0';
}
