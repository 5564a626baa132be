/* real_path.c: where a path really leads, for a file that may not exist
 * yet: an output's folders are made and its file written through every
 * link on the way, so `run --out-root` checks this, not the text. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sv_store.h"

enum { MAX_HOPS = 40 }; /* the kernel's own limit on links in one path */

/* "head/tail", or head alone when tail is empty; 0, or -1 if too long. */
static int joined(char *out, size_t len, const char *head, const char *tail)
{
    int n = tail[0] ? snprintf(out, len, "%s%s%s", head,
                               head[0] && head[strlen(head) - 1] == '/' ? "" : "/", tail)
                    : snprintf(out, len, "%s", head);
    return n >= 0 && (size_t)n < len ? 0 : -1;
}

int sv_real_path(const char *path, char *out, size_t len)
{
    char work[PATH_MAX], tail[PATH_MAX] = "", next[PATH_MAX], real[PATH_MAX];
    if (snprintf(work, sizeof work, "%s", path) >= (int)sizeof work)
        return errno = ENAMETOOLONG, -1;
    for (int hops = 0;;) {
        if (realpath(work, real)) /* the deepest part that exists, resolved */
            return joined(out, len, real, tail) == 0 ? 0 : (errno = ENAMETOOLONG, -1);
        struct stat st;
        if (lstat(work, &st) == 0 && S_ISLNK(st.st_mode)) { /* a link to nothing yet: */
            char target[PATH_MAX];                       /* its file is made where it leads */
            ssize_t n = readlink(work, target, sizeof target - 1);
            if (n < 0 || ++hops > MAX_HOPS)
                return n < 0 ? -1 : (errno = ELOOP, -1);
            target[n] = '\0';
            char *slash = strrchr(work, '/');
            if (target[0] != '/' && slash) { /* relative to the link's own folder */
                slash[1] = '\0';
                if (joined(next, sizeof next, work, target) != 0)
                    return errno = ENAMETOOLONG, -1;
            } else {
                snprintf(next, sizeof next, "%s", target);
            }
            snprintf(work, sizeof work, "%s", next);
            continue;
        }
        char *slash = strrchr(work, '/'); /* else up one: its last part joins the tail */
        const char *last = slash ? slash + 1 : work;
        if (last[0] && joined(next, sizeof next, last, tail) != 0) /* "a//b", "a/": no part */
            return errno = ENAMETOOLONG, -1;
        if (last[0])
            snprintf(tail, sizeof tail, "%s", next);
        if (!slash)
            snprintf(work, sizeof work, ".");
        else if (slash == work)
            work[1] = '\0'; /* "/" */
        else
            *slash = '\0';
    }
}
