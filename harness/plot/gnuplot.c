/* gnuplot.c: what goes into a gnuplot script, and gnuplot run as a program
 * on a script in a folder, so the user can edit the script and re-run it
 * there; its messages go to NAME.log, which is removed when empty.
 *
 * Strings: inside single quotes gnuplot 5 interprets only '' (one quote);
 * double quotes would run `backquoted` commands and read \ escapes, and a
 * line ending in \ continues, so every string a script holds is single-quoted
 * by sv_gp_string and nothing else. File names get "./" as well: gnuplot
 * runs a command for an output named '|cmd' or a data file named '<cmd'. */
#define _GNU_SOURCE /* posix_spawn_file_actions_addfchdir_np (glibc 2.29) */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sv_plot.h"

extern char **environ;

const char *sv_gp_string(const char *text, char *out, size_t len)
{
    size_t o = 0;
    if (len < 3) { /* no room for two quotes and a NUL: an empty string anyway */
        if (len)
            out[0] = '\0';
        return out;
    }
    out[o++] = '\'';
    for (const unsigned char *s = (const unsigned char *)text; *s; s++) {
        const int quote = *s == '\'';
        if (o + (quote ? 2u : 1u) + 2u > len) { /* room left for the closing quote */
            while (o > 1 && ((unsigned char)out[o - 1] & 0xC0) == 0x80)
                o--; /* not half a UTF-8 character either */
            if (o > 1 && ((unsigned char)out[o - 1] & 0xC0) == 0xC0)
                o--;
            break;
        }
        if (quote)
            out[o++] = '\'';
        out[o++] = *s < 0x20 || *s == 0x7F ? '?' : (char)*s; /* a newline would end the line */
    }
    out[o++] = '\'';
    out[o] = '\0';
    return out;
}

const char *sv_gp_file(const char *name, char *out, size_t len)
{
    char local[4200];
    snprintf(local, sizeof local, "./%s", name);
    return sv_gp_string(local, out, len);
}

const char *sv_gp_colour(int i)
{
    /* Okabe and Ito's colours (distinct to colour-blind readers), black, and
     * wine for their yellow, faint on white */
    static const char *const colours[8] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                           "#E69F00", "#56B4E9", "#000000", "#882255"};
    return colours[(i < 0 ? 0 : i) % 8];
}

const char *sv_gp_style(int i, int points, char *out, size_t len)
{
    static const int shapes[7] = {7, 5, 9, 11, 13, 4, 6};
    if (i < 0)
        i = 0;
    int used = snprintf(out, len, "lc rgb '%s' dt %d", sv_gp_colour(i), i % 5 + 1);
    if (points && used >= 0 && (size_t)used < len)
        snprintf(out + used, len - (size_t)used, " pt %d", shapes[i % 7]);
    return out;
}

void sv_gp_terminal(FILE *f, const char *ext, int w, int h, const char *stem)
{
    char name[600], file[SV_GP_QUOTED(700)];
    if (strcmp(ext, "pdf") == 0)
        fprintf(f, "set terminal pdfcairo size %gin,%gin noenhanced font ',11'\n", w / 100.0,
                h / 100.0);
    else
        fprintf(f, "set terminal %s size %d,%d noenhanced font ',11'\n",
                strcmp(ext, "png") == 0 ? "pngcairo" : "svg", w, h);
    snprintf(name, sizeof name, "%s.%s", stem, ext);
    fprintf(f, "set output %s\n", sv_gp_file(name, file, sizeof file));
}

/* The last line of the log that says something: gnuplot's error. */
static void last_line(int fd, char *out, size_t len)
{
    char buf[4096];
    out[0] = '\0';
    off_t size = lseek(fd, 0, SEEK_END);
    off_t from = size > (off_t)sizeof buf - 1 ? size - (off_t)sizeof buf + 1 : 0;
    ssize_t got = pread(fd, buf, sizeof buf - 1, from);
    if (got <= 0)
        return;
    buf[got] = '\0';
    char *end = buf + got;
    while (end > buf && (end[-1] == '\n' || end[-1] == ' '))
        *--end = '\0';
    const char *start = strrchr(buf, '\n');
    start = start ? start + 1 : buf;
    size_t n = strlen(start);
    if (n >= len) /* its end says most: where gnuplot stopped */
        start += n - (len - 1);
    memcpy(out, start, strlen(start) + 1);
}

/* Runs gnuplot ./SCRIPT in the folder dirfd with stdout and stderr on log_fd
 * (stdin empty); *status as waitpid's. 0, or posix_spawnp's error: ENOENT
 * when there is no gnuplot on PATH (glibc reports a failed exec this way). */
static int spawn_gnuplot(int dirfd, int log_fd, const char *script, int *status)
{
    char arg[4200];
    snprintf(arg, sizeof arg, "./%s", script); /* never an option, nor '-' */
    char *argv[] = {"gnuplot", arg, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    sigset_t none, reset;
    sigemptyset(&none);
    sigemptyset(&reset);
    sigaddset(&reset, SIGPIPE);
    sigaddset(&reset, SIGINT);
    sigaddset(&reset, SIGTERM);
    int err = posix_spawn_file_actions_init(&fa);
    if (err)
        return err;
    if ((err = posix_spawnattr_init(&attr))) {
        posix_spawn_file_actions_destroy(&fa);
        return err;
    }
    err = posix_spawn_file_actions_addfchdir_np(&fa, dirfd);
    if (!err)
        err = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (!err)
        err = posix_spawn_file_actions_adddup2(&fa, log_fd, 1);
    if (!err)
        err = posix_spawn_file_actions_adddup2(&fa, log_fd, 2);
    /* the child starts with no signal blocked and default SIGINT, SIGTERM, SIGPIPE */
    if (!err)
        err = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    if (!err)
        err = posix_spawnattr_setsigmask(&attr, &none);
    if (!err)
        err = posix_spawnattr_setsigdefault(&attr, &reset);
    pid_t pid = 0;
    if (!err)
        err = posix_spawnp(&pid, "gnuplot", &fa, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    while (!err && waitpid(pid, status, 0) < 0)
        if (errno != EINTR)
            err = errno;
    return err;
}

int sv_gnuplot_run(const char *dir, const char *script, char *note, size_t note_len)
{
    char log[4200];
    note[0] = '\0';
    const char *dot = strrchr(script, '.');
    snprintf(log, sizeof log, "%.*s.log", dot ? (int)(dot - script) : (int)strlen(script),
             script);
    int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int log_fd = dirfd < 0 ? -1
                           : openat(dirfd, log, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (log_fd < 0) {
        snprintf(note, note_len, "plots not drawn: cannot write %s/%s: %s", dir, log,
                 strerror(errno));
        if (dirfd >= 0)
            close(dirfd);
        return SV_EENV;
    }
    int status = 0;
    int err = spawn_gnuplot(dirfd, log_fd, script, &status);
    int rc = SV_OK;
    if (err == ENOENT) {
        snprintf(note, note_len, "plots not drawn: gnuplot is not installed (Debian: apt-get "
                 "install gnuplot-nox); the data and %s/%s are written", dir, script);
    } else if (err) {
        snprintf(note, note_len, "plots not drawn: cannot run gnuplot: %s; the data and %s/%s "
                 "are written", strerror(err), dir, script);
        rc = SV_EENV;
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char said[512];
        last_line(log_fd, said, sizeof said);
        snprintf(note, note_len, "plots not drawn: gnuplot %s %d on %s/%s: %s (all it said is "
                 "in %s/%s)", WIFEXITED(status) ? "exited with" : "was killed by signal",
                 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), dir, script,
                 said[0] ? said : "no message", dir, log);
        rc = SV_EENV;
    }
    const int empty = lseek(log_fd, 0, SEEK_END) == 0; /* gnuplot said nothing: no log to keep */
    close(log_fd);
    if (empty)
        (void)unlinkat(dirfd, log, 0); /* one left behind would be harmless */
    close(dirfd);
    return rc;
}

int sv_gnuplot_status(int rc_so_far, int plot_rc, const char *note)
{
    if (plot_rc != SV_OK && rc_so_far == SV_OK && note[0])
        return sv_fail(plot_rc, "%s", note); /* the command's error: main says it */
    if (note[0])
        fprintf(stderr, "specverify: %s\n", note);
    return plot_rc;
}
