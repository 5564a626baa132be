/* run_exec.c: an experiment's runs as processes: their output folders, each
 * run checked by its command before the first starts (`specverify
 * preflight`), then each run, this program again (/proc/self/exe), so that
 * runs share no state and a crash names its run. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "experiment.h"
#include "sv_input.h"
#include "sv_store.h"

/* mkdir -p of the folder that holds path (its text up to the last '/'). */
static int make_parent(const char *path)
{
    char dir[MAX_TEXT];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        return SV_OK;
    *slash = '\0';
    for (char *p = dir + 1; ; p++) {
        const int end = *p == '\0';
        if (*p == '/' || end) {
            *p = '\0';
            if (dir[0] && mkdir(dir, 0777) != 0 && errno != EEXIST)
                return sv_fail(SV_EBAD, "run: cannot create folder %s: %s", dir, strerror(errno));
            if (end)
                break;
            *p = '/';
        }
    }
    return SV_OK;
}

/* Runs one: this program again, with the run's words (preflight: under
 * `specverify preflight`, its stdout dropped). Returns its exit status, or
 * -1 with *signal set when a signal killed it, or -2 with a message when it
 * could not be started or waited for. */
int experiment_run_one(const run_spec *r, int preflight, int *signal)
{
    char *argv[MAX_RUN_ARGS + 4];
    int n = 0;
    argv[n++] = "specverify";
    if (preflight)
        argv[n++] = "preflight";
    argv[n++] = (char *)r->command;
    for (int i = 0; i < r->argc; i++)
        argv[n++] = r->argv[i];
    argv[n] = NULL;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        sv_fail(SV_EENV, "run %s: cannot start a process: %s", r->name, strerror(errno));
        return -2;
    }
    if (pid == 0) {
        if (preflight && !freopen("/dev/null", "w", stdout))
            _exit(SV_EENV);
        execv("/proc/self/exe", argv);
        fprintf(stderr, "specverify run: cannot run /proc/self/exe: %s\n", strerror(errno));
        _exit(SV_EENV);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            sv_fail(SV_EENV, "run %s: waitpid: %s", r->name, strerror(errno));
            return -2;
        }
    }
    if (WIFSIGNALED(status)) {
        *signal = WTERMSIG(status);
        return -1;
    }
    return WEXITSTATUS(status);
}

/* Whether argv[j] is an output flag (out, json, junit, plot), its path
 * argv[j + 1]. */
static int output_at(const run_spec *r, int j)
{
    return j + 1 < r->argc && strncmp(r->argv[j], "--", 2) == 0 &&
           experiment_is_output(r->argv[j] + 2);
}

/* The command as the file gives it, each word escaped (the file's text). */
void experiment_print_command(FILE *out, const run_spec *r)
{
    char word[4 * MAX_TEXT + 1];
    fprintf(out, "specverify %s", r->command);
    for (int i = 0; i < r->argc; i++)
        fprintf(out, strpbrk(r->argv[i], " \t'\"") ? " '%s'" : " %s",
                sv_escaped(word, sizeof word, r->argv[i]));
    fprintf(out, "\n");
}

/* An output under the root can still leave it through a link on the way
 * (a folder under the root that links elsewhere): each output's real path,
 * links followed, must lie under the root's, checked before anything runs. */
int experiment_outputs_inside(const experiment *x, const char *only)
{
    char root[PATH_MAX], real[PATH_MAX];
    if (sv_real_path(x->out_root, root, sizeof root) != 0)
        return sv_fail(SV_EBAD, "run: --out-root %s: %s", x->out_root, strerror(errno));
    const size_t n = strlen(root);
    for (int i = 0; i < x->n_runs; i++) {
        const run_spec *r = &x->runs[i];
        if (only && strcmp(only, r->name) != 0)
            continue;
        for (int j = 0; j + 1 < r->argc; j++) {
            if (!output_at(r, j))
                continue;
            const char *path = r->argv[j + 1];
            if (sv_real_path(path, real, sizeof real) != 0)
                return sv_fail(SV_EBAD, "%s: [run %s]: %s %s: %s", x->path, r->name,
                               r->argv[j], path, strerror(errno));
            if (strncmp(real, root, n) != 0 ||
                (root[n - 1] != '/' && real[n] != '/' && real[n] != '\0'))
                return sv_fail(SV_EBAD, "%s: [run %s]: %s %s really leads to %s, outside "
                               "--out-root %s (%s): a link on the way leaves it", x->path,
                               r->name, r->argv[j], path, real, x->out_root, root);
        }
    }
    return SV_OK;
}

/* The folders each selected run's outputs go to, made as the run would. */
int experiment_make_folders(const experiment *x, const char *only)
{
    int rc = SV_OK;
    for (int i = 0; rc == SV_OK && i < x->n_runs; i++) {
        const run_spec *r = &x->runs[i];
        if (only && strcmp(only, r->name) != 0)
            continue;
        for (int j = 0; rc == SV_OK && j + 1 < r->argc; j++)
            if (output_at(r, j))
                rc = make_parent(r->argv[j + 1]);
    }
    return rc;
}

/* Every selected run checked by its own command (`specverify preflight`)
 * before the first starts: a value a command refuses (a T its case cannot
 * take, a suite that is not one, a missing recording, no device) stops the
 * experiment with nothing run, naming the run; the command's own message
 * says what and where. */
int experiment_preflight(const experiment *x, const char *only)
{
    for (int i = 0; i < x->n_runs; i++) {
        const run_spec *r = &x->runs[i];
        if (only && strcmp(only, r->name) != 0)
            continue;
        int signal = 0, status = experiment_run_one(r, 1, &signal);
        if (status == -2)
            return SV_EENV;
        if (status == -1)
            return sv_fail(SV_EENV, "%s: [run %s]: specverify preflight %s was killed by "
                           "signal %d (%s); nothing ran", x->path, r->name, r->command, signal,
                           strsignal(signal));
        if (status == SV_EBAD)
            return sv_fail(SV_EBAD, "%s: [run %s]: specverify %s refused its arguments "
                           "(above); nothing ran", x->path, r->name, r->command);
        if (status != SV_OK)
            return sv_fail(SV_EENV, "%s: [run %s]: specverify %s cannot run here (above, exit "
                           "status %d); nothing ran", x->path, r->name, r->command, status);
    }
    return SV_OK;
}
