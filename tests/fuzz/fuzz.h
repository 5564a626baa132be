/* fuzz.h: what the fuzz targets share: the libFuzzer entry point and the
 * way a broken property ends the run (abort, which libFuzzer and the replay
 * test both count as a crash). */
#ifndef SV_FUZZ_H
#define SV_FUZZ_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fuzz_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

/* The input as a C string (up to its first NUL byte); free() it. */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        fuzz_die("fuzz: out of memory");
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

#endif
