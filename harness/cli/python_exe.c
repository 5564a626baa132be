/* python_exe.c: which Python runs the Python samplers. --python-exe PATH,
 * else $SPECVERIFY_PYTHON (the Python API sets it to its own interpreter),
 * else the first python3 on PATH that imports numpy. Each is asked once for
 * its version, with numpy imported, before anything runs: a path that is no
 * Python 3.9 or later with numpy is bad input (exit 2) and named; none on
 * PATH is the environment's failure (exit 3). The plugin starts the one
 * chosen (python/plugin/py_worker.c) and the report names it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sv_cli.h"

static const char ask[] =
    "import sys\n"
    "if sys.version_info < (3, 9): sys.exit('Python %d.%d: specverify needs 3.9 or later' % "
    "sys.version_info[:2])\n"
    "import numpy\n"
    "sys.stdout.write('%d.%d.%d' % sys.version_info[:3])\n";

static char chosen[PATH_MAX], version[32];
static int named; /* given by --python-exe or SPECVERIFY_PYTHON, not found on PATH */

/* src into dst[len], cut if need be */
static void copy(char *dst, size_t len, const char *src)
{
    size_t k = strlen(src);
    if (k >= len)
        k = len - 1;
    memcpy(dst, src, k);
    dst[k] = '\0';
}

/* Runs exe on the question: 0 with its version, or -1 with the last line
 * it said (or why it could not run) in why. */
static int probe(const char *exe, char *why, size_t len)
{
    struct stat st;
    if (stat(exe, &st) != 0 || !S_ISREG(st.st_mode) || access(exe, X_OK) != 0) {
        snprintf(why, len, "not an executable file");
        return -1;
    }
    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0) {
        snprintf(why, len, "pipe: %s", strerror(errno));
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(out[1], 1);
        dup2(out[1], 2);
        char *argv[] = {(char *)exe, (char *)"-c", (char *)ask, NULL};
        execv(exe, argv);
        printf("cannot run it: %s\n", strerror(errno));
        _exit(127);
    }
    close(out[1]);
    char said[4096];
    size_t n = 0;
    for (ssize_t r; n + 1 < sizeof said && (r = read(out[0], said + n, sizeof said - 1 - n)) != 0;)
        if (r > 0)
            n += (size_t)r;
        else if (errno != EINTR)
            break;
    said[n] = '\0';
    close(out[0]);
    int status = 0;
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 && n > 0 && n < sizeof version) {
        copy(version, sizeof version, said);
        return 0;
    }
    while (n > 0 && (said[n - 1] == '\n' || said[n - 1] == ' '))
        said[--n] = '\0';
    const char *last = strrchr(said, '\n');
    copy(why, len, pid < 0 ? "fork failed" : last ? last + 1 : n ? said : "it said nothing");
    return -1;
}

int sv_python_exe_choose(const char *given, const char *command)
{
    char why[512];
    const char *from = given ? "--python-exe" : "SPECVERIFY_PYTHON";
    if (!given)
        given = getenv("SPECVERIFY_PYTHON");
    if (given && *given) {
        if (probe(given, why, sizeof why) != 0)
            return sv_fail(SV_EBAD, "%s: %s %s: %s (want a Python 3.9 or later that imports "
                           "numpy)", command, from, given, why);
        snprintf(chosen, sizeof chosen, "%s", given);
        named = 1;
    } else {
        const char *path = getenv("PATH");
        char dirs[8192];
        snprintf(dirs, sizeof dirs, "%s", path ? path : "/usr/bin:/bin");
        for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d && !chosen[0];
             d = strtok_r(NULL, ":", &save)) {
            char exe[PATH_MAX];
            snprintf(exe, sizeof exe, "%s/python3", *d ? d : ".");
            if (access(exe, X_OK) == 0 && probe(exe, why, sizeof why) == 0)
                snprintf(chosen, sizeof chosen, "%s", exe);
        }
        if (!chosen[0])
            return sv_fail(SV_EENV, "%s: --python: no python3 on PATH imports numpy; give "
                           "--python-exe PATH (or SPECVERIFY_PYTHON) for the Python that runs "
                           "the sampler", command);
    }
    if (setenv("SV_PYTHON_EXE", chosen, 1) != 0)
        return sv_fail(SV_EENV, "%s: --python: cannot set the environment", command);
    return SV_OK;
}

const char *sv_python_exe(void) { return chosen[0] ? chosen : NULL; }
const char *sv_python_exe_named(void) { return named ? chosen : NULL; }
const char *sv_python_version(void) { return version; }
