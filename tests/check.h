/* check.h: the tests' few assertions. Each prints one line on failure and
 * counts; a test program prints one PASS/FAIL line per feature (GSL style)
 * and exits non-zero if anything failed. */
#ifndef SV_TEST_CHECK_H
#define SV_TEST_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int check_failures, check_feature_failures;

#define CHECK(cond)                                                                       \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "  %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);    \
            check_feature_failures++;                                                     \
        }                                                                                 \
    } while (0)

/* |a - b| <= tol, printing both values on failure. */
#define CHECK_NEAR(a, b, tol)                                                             \
    do {                                                                                  \
        double a_ = (a), b_ = (b), t_ = (tol);                                            \
        if (!(fabs(a_ - b_) <= t_)) {                                                     \
            fprintf(stderr, "  %s:%d: %s = %.12g, expected %s = %.12g +- %g\n", __FILE__, \
                    __LINE__, #a, a_, #b, b_, t_);                                        \
            check_feature_failures++;                                                     \
        }                                                                                 \
    } while (0)

/* 1 when the text got is the text wanted; else 0, printing both. */
static inline int says(const char *got, const char *want)
{
    if (strcmp(got, want) == 0)
        return 1;
    fprintf(stderr, "  got '%s', wanted '%s'\n", got, want);
    return 0;
}

/* Ends a feature: one PASS/FAIL line. */
static inline void feature(const char *name)
{
    printf("%s: %s\n", check_feature_failures ? "FAIL" : "PASS", name);
    fflush(stdout);
    check_failures += check_feature_failures;
    check_feature_failures = 0;
}

static inline int check_exit(void)
{
    return check_failures ? 1 : 0;
}

#endif
