/* test_gnuplot.c: strings into gnuplot scripts (sv_gp_string, sv_gp_file)
 * and gnuplot run without a shell (sv_gnuplot_run). With gnuplot installed,
 * every hostile string is printed back by gnuplot itself, byte for byte,
 * and the commands hidden in them never run; gnuplot's failures and its
 * absence are told apart. Exit 77 (skipped) where gnuplot is missing, after
 * the checks that need none. argv[1]: a scratch folder. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"
#include "sv_base.h"
#include "sv_plot.h"

/* The hostile strings: each would run `touch PWNED` if it escaped its quotes. */
static const char *const hostile[] = {
    "x' ; system('touch PWNED') ; print '",     /* a single quote, then system() */
    "d\" . system(\"touch PWNED\") . \"",      /* double quotes */
    "b`touch PWNED`q",                          /* backquotes: run inside "..." */
    "n\nsystem('touch PWNED')\nprint 'x",       /* newlines: a line of its own */
    "e\\'; system('touch PWNED'); print '\\",   /* backslashes, one at the end */
    "s;touch PWNED;y",                          /* ';' for a shell */
    "$(touch PWNED) @PWNED %s %n",              /* a shell's $(), a macro, formats */
    "|touch PWNED",                             /* an output to a pipe */
    "<touch PWNED; echo 1 2",                   /* a data file from a pipe */
};

/* What gnuplot should print back: control characters as '?'. */
static void expected(const char *s, char *out, size_t len)
{
    size_t i = 0;
    for (; s[i] && i + 1 < len; i++)
        out[i] = (unsigned char)s[i] < 0x20 ? '?' : s[i];
    out[i] = '\0';
}

/* n bytes of s end on a character's end (no lead byte without all its followers). */
static int whole_utf8(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        const unsigned char c = (unsigned char)s[i];
        const size_t len = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
        if (i + len > n)
            return 0;
        i += len;
    }
    return 1;
}

static void check_quoting(void)
{
    char q[256];
    CHECK(strcmp(sv_gp_string("a'b", q, sizeof q), "'a''b'") == 0);
    CHECK(strcmp(sv_gp_string("", q, sizeof q), "''") == 0);
    CHECK(strcmp(sv_gp_string("x\ny\r\t\x7f", q, sizeof q), "'x?y??" "?'") == 0);
    CHECK(strcmp(sv_gp_string("a\\", q, sizeof q), "'a\\'") == 0); /* no escapes in '...' */
    CHECK(strcmp(sv_gp_file("|cmd", q, sizeof q), "'./|cmd'") == 0);
    CHECK(strcmp(sv_gp_file("it's", q, sizeof q), "'./it''s'") == 0);
    /* cut short anywhere: still one balanced string, no half quote pair, no
     * half UTF-8 character */
    const char *text = "ab''c\xc3\xa9'\xe2\x82\xac'";
    for (size_t len = 3; len < 2 * strlen(text) + 3; len++) {
        sv_gp_string(text, q, len);
        size_t n = strlen(q);
        CHECK(n < len && n >= 2 && q[0] == '\'' && q[n - 1] == '\'');
        size_t quotes = 0;
        for (size_t i = 1; i + 1 < n; i++)
            quotes += q[i] == '\'';
        CHECK(quotes % 2 == 0);
        CHECK(whole_utf8(q + 1, n - 2));
    }
    CHECK(strcmp(sv_gp_string("abc", q, 2), "") == 0);
    feature("sv_gp_string: single quotes doubled, control characters replaced, cut balanced");
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* A folder with a quote, a space and a semicolon in its name: it must just work. */
static void make_dir(const char *root, char *dir, size_t len)
{
    snprintf(dir, len, "%s/it's a; dir", root);
    mkdir(root, 0777);
    mkdir(dir, 0777);
}

static int write_script(const char *dir, const char *name, const char *body)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(body, f);
    return fclose(f);
}

/* Each hostile string printed by gnuplot (to the log) and read back. */
static int check_round_trip(const char *root, const char *dir)
{
    char body[8192] = "", q[1024], note[2048], path[4200], pwned[4200];
    for (size_t i = 0; i < sizeof hostile / sizeof *hostile; i++) {
        strcat(body, "print ");
        strcat(body, sv_gp_string(hostile[i], q, sizeof q));
        strcat(body, "\n");
    }
    CHECK(write_script(dir, "echo.gp", body) == 0);
    int rc = sv_gnuplot_run(dir, "echo.gp", note, sizeof note);
    if (rc == SV_OK && strstr(note, "not installed")) {
        printf("SKIP: gnuplot is not installed: %s\n", note);
        return 77;
    }
    CHECK(rc == SV_OK && note[0] == '\0');
    snprintf(path, sizeof path, "%s/echo.log", dir);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    for (size_t i = 0; f && i < sizeof hostile / sizeof *hostile; i++) {
        char line[1024], want[1024];
        expected(hostile[i], want, sizeof want);
        strcat(want, "\n");
        CHECK(fgets(line, sizeof line, f) && strcmp(line, want) == 0);
    }
    if (f)
        fclose(f);
    snprintf(pwned, sizeof pwned, "%s/PWNED", dir);
    CHECK(!exists(pwned));
    snprintf(pwned, sizeof pwned, "%s/PWNED", root);
    CHECK(!exists(pwned) && !exists("PWNED"));
    feature("gnuplot prints each hostile string back as it was and runs none of them");

    /* a script gnuplot refuses: SV_EENV, the note names the script, the log
     * and gnuplot's own message; the log is kept */
    CHECK(write_script(dir, "bad.gp", "set title 'the case's T'\n") == 0);
    rc = sv_gnuplot_run(dir, "bad.gp", note, sizeof note);
    CHECK(rc == SV_EENV);
    CHECK(strstr(note, "gnuplot exited with") && strstr(note, "bad.gp") &&
          strstr(note, "bad.log") && strstr(note, "line 1"));
    snprintf(path, sizeof path, "%s/bad.log", dir);
    CHECK(exists(path));
    /* one that succeeds silently leaves no log */
    CHECK(write_script(dir, "quiet.gp", "x = 1\n") == 0);
    CHECK(sv_gnuplot_run(dir, "quiet.gp", note, sizeof note) == SV_OK && !note[0]);
    snprintf(path, sizeof path, "%s/quiet.log", dir);
    CHECK(!exists(path));
    feature("a script gnuplot refuses is SV_EENV with its message; a silent one leaves no log");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_gnuplot SCRATCH_DIR\n");
        return 2;
    }
    char dir[4096], note[2048];
    make_dir(argv[1], dir, sizeof dir);
    check_quoting();

    /* no gnuplot on PATH: SV_OK, a note saying how to install it, no log */
    const char *path = getenv("PATH");
    char *saved = strdup(path ? path : "/usr/bin:/bin");
    setenv("PATH", "/nonexistent", 1);
    CHECK(write_script(dir, "none.gp", "x = 1\n") == 0);
    CHECK(sv_gnuplot_run(dir, "none.gp", note, sizeof note) == SV_OK);
    CHECK(strstr(note, "gnuplot is not installed (Debian: apt-get install gnuplot-nox)"));
    setenv("PATH", saved, 1);
    free(saved);
    char log[4200];
    snprintf(log, sizeof log, "%s/none.log", dir);
    CHECK(!exists(log));
    /* a folder that is not there: SV_EENV naming it */
    CHECK(sv_gnuplot_run("/nonexistent/dir", "none.gp", note, sizeof note) == SV_EENV);
    CHECK(strstr(note, "/nonexistent/dir") != NULL);
    feature("without gnuplot: a note and SV_OK; without the folder: SV_EENV");

    int skipped = check_round_trip(argv[1], dir);
    if (check_exit() != 0)
        return 1;
    return skipped;
}
