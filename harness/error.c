/* error.c: the one path errors take: a status and a message per thread. */
#include <stdarg.h>
#include <stdio.h>
#include "sv_harness.h"

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
