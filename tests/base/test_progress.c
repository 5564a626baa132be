/* test_progress.c: the progress line's time left reads as a time, and none
 * is guessed before the rate is measured (issue 23: "122217830 s left"). */
#include <string.h>
#include "check.h"
#include "sv_base.h"

static int says(const char *got, const char *want)
{
    if (strcmp(got, want) == 0)
        return 1;
    fprintf(stderr, "  got '%s', wanted '%s'\n", got, want);
    return 0;
}

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

int main(void)
{
    test_durations();
    test_time_left();
    return check_exit();
}
