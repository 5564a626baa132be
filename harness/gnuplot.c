/* gnuplot.c: run gnuplot as a program on a script in a folder, so the user
 * can edit the script and re-run it there; its messages go to NAME.log,
 * which is removed when empty. */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include "sv_harness.h"

int sv_gnuplot_run(const char *dir, const char *script, char *note, size_t note_len)
{
    char log[4200], cmd[8600];
    note[0] = '\0';
    snprintf(log, sizeof log, "%.*s.log", (int)(strcspn(script, ".")), script);
    if (strchr(dir, '\'')) {
        snprintf(note, note_len, "plots not drawn: the folder name has a quote; run "
                 "'gnuplot %s' in %s", script, dir);
        return -1;
    }
    snprintf(cmd, sizeof cmd, "cd '%s' && gnuplot %s > %s 2>&1", dir, script, log);
    /* a shell for the cd and the redirections; dir is quoted and holds no quote */
    int status = system(cmd); /* NOLINT(cert-env33-c) */
    if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) == 127) {
        snprintf(note, note_len, "plots not drawn: gnuplot is not installed (Debian: apt-get "
                 "install gnuplot-nox); the data and %s/%s are written", dir, script);
        return -1;
    }
    snprintf(cmd, sizeof cmd, "%s/%s", dir, log);
    if (WEXITSTATUS(status) != 0) {
        snprintf(note, note_len, "plots not drawn: gnuplot failed, see %s", cmd);
        return -1;
    }
    FILE *f = fopen(cmd, "r"); /* gnuplot said nothing: no log to keep */
    int empty = f && fgetc(f) == EOF;
    if (f)
        fclose(f);
    if (empty)
        remove(cmd);
    return 0;
}
