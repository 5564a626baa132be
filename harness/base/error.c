/* error.c: the one path errors take: a status and a message per thread, and
 * GSL's errors kept the same way instead of GSL's default, an abort. */
#include <stdarg.h>
#include <stdio.h>
#include <gsl/gsl_errno.h>
#include "sv_base.h"

static _Thread_local char message[1024];

int sv_set_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    return 0;
}

const char *sv_error_message(void)
{
    return message;
}

/* The first GSL error on this thread since the last take: GSL calls on after
 * its handler returns, so later errors are usually that one's consequences. */
static _Thread_local struct {
    int gsl_errno;
    char reason[160];
    char file[96];
    int line;
    unsigned count;
} gsl_record;

static void keep_gsl_error(const char *reason, const char *file, int line, int gsl_errno)
{
    if (gsl_record.count++ > 0)
        return;
    gsl_record.gsl_errno = gsl_errno;
    gsl_record.line = line;
    snprintf(gsl_record.reason, sizeof gsl_record.reason, "%s", reason ? reason : "?");
    snprintf(gsl_record.file, sizeof gsl_record.file, "%s", file ? file : "?");
}

/* A constructor too, so that every program linking the harness (the tests
 * among them; CMakeLists.txt keeps this file in each) has it before main. */
__attribute__((constructor)) void sv_gsl_errors_install(void)
{
    gsl_set_error_handler(keep_gsl_error);
}

void sv_gsl_error_clear(void)
{
    gsl_record.count = 0;
}

int sv_gsl_error_take(char *out, size_t len)
{
    if (gsl_record.count == 0)
        return 0;
    if (out && len)
        snprintf(out, len, "GSL error in %s:%d: %s (%s%s)", gsl_record.file, gsl_record.line,
                 gsl_record.reason, gsl_strerror(gsl_record.gsl_errno),
                 gsl_record.count > 1 ? ", and later ones" : "");
    gsl_record.count = 0;
    return gsl_record.gsl_errno ? gsl_record.gsl_errno : GSL_FAILURE;
}
