/* test_interval.c: the Clopper-Pearson interval over every count, and GSL's
 * errors kept and named instead of aborting the program. GSL's inverse beta
 * failed to converge at 8, 9, 23, 24 ... of 6000 and its default handler
 * aborted calibrate after all its runs. */
#include <math.h>
#include <string.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sf_exp.h>
#include "check.h"
#include "sv_base.h"
#include "sv_stats.h"

/* Every count x of n: no error, lo <= x/n <= hi, the interval's definition
 * (P(X >= x | lo) = P(X <= x | hi) = (1 - conf) / 2, by the binomial CDF),
 * the exact ends at x = 0 and x = n, and both ends rising with x. */
static void every_count(uint64_t n, double conf)
{
    const double half = (1.0 - conf) / 2.0;
    double prev_lo = -1.0, prev_hi = -1.0;
    int errors = 0, outside = 0, off_lo = 0, off_hi = 0, not_rising = 0;
    for (uint64_t x = 0; x <= n; x++) {
        double lo = -1.0, hi = -1.0;
        if (sv_binomial_interval(x, n, conf, &lo, &hi) != SV_OK) {
            if (errors++ < 3)
                fprintf(stderr, "  %s\n", sv_error_message());
            continue;
        }
        const double r = (double)x / (double)n;
        if (!(lo <= r && r <= hi && lo >= 0.0 && hi <= 1.0) && outside++ < 3)
            fprintf(stderr, "  %llu of %llu: [%.17g, %.17g]\n", (unsigned long long)x,
                    (unsigned long long)n, lo, hi);
        /* P(X >= x | lo) = Q(x - 1); P(X <= x | hi) = P(x) */
        double at_lo = x == 0 ? half : gsl_cdf_binomial_Q((unsigned)(x - 1), lo, (unsigned)n);
        double at_hi = x == n ? half : gsl_cdf_binomial_P((unsigned)x, hi, (unsigned)n);
        if (!(fabs(at_lo - half) <= 1e-9 * half) && off_lo++ < 3)
            fprintf(stderr, "  %llu of %llu: P(X >= x | %.17g) = %.17g\n",
                    (unsigned long long)x, (unsigned long long)n, lo, at_lo);
        if (!(fabs(at_hi - half) <= 1e-9 * half) && off_hi++ < 3)
            fprintf(stderr, "  %llu of %llu: P(X <= x | %.17g) = %.17g\n",
                    (unsigned long long)x, (unsigned long long)n, hi, at_hi);
        if (x == 0)
            CHECK(lo == 0.0);
        if (x == n)
            CHECK(hi == 1.0);
        if (!(lo > prev_lo && hi > prev_hi) && not_rising++ < 3)
            fprintf(stderr, "  %llu of %llu: [%.17g, %.17g] after [%.17g, %.17g]\n",
                    (unsigned long long)x, (unsigned long long)n, lo, hi, prev_lo, prev_hi);
        prev_lo = lo;
        prev_hi = hi;
    }
    CHECK(errors == 0);
    CHECK(outside == 0);
    CHECK(off_lo == 0);
    CHECK(off_hi == 0);
    CHECK(not_rising == 0);
    /* the closed forms at the ends */
    double lo, hi;
    CHECK(sv_binomial_interval(0, n, conf, &lo, &hi) == SV_OK);
    CHECK_NEAR(hi, 1.0 - pow(half, 1.0 / (double)n), 1e-15);
    CHECK(sv_binomial_interval(n, n, conf, &lo, &hi) == SV_OK);
    CHECK_NEAR(lo, pow(half, 1.0 / (double)n), 1e-15);
}

static void test_every_count(void)
{
    every_count(100, 0.95);
    feature("sv_binomial_interval: every count of 100 at 95%: inside, exact, rising");
    every_count(6000, 0.95);
    feature("sv_binomial_interval: every count of 6000 at 95% (GSL's inverse beta failed "
            "at 8 of them)");
    every_count(6000, 0.99);
    feature("sv_binomial_interval: every count of 6000 at 99%");
}

static void test_tables(void)
{
    /* 5 of 10 at 95%: [0.187086, 0.812914] (tables); n = 0 says nothing */
    double lo, hi;
    CHECK(sv_binomial_interval(5, 10, 0.95, &lo, &hi) == SV_OK);
    CHECK_NEAR(lo, 0.187086, 1e-6);
    CHECK_NEAR(hi, 0.812914, 1e-6);
    CHECK(sv_binomial_interval(0, 0, 0.95, &lo, &hi) == SV_OK);
    CHECK(lo == 0.0 && hi == 1.0);
    CHECK(sv_binomial_interval(11, 10, 0.95, &lo, &hi) == SV_EBAD);
    CHECK(strstr(sv_error_message(), "11 of 10") != NULL);
    feature("sv_binomial_interval: a table value; n = 0; x > n refused by name");

    /* counts in the millions on both sides: GSL's beta CDF gives NaN there
     * (its continued fraction stops at 512 terms), which is named, not used */
    CHECK(sv_binomial_interval(5000000, 10000000, 0.95, &lo, &hi) == SV_EENV);
    CHECK(strstr(sv_error_message(), "5000000 of 10000000") != NULL);
    CHECK(strstr(sv_error_message(), "no value") != NULL);
    /* what calibrate meets at a million runs: 0.1% of 5e7 p-values */
    CHECK(sv_binomial_interval(50000, 50000000, 0.95, &lo, &hi) == SV_OK);
    CHECK(lo < 0.001 && hi > 0.001 && hi - lo < 2e-5);
    feature("sv_binomial_interval: where GSL has no value, an error naming the count");
}

/* This program never installs the handler itself: the harness's
 * constructor must have, or the underflow below aborts it. */
static void test_gsl_errors_kept(void)
{
    char words[320] = "";
    CHECK(sv_gsl_error_take(words, sizeof words) == 0);
    double v = gsl_sf_exp(-2000.0); /* GSL_EUNDRFLW through its handler */
    CHECK(v == 0.0);
    int e = sv_gsl_error_take(words, sizeof words);
    CHECK(e != 0);
    CHECK(strstr(words, "underflow") != NULL);
    CHECK(strstr(words, "exp.c:") != NULL);
    CHECK(sv_gsl_error_take(words, sizeof words) == 0); /* taken once */
    (void)gsl_cdf_beta_Pinv(0.975, 9.0, 5992.0); /* what aborted calibrate */
    e = sv_gsl_error_take(words, sizeof words);
    CHECK(e != 0);
    CHECK(strstr(words, "converge") != NULL);
    feature("GSL errors: kept with file, line and reason, no abort, without main's call");
}

int main(void)
{
    test_gsl_errors_kept();
    test_tables();
    test_every_count();
    return check_exit();
}
