/* sv_syntax.h: the one syntax of numbers and comma lists in flags, case
 * specs and environment variables (syntax.c). */
#ifndef SV_SYNTAX_H
#define SV_SYNTAX_H

#include <stddef.h>

/* What sv_number_read made of a text. */
enum {
    SV_NUMBER_OK = 0,
    SV_NUMBER_SYNTAX, /* not a decimal number: spaces, hex, inf, nan, words */
    SV_NUMBER_HUGE,   /* a number beyond the largest double (1e400) */
    SV_NUMBER_TINY    /* a number nearer 0 than a normal double (1e-320); *out is set */
};
/* A number written in decimal, as 5, -0.25, .5 or 1e6: an optional sign,
 * digits with at most one point, an optional exponent, and nothing else
 * (no leading or trailing space, no hex, no inf or nan). */
int sv_number_read(const char *text, double *out);

/* A range "A:B" (fields 2) or "A:B:C" (3) of numbers in sv_number_read's
 * syntax: 0 when text has no colon (not a range), the count when it is one
 * of at most `fields` numbers, -1 when it has colons but is not one. A
 * number beyond a double's range reads as NaN, which no range check passes. */
int sv_range_read(const char *text, double *out, int fields);

/* v for a message: a whole number as an integer (1048576, not
 * 1.04858e+06), another as %g. Use .s within the same expression. */
typedef struct sv_number_text {
    char s[40];
} sv_number_text;
sv_number_text sv_number_show(double v);

/* The next item of a comma list in *cursor, as strsep gives it: cut at the
 * comma (written over with '\0'), *cursor moved past it; NULL after the
 * last. An empty item (",,", a comma first or last) is returned empty, for
 * the caller to refuse by position, never skipped. */
char *sv_list_next(char **cursor);

#endif
