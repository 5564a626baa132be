/* syntax.c: numbers and comma lists, read one way everywhere. strtod alone
 * reads " 5", "0x10", "inf" and "nan", and strtok skips empty list items:
 * a typo must be refused, not read as something else. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sv_syntax.h"

static int digit(char c)
{
    return c >= '0' && c <= '9';
}

/* [+-]? digits* ('.' digits*)? ([eE] [+-]? digits+)?, one digit at least
 * before the exponent. */
static int decimal(const char *t)
{
    size_t digits = 0;
    if (*t == '+' || *t == '-')
        t++;
    for (; digit(*t); t++)
        digits++;
    if (*t == '.')
        for (t++; digit(*t); t++)
            digits++;
    if (digits == 0)
        return 0;
    if (*t == 'e' || *t == 'E') {
        t++;
        if (*t == '+' || *t == '-')
            t++;
        if (!digit(*t))
            return 0;
        while (digit(*t))
            t++;
    }
    return *t == '\0';
}

int sv_number_read(const char *text, double *out)
{
    if (!decimal(text))
        return SV_NUMBER_SYNTAX;
    errno = 0;
    const double v = strtod(text, NULL);
    if (isinf(v))
        return SV_NUMBER_HUGE;
    *out = v;
    return errno == ERANGE ? SV_NUMBER_TINY : SV_NUMBER_OK; /* glibc: 0 or subnormal */
}

int sv_range_read(const char *text, double *out, int fields)
{
    if (!strchr(text, ':'))
        return 0;
    char buf[256];
    if (snprintf(buf, sizeof buf, "%s", text) >= (int)sizeof buf)
        return -1;
    int n = 0;
    for (char *at = buf, *colon; at; at = colon ? colon + 1 : NULL, n++) {
        if ((colon = strchr(at, ':')) != NULL)
            *colon = '\0';
        const int read = n < fields ? sv_number_read(at, &out[n]) : SV_NUMBER_SYNTAX;
        if (read == SV_NUMBER_SYNTAX)
            return -1;
        if (read != SV_NUMBER_OK) /* out of range: what no range check lets through */
            out[n] = NAN;
    }
    return n;
}

sv_number_text sv_number_show(double v)
{
    sv_number_text t;
    if (v == floor(v) && fabs(v) < 1e16)
        snprintf(t.s, sizeof t.s, "%.0f", v);
    else
        snprintf(t.s, sizeof t.s, "%g", v);
    return t;
}

char *sv_list_next(char **cursor)
{
    char *item = *cursor;
    if (!item)
        return NULL;
    char *comma = strchr(item, ',');
    if (comma)
        *comma = '\0';
    *cursor = comma ? comma + 1 : NULL;
    return item;
}
