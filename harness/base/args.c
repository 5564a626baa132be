/* args.c: numbers and comma lists from the command line, in the one syntax
 * of sv_syntax.h, with errors that name the flag. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sv_base.h"
#include "sv_syntax.h"

int sv_parse_u64(const char *flag, const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
    double v = 0.0;
    const int read = sv_number_read(text, &v); /* 1e6 as well as 1000000 */
    if (read == SV_NUMBER_SYNTAX)
        return sv_fail(SV_EBAD, "%s: '%s' is not a whole number", flag, text);
    if (read == SV_NUMBER_TINY)
        return sv_fail(SV_EBAD, "%s: %s is out of range: nearer 0 than a double holds (%g)",
                       flag, text, DBL_MIN);
    if (read == SV_NUMBER_HUGE || v < (double)min || v > (double)max)
        return sv_fail(SV_EBAD, "%s: %s is out of range [%llu, %llu]", flag, text,
                       (unsigned long long)min, (unsigned long long)max);
    if (v != floor(v))
        return sv_fail(SV_EBAD, "%s: '%s' is not a whole number", flag, text);
    if (v >= 9007199254740992.0) { /* beyond 2^53 a double is not exact: the digits are */
        char *end;
        errno = 0;
        unsigned long long u = strtoull(text, &end, 10);
        if (*end != '\0' || errno == ERANGE || u < min || u > max)
            return sv_fail(SV_EBAD, "%s: %s is beyond 2^53: write it as digits in [%llu, %llu]",
                           flag, text, (unsigned long long)min, (unsigned long long)max);
        *out = u;
        return SV_OK;
    }
    *out = (uint64_t)v;
    return SV_OK;
}

int sv_parse_double(const char *flag, const char *text, double min, double max, int open,
                    double *out)
{
    double v = 0.0;
    const int read = sv_number_read(text, &v);
    if (read == SV_NUMBER_SYNTAX)
        return sv_fail(SV_EBAD, "%s: '%s' is not a number", flag, text);
    if (read == SV_NUMBER_TINY)
        return sv_fail(SV_EBAD, "%s: %s is out of range: nearer 0 than a double holds (%g)",
                       flag, text, DBL_MIN);
    int inside = open ? (v > min && v < max) : (v >= min && v <= max);
    if (read == SV_NUMBER_HUGE || !inside)
        return sv_fail(SV_EBAD, "%s: %s is %s %s%s, %s%s", flag, text,
                       read == SV_NUMBER_HUGE ? "out of range" : "outside", open ? "(" : "[",
                       sv_number_show(min).s, sv_number_show(max).s, open ? ")" : "]");
    *out = v;
    return SV_OK;
}

int sv_split_list(const char *flag, const char *text, char (*items)[SV_LIST_ITEM], int max, int *n)
{
    char buf[2048];
    *n = 0;
    if ((size_t)snprintf(buf, sizeof buf, "%s", text) >= sizeof buf) /* never cut silently */
        return sv_fail(SV_EBAD, "%s: the list is longer than %zu characters", flag,
                       sizeof buf - 1);
    if (!buf[0])
        return sv_fail(SV_EBAD, "%s: '' has no values", flag);
    char *cursor = buf;
    for (char *t = sv_list_next(&cursor); t; t = sv_list_next(&cursor)) {
        if (!*t) /* "1,,2" or a comma first or last: a value lost, not one fewer */
            return sv_fail(SV_EBAD, "%s: '%s': item %d is empty", flag, text, *n + 1);
        if (*n == max)
            return sv_fail(SV_EBAD, "%s: more than %d values", flag, max);
        if (strlen(t) >= SV_LIST_ITEM)
            return sv_fail(SV_EBAD, "%s: '%.40s...' is too long", flag, t);
        snprintf(items[(*n)++], SV_LIST_ITEM, "%s", t);
    }
    return SV_OK;
}
