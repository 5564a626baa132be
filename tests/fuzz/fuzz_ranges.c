/* fuzz_ranges.c: libFuzzer target for the command line's number and list
 * parsers (harness/args.c) and sweep's list-or-range axes (--T FROM:TO:N,
 * --K, --c; static in cmd_sweep.c, so driven through `sweep` with --B and
 * no --target-us, which stops the command right after the axes parse).
 * The first byte picks the parser: u (sv_parse_u64), d (sv_parse_double),
 * l (sv_split_list), T, K or c (a sweep axis); the rest is the text.
 * Besides what the sanitizers catch, it asserts each parser's contract:
 * a number accepted is written in decimal with nothing around it (no
 * space, hex, inf or nan), one strtod cannot hold is "out of range", never
 * "not a number", and whole bounds print as integers; a list accepted is
 * its items joined by single commas (no empty item dropped). */
#include <errno.h>
#include <math.h>
#include "fuzz.h"
#include "sv_base.h"
#include "sv_cli.h"

/* Only the characters of a decimal number, starting and ending as one. */
static int decimal_text(const char *text)
{
    const size_t n = strlen(text);
    if (n == 0 || strspn(text, "0123456789.+-eE") != n)
        return 0;
    return strchr("0123456789.+-", text[0]) && strchr("0123456789.", text[n - 1]);
}

/* strtod reads all of text as a number too large or too near 0. */
static int beyond_double(const char *text)
{
    char *end;
    errno = 0;
    (void)strtod(text, &end);
    return decimal_text(text) && *end == '\0' && errno == ERANGE;
}

static void check_refusal(const char *parser, const char *text)
{
    const char *msg = sv_error_message();
    if (beyond_double(text) && !strstr(msg, "out of range"))
        fuzz_die("%s('%s'): beyond a double, but the message is '%s'", parser, text, msg);
    /* every bound here is a whole number. The bounds close the message, as
     * "[lo, hi]" or "(lo, hi)"; the text before them, which the message
     * repeats (quoted or not, cut short when long), may hold anything. */
    const size_t len = strlen(msg);
    const char *bounds = NULL;
    if (len && (msg[len - 1] == ']' || msg[len - 1] == ')')) {
        const char *sq = strrchr(msg, '['), *rb = strrchr(msg, '(');
        bounds = !sq ? rb : !rb ? sq : sq > rb ? sq : rb; /* the last opened */
    }
    if (bounds && (strstr(bounds, "e+0") || strstr(bounds, "e+1")))
        fuzz_die("%s('%s'): a bound not printed as an integer: '%s'", parser, text, msg);
}

static void check_u64(const char *text)
{
    static const uint64_t ranges[][2] = {{1, 1ull << 40}, {0, UINT64_MAX}};
    for (int r = 0; r < 2; r++) {
        uint64_t v = 0;
        if (sv_parse_u64("--n", text, ranges[r][0], ranges[r][1], &v) != SV_OK) {
            if (strncmp(sv_error_message(), "--n: ", 5) != 0)
                fuzz_die("sv_parse_u64('%s'): message '%s'", text, sv_error_message());
            check_refusal("sv_parse_u64", text);
            continue;
        }
        if (!decimal_text(text))
            fuzz_die("sv_parse_u64('%s'): accepted, but not written in decimal", text);
        if (v < ranges[r][0] || v > ranges[r][1])
            fuzz_die("sv_parse_u64('%s'): %llu outside its range", text, (unsigned long long)v);
        const double d = strtod(text, NULL);
        if (d < 9007199254740992.0 && (double)v != d) /* below 2^53 doubles are exact */
            fuzz_die("sv_parse_u64('%s'): %llu, strtod says %.17g", text,
                     (unsigned long long)v, d);
    }
}

static void check_double(const char *text)
{
    static const struct { double min, max; int open; } ranges[] = {
        {0, 1, 1}, {0, 100, 0}, {1, 16777216, 0}};
    for (int r = 0; r < 3; r++) {
        double v = NAN;
        if (sv_parse_double("--x", text, ranges[r].min, ranges[r].max, ranges[r].open, &v) !=
            SV_OK) {
            if (strncmp(sv_error_message(), "--x: ", 5) != 0)
                fuzz_die("sv_parse_double('%s'): message '%s'", text, sv_error_message());
            check_refusal("sv_parse_double", text);
            continue;
        }
        if (!decimal_text(text))
            fuzz_die("sv_parse_double('%s'): accepted, but not written in decimal", text);
        const int inside = ranges[r].open ? v > ranges[r].min && v < ranges[r].max
                                          : v >= ranges[r].min && v <= ranges[r].max;
        if (!inside)
            fuzz_die("sv_parse_double('%s'): %.17g outside its range", text, v);
    }
}

/* An accepted list is the text's comma-separated items, none lost, cut or
 * empty: joined by single commas they are the text. */
static void check_list(const char *text)
{
    enum { MAX = 64 };
    static char items[MAX][SV_LIST_ITEM];
    int n = -1;
    if (sv_split_list("--l", text, items, MAX, &n) != SV_OK) {
        if (strncmp(sv_error_message(), "--l: ", 5) != 0)
            fuzz_die("sv_split_list('%s'): message '%s'", text, sv_error_message());
        return;
    }
    if (n < 1 || n > MAX)
        fuzz_die("sv_split_list('%s'): %d items", text, n);
    const char *rest = text;
    for (int i = 0; i < n; i++) {
        const size_t len = strlen(items[i]);
        if (len == 0 || len >= SV_LIST_ITEM || strchr(items[i], ','))
            fuzz_die("sv_split_list('%s'): item %d is '%s'", text, i, items[i]);
        if (i > 0 && *rest++ != ',')
            fuzz_die("sv_split_list('%s'): item %d does not follow one comma", text, i);
        if (strncmp(rest, items[i], len) != 0 || (rest[len] != ',' && rest[len] != '\0'))
            fuzz_die("sv_split_list('%s'): item %d '%s' is not the text's", text, i, items[i]);
        rest += len;
    }
    if (*rest != '\0')
        fuzz_die("sv_split_list('%s'): text after the last item was dropped", text);
}

/* sweep's axes: refused with a message naming the flag, or accepted (the
 * command then stops at --B); it must never get further. */
static void check_axis(char axis, const char *text)
{
    char flag[4] = {'-', '-', axis, '\0'};
    char *argv[] = {"sweep", "--case", "identical:V=2,K=1", flag, (char *)text, "--B", "1",
                    NULL};
    const int rc = sv_cmd_sweep(7, argv);
    const char *msg = sv_error_message();
    if (rc != SV_EBAD)
        fuzz_die("sweep %s '%s': status %d, want 2 (%s)", flag, text, rc, msg);
    if (strncmp(msg, flag, 3) != 0 && strncmp(msg, "--B needs --target-us", 21) != 0)
        fuzz_die("sweep %s '%s': message '%s'", flag, text, msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    char *text = fuzz_string(data + 1, size - 1);
    switch (data[0]) {
    case 'u': check_u64(text); break;
    case 'd': check_double(text); break;
    case 'l': check_list(text); break;
    case 'T': case 'K': case 'c': check_axis((char)data[0], text); break;
    default: break; /* not a parser: nothing to do */
    }
    free(text);
    return 0;
}
