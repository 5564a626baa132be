/* test_progress.c: the progress line's time left reads as a time, and none
 * is guessed before the rate is measured (issue 23: "122217830 s left"); it
 * is the whole run's, not the current group's, and a notice during a run
 * starts on a line of its own, not glued to the line drawn in place (issue 39). */
#define _XOPEN_SOURCE 700
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "sv_base.h"

static void test_durations(void)
{
    char s[64];
    const struct {
        double seconds;
        const char *text;
    } table[] = {
        {0.4, "under 1 s"},          {45.7, "45 s"},
        {245.0, "4 min 05 s"},       {3599.9, "59 min 59 s"},
        {7500.0, "2 h 05 min"},      {3 * 86400.0 + 4 * 3600.0 + 5.0, "3 days 4 h"},
        {122217830.0, "over 100 days"}, {-1.0, "unknown"},
        {NAN, "unknown"},            {INFINITY, "unknown"},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        sv_format_duration(table[i].seconds, s, sizeof s);
        CHECK(says(s, table[i].text));
    }
    feature("durations in s, min, h and days, and 'unknown' for what is not a time");
}

static void test_time_left(void)
{
    char s[64];
    sv_progress_left(0, 1000000, 5.0, s, sizeof s); /* nothing done yet */
    CHECK(says(s, "time left unknown"));
    sv_progress_left(4096, 500000000000ull, 0.25, s, sizeof s); /* one batch in */
    CHECK(says(s, "time left unknown"));
    sv_progress_left(1000000, 2000000, 0.5, s, sizeof s); /* half done: measured */
    CHECK(says(s, "under 1 s left"));
    sv_progress_left(100000, 1100000, 3.0, s, sizeof s);
    CHECK(says(s, "30 s left"));
    sv_progress_left(1000000, 61000000, 2.0, s, sizeof s);
    CHECK(says(s, "2 min 00 s left"));
    sv_progress_left(4096, 500000000000ull, 100.0, s, sizeof s);
    CHECK(says(s, "over 100 days left"));
    sv_progress_left(10, 10, 1.0, s, sizeof s);
    CHECK(says(s, "done"));
    feature("time left: unknown until 2 s or 5% of the work is measured");
}

static void test_whole_run_left(void)
{
    char s[64];
    /* the first group of ten: 50,000 of its 100,000 draws in 10 s; the run
     * plans 1,000,000: 950,000 left at 5,000 a second, not the group's 50,000 */
    sv_progress_run_left(0, 1000000, 50000, 100000, 10.0, s, sizeof s);
    CHECK(says(s, "3 min 10 s left"));
    /* the sixth group: 500,000 drawn before, 50,000 of this one's 100,000,
     * 110 s since the run began: 450,000 left at 5,000 a second */
    sv_progress_run_left(500000, 1000000, 50000, 100000, 110.0, s, sizeof s);
    CHECK(says(s, "1 min 30 s left"));
    /* a re-run past the plan: never less left than the group's own rest */
    sv_progress_run_left(1000000, 1000000, 100000, 400000, 220.0, s, sizeof s);
    CHECK(says(s, "1 min 00 s left"));
    sv_progress_run_left(0, 1000000, 10000, 100000, 0.5, s, sizeof s); /* 1%, 0.5 s */
    CHECK(says(s, "time left unknown"));
    sv_progress_run_left(900000, 1000000, 100000, 100000, 50.0, s, sizeof s);
    CHECK(says(s, "done"));
    feature("time left: the whole run's planned draws, not the current group's");
}

/* Everything written to stderr while fn runs with stderr on a terminal (a
 * pty), into out; 0 if it ran. */
static int on_terminal(void (*fn)(void), char *out, size_t len)
{
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0)
        return -1;
    int slave = open(ptsname(master), O_RDWR | O_NOCTTY);
    int saved = dup(STDERR_FILENO);
    if (slave < 0 || saved < 0)
        return -1;
    fflush(stderr);
    dup2(slave, STDERR_FILENO);
    fn();
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    size_t used = 0;
    struct pollfd pfd = {master, POLLIN, 0};
    while (used + 1 < len && poll(&pfd, 1, 200) > 0) {
        ssize_t n = read(master, out + used, len - 1 - used);
        if (n <= 0)
            break;
        used += (size_t)n;
    }
    out[used] = '\0';
    close(slave);
    close(master);
    return 0;
}

static void a_notice_mid_run(void)
{
    sv_progress p;
    sv_progress_start(&p, 1, "[1/1] zipf:V=50,K=2", 4000);
    p.last -= 1.0; /* the line is due */
    sv_progress_update(&p, 1000);
    sv_progress_break();
    fprintf(stderr, "specverify: SIGINT: waiting\n");
    sv_progress_break(); /* no line showing: nothing more */
    fprintf(stderr, "specverify: second\n");
    sv_progress_end(&p);
}

static void test_notice_on_its_own_line(void)
{
    char got[1024];
    if (on_terminal(a_notice_mid_run, got, sizeof got) != 0) {
        feature("(skipped: no pty for the notice's line)");
        return;
    }
    const char *line = strstr(got, "[1/1] zipf:V=50,K=2: 1000/4000 draws (25%)");
    const char *notice = strstr(got, "specverify: SIGINT: waiting");
    CHECK(line != NULL && notice != NULL && line < notice);
    if (notice) /* the terminal writes a newline as \r\n */
        CHECK(notice - got >= 2 && notice[-1] == '\n' && notice[-2] == '\r');
    const char *second = strstr(got, "specverify: second");
    /* with no line showing, a break writes nothing: no blank line */
    CHECK(second && second - got >= 3 && second[-1] == '\n' && second[-2] == '\r' &&
          second[-3] == 'g');
    if (!notice || notice[-1] != '\n')
        fprintf(stderr, "  got '%s'\n", got);
    feature("a notice during a run starts a line of its own, after the progress line");
}

int main(void)
{
    test_durations();
    test_time_left();
    test_whole_run_left();
    test_notice_on_its_own_line();
    return check_exit();
}
