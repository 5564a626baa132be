/* test_contingency.c: independence tests (harness/stats/stats.c) and the
 * bins of contingency tables (harness/stats/contingency.c), against tables
 * worked by hand and brute force. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include "check.h"
#include "sv_base.h"
#include "sv_cases.h"
#include "sv_stats.h"

/* |a - b| <= rel |b| */
#define CHECK_REL(a, b, rel) CHECK_NEAR(a, b, (rel) * fabs((double)(b)))

/* ---- independence ---------------------------------------------------------------------- */

static void test_independence(void)
{
    /* rows (10 20 30 | 20 20 20): row sums 60 60, column sums 30 40 50, total
     * 120; expected 15 20 25 in both rows.
     * X^2 = 2 (25/15 + 0 + 25/25) = 16/3, df (2-1)(3-1) = 2, p = exp(-8/3). */
    const uint64_t t[] = {10, 20, 30, 20, 20, 20};
    sv_gof g = sv_independence(t, 2, 3);
    CHECK(g.df == 2);
    CHECK_NEAR(g.stat, 16.0 / 3.0, 1e-12);
    CHECK_NEAR(g.p, exp(-8.0 / 3.0), 1e-12); /* 0.0694835 */

    /* the same inside a 3 x 4 table with an empty row and an empty column */
    const uint64_t z[] = {10, 0, 20, 30, 0, 0, 0, 0, 20, 0, 20, 20};
    sv_gof gz = sv_independence(z, 3, 4);
    CHECK(gz.df == 2);
    CHECK_NEAR(gz.stat, 16.0 / 3.0, 1e-12);
    CHECK_NEAR(gz.p, g.p, 1e-12);

    /* 2 x 2 (30 10 | 10 30): expected 20 everywhere, X^2 = 4 * 100/20 = 20,
     * df 1, p = erfc(sqrt(10)) */
    const uint64_t s[] = {30, 10, 10, 30};
    sv_gof g2 = sv_independence(s, 2, 2);
    CHECK(g2.df == 1);
    CHECK_NEAR(g2.stat, 20.0, 1e-12);
    CHECK_REL(g2.p, erfc(sqrt(10.0)), 1e-9);

    /* exactly independent: X^2 = 0, p = 1 */
    const uint64_t ind[] = {10, 20, 30, 20, 40, 60};
    sv_gof gi = sv_independence(ind, 2, 3);
    CHECK(gi.df == 2);
    CHECK_NEAR(gi.stat, 0.0, 1e-12);
    CHECK_NEAR(gi.p, 1.0, 1e-12);

    /* one nonzero row or nothing at all: no test */
    const uint64_t one_row[] = {0, 0, 0, 5, 6, 7}, none[] = {0, 0, 0, 0};
    sv_gof g1 = sv_independence(one_row, 2, 3), g0 = sv_independence(none, 2, 2);
    CHECK(g1.df == 0 && g1.p == 1.0);
    CHECK(g0.df == 0 && g0.p == 1.0);
    feature("sv_independence: X^2 and df (r-1)(c-1), empty rows and columns dropped");
}


/* ---- bins for contingency tables ----------------------------------------------------------------- */

/* Checks the bins of one side for `dist`, returns the number of
 * single-token (top) bins. */
static int32_t check_side(const double *dist, int32_t V, const sv_binmap *b)
{
    double bin_sum[16] = {0};
    int32_t members[16] = {0}, top = 0;
    CHECK(b->nbins >= 2 && b->nbins <= 13);
    if (b->nbins < 2 || b->nbins > 13)
        return 0;
    for (int32_t i = 0; i < V; i++) {
        if (dist[i] <= 0.0) {
            CHECK(b->bin[i] == -1);
            continue;
        }
        CHECK(b->bin[i] >= 0 && b->bin[i] < b->nbins);
        if (b->bin[i] >= 0 && b->bin[i] < b->nbins) {
            bin_sum[b->bin[i]] += dist[i];
            members[b->bin[i]]++;
        }
    }
    double total = 0.0, least_top = 1.0;
    for (int32_t j = 0; j < b->nbins; j++) {
        CHECK_NEAR(b->mass[j], bin_sum[j], 1e-12);
        total += b->mass[j];
        if (members[j] == 1 && j < 12) {
            top++;
            if (b->mass[j] < least_top)
                least_top = b->mass[j];
        }
    }
    CHECK_NEAR(total, 1.0, 1e-9);
    CHECK(top <= 12);
    /* the top bins hold the most probable tokens: nothing outside them is
     * more probable than the least of them */
    for (int32_t i = 0; i < V; i++)
        if (dist[i] > 0.0 && b->bin[i] >= top)
            CHECK(dist[i] <= least_top);
    return top;
}

/* The smallest bin of `dist` with its m most probable tokens kept apart. */
static double smallest_with(const double *dist, int32_t V, int32_t m)
{
    double sorted[64];
    int32_t n = 0;
    for (int32_t i = 0; i < V; i++)
        if (dist[i] > 0.0)
            sorted[n++] = dist[i];
    for (int32_t i = 1; i < n; i++) /* insertion sort, descending */
        for (int32_t j = i; j > 0 && sorted[j - 1] < sorted[j]; j--) {
            double t = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = t;
        }
    if (m > n)
        m = n;
    double tail = 0.0;
    for (int32_t i = m; i < n; i++)
        tail += sorted[i];
    double s = sorted[m - 1];
    return tail > 1e-12 && tail < s ? tail : s;
}

static void test_pair_bins(void)
{
    enum { V = 40 };
    double rows[V] = {0}, cols[V] = {0}, rs = 0.0, cs = 0.0;
    /* rows: geometric 0.8^j on 30 scattered tokens; cols: 1/(j+1) on 25
     * others; the rest of each has zero mass */
    for (int32_t j = 0; j < 30; j++)
        rs += rows[(j * 7) % V] = pow(0.8, j);
    for (int32_t j = 0; j < 25; j++)
        cs += cols[(j * 3 + 1) % V] = 1.0 / (j + 1);
    for (int32_t i = 0; i < V; i++) {
        rows[i] /= rs;
        cols[i] /= cs;
    }
    const double pairs_list[] = {1e5, 3000, 300};
    for (size_t t = 0; t < 3; t++) {
        double pairs = pairs_list[t];
        sv_binmap rb, cb;
        int rc = sv_pair_bins(rows, cols, V, pairs, &rb, &cb);
        CHECK(rc == 0);
        if (rc != 0)
            continue;
        int32_t rtop = check_side(rows, V, &rb), ctop = check_side(cols, V, &cb);
        /* every expected cell >= 5 */
        for (int32_t a = 0; a < rb.nbins; a++)
            for (int32_t b = 0; b < cb.nbins; b++)
                CHECK(pairs * rb.mass[a] * cb.mass[b] >= 5.0);
        /* as many as keep the cells >= 5: one more top token breaks it */
        int32_t m = rtop > ctop ? rtop : ctop;
        if (m < 12)
            CHECK(pairs * smallest_with(rows, V, m + 1) * smallest_with(cols, V, m + 1) < 5.0);
        printf("  pairs %g: %d x %d bins (%d + %d top tokens)\n", pairs, rb.nbins, cb.nbins, rtop,
               ctop);
        if (pairs == 1e5) /* large enough for all 12 on both sides, plus tails */
            CHECK(rb.nbins == 13 && cb.nbins == 13 && rtop == 12 && ctop == 12);
        sv_binmap_free(&rb);
        sv_binmap_free(&cb);
    }

    /* uniform over 100: 12 tops of 0.01 and a tail need pairs * 1e-4 >= 5 */
    double uni[100];
    for (int i = 0; i < 100; i++)
        uni[i] = 0.01;
    sv_binmap rb, cb;
    CHECK(sv_pair_bins(uni, uni, 100, 1e5, &rb, &cb) == 0);
    CHECK(rb.nbins == 13 && cb.nbins == 13);
    check_side(uni, 100, &rb);
    sv_binmap_free(&rb);
    sv_binmap_free(&cb);
    CHECK(sv_pair_bins(uni, uni, 100, 4e4, &rb, &cb) == 1); /* 4e4 * 1e-4 = 4 < 5 */
    CHECK(rb.bin == NULL && cb.bin == NULL && rb.nbins == 0);

    /* few tokens, no tail: 2 x 3 bins; cells 100 * 1/2 * 1/3 = 16.7 */
    double two[5] = {0.5, 0.0, 0.5, 0.0, 0.0}, three[5] = {0.0, 1.0 / 3, 1.0 / 3, 0.0, 1.0 / 3};
    CHECK(sv_pair_bins(two, three, 5, 100, &rb, &cb) == 0);
    CHECK(rb.nbins == 2 && cb.nbins == 3);
    CHECK(rb.bin[1] == -1 && rb.bin[3] == -1 && rb.bin[4] == -1);
    CHECK(rb.bin[0] == 0 && rb.bin[2] == 1);
    CHECK(cb.bin[0] == -1 && cb.bin[3] == -1);
    sv_binmap_free(&rb);
    sv_binmap_free(&cb);
    CHECK(sv_pair_bins(two, three, 5, 25, &rb, &cb) == 1); /* 25/6 = 4.2 < 5 */

    /* one-hot: no 2 x 2 table at any number of pairs */
    double hot[5] = {0.0, 0.0, 1.0, 0.0, 0.0};
    CHECK(sv_pair_bins(hot, three, 5, 1e12, &rb, &cb) == 1);
    CHECK(sv_pair_bins(three, hot, 5, 1e12, &rb, &cb) == 1);
    feature("sv_pair_bins: top tokens plus a tail, cells >= 5, zero mass outside, 1 if impossible");
}


int main(void)
{
    test_independence();
    test_pair_bins();
    return check_exit();
}
