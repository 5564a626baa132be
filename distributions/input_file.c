/* input_file.c: a file read as input, refused unless regular (sv_input.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sv_input.h"

/* What a file that is not regular is, in words. */
static const char *kind(mode_t mode)
{
    return S_ISFIFO(mode)  ? "a FIFO"
           : S_ISDIR(mode) ? "a directory"
           : S_ISCHR(mode) ? "a character device"
           : S_ISBLK(mode) ? "a block device"
           : S_ISSOCK(mode) ? "a socket"
                            : "not a file";
}

static int not_file(const char *path, mode_t mode, char *err, size_t len)
{
    snprintf(err, len, "%s: is %s, not a regular file", path, kind(mode));
    return SV_INPUT_NOT_FILE;
}

static int unreadable(const char *path, char *err, size_t len)
{
    const int saved = errno;
    snprintf(err, len, "%s: %s", path, strerror(saved));
    errno = saved;
    return SV_INPUT_UNREADABLE;
}

int sv_input_open(const char *path, char *err, size_t len)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return unreadable(path, err, len);
    if (!S_ISREG(st.st_mode)) /* refused before it is opened: a device's open may act */
        return not_file(path, st.st_mode, err, len);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return unreadable(path, err, len);
    if (fstat(fd, &st) != 0) {
        unreadable(path, err, len);
        close(fd);
        return SV_INPUT_UNREADABLE;
    }
    if (!S_ISREG(st.st_mode)) { /* swapped since the stat */
        close(fd);
        return not_file(path, st.st_mode, err, len);
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        unreadable(path, err, len);
        close(fd);
        return SV_INPUT_UNREADABLE;
    }
    return fd;
}

FILE *sv_input_fopen(const char *path, int *why, char *err, size_t len)
{
    int fd = sv_input_open(path, err, len);
    if (why)
        *why = fd < 0 ? fd : 0;
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        unreadable(path, err, len);
        close(fd);
        if (why)
            *why = SV_INPUT_UNREADABLE;
    }
    return f;
}

int sv_input_check(const char *path, char *err, size_t len)
{
    int fd = sv_input_open(path, err, len);
    if (fd < 0)
        return fd;
    close(fd);
    return 0;
}
