/* sandbox_paths.c: the folders a sampler must not write in (the reports'),
 * and paths made absolute and real, for the watch (sandbox_watch.c).
 *
 * Landlock already refuses every write outside the scratch folder; this list
 * only says which refused writes are attempts on the harness's own outputs,
 * to be named as findings. The CLI adds each output's folder as it parses
 * the flag (sv_output_flag), before any sampler's process is forked. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sandbox_internal.h"

#define MAX_PROTECTED 32

static char protected_dirs[MAX_PROTECTED][PATH_MAX];
static int n_protected;

/* Joins base and path (path absolute: base unused) and takes out ".", ".."
 * and repeated slashes, as the kernel would walk them without symlinks. */
int sv_path_join(const char *base, const char *path, char *out, size_t len)
{
    char joined[2 * PATH_MAX + 2];
    if (path[0] == '/')
        snprintf(joined, sizeof joined, "%s", path);
    else
        snprintf(joined, sizeof joined, "%s/%s", base, path);
    size_t n = 0;
    out[0] = '\0';
    for (char *save = NULL, *part = strtok_r(joined, "/", &save); part;
         part = strtok_r(NULL, "/", &save)) {
        if (strcmp(part, ".") == 0)
            continue;
        if (strcmp(part, "..") == 0) {
            char *slash = strrchr(out, '/');
            n = slash ? (size_t)(slash - out) : 0;
            out[n] = '\0';
            continue;
        }
        int w = snprintf(out + n, len - n, "/%s", part);
        if (w < 0 || (size_t)w >= len - n)
            return -1;
        n += (size_t)w;
    }
    if (n == 0)
        snprintf(out, len, "/");
    return 0;
}

/* abs (absolute, normalised) with its longest existing prefix made real:
 * a symlinked folder on the way is followed, as the kernel would. */
void sv_path_real(const char *abs, char *out, size_t len)
{
    char head[PATH_MAX];
    snprintf(head, sizeof head, "%s", abs);
    size_t cut = strlen(head);
    for (;;) {
        char real[PATH_MAX];
        if (realpath(head, real)) {
            char joined[2 * PATH_MAX + 2];
            snprintf(joined, sizeof joined, "%s%s", real, abs + cut);
            if (sv_path_join("/", joined, out, len) != 0)
                snprintf(out, len, "%s", abs);
            return;
        }
        char *slash = strrchr(head, '/');
        if (!slash || slash == head) {
            snprintf(out, len, "%s", abs);
            return;
        }
        *slash = '\0';
        cut = (size_t)(slash - head);
    }
}

void sv_sandbox_protect(const char *path, int is_folder)
{
    if (n_protected >= MAX_PROTECTED || !path || !path[0])
        return;
    char cwd[PATH_MAX], abs[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd) || sv_path_join(cwd, path, abs, sizeof abs) != 0)
        return;
    if (!is_folder) { /* a file's folder */
        char *slash = strrchr(abs, '/');
        if (slash == abs)
            slash[1] = '\0';
        else if (slash)
            *slash = '\0';
    }
    char *dir = protected_dirs[n_protected];
    sv_path_real(abs, dir, PATH_MAX);
    for (int i = 0; i < n_protected; i++)
        if (strcmp(protected_dirs[i], dir) == 0)
            return;
    n_protected++;
}

const char *sv_sandbox_protected(const char *real)
{
    for (int i = 0; i < n_protected; i++) {
        const char *d = protected_dirs[i];
        size_t n = strlen(d);
        if (strncmp(real, d, n) == 0 && (real[n] == '/' || real[n] == '\0' || n == 1))
            return d;
    }
    return NULL;
}
