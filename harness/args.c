/* args.c: numbers from the command line, with errors that name the flag. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sv_harness.h"

int sv_parse_u64(const char *flag, const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end); /* accepts 1e6 as well as 1000000 */
    if (end == text || *end != '\0' || errno == ERANGE || !isfinite(v) || v != floor(v))
        return sv_fail(SV_EBAD, "%s: '%s' is not a whole number", flag, text);
    if (v < (double)min || v > (double)max)
        return sv_fail(SV_EBAD, "%s: %s is out of range [%llu, %llu]", flag, text,
                       (unsigned long long)min, (unsigned long long)max);
    if (v >= 9007199254740992.0) { /* beyond 2^53 parse exactly */
        errno = 0;
        unsigned long long u = strtoull(text, &end, 10);
        if (*end != '\0' || errno == ERANGE)
            return sv_fail(SV_EBAD, "%s: '%s' is not a whole number", flag, text);
        *out = u;
        return SV_OK;
    }
    *out = (uint64_t)v;
    return SV_OK;
}

int sv_parse_double(const char *flag, const char *text, double min, double max, int open,
                    double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !isfinite(v))
        return sv_fail(SV_EBAD, "%s: '%s' is not a number", flag, text);
    int inside = open ? (v > min && v < max) : (v >= min && v <= max);
    if (!inside)
        return sv_fail(SV_EBAD, "%s: %s is outside %s%g, %g%s", flag, text, open ? "(" : "[",
                       min, max, open ? ")" : "]");
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
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (*n == max)
            return sv_fail(SV_EBAD, "%s: more than %d values", flag, max);
        if (strlen(t) >= SV_LIST_ITEM)
            return sv_fail(SV_EBAD, "%s: '%.40s...' is too long", flag, t);
        snprintf(items[(*n)++], SV_LIST_ITEM, "%s", t);
    }
    return *n ? SV_OK : sv_fail(SV_EBAD, "%s: '%s' has no values", flag, text);
}
