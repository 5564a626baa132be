/* calibrate_runs.c: calibrate's runs held in order, and a shard's runs in
 * its shard file (calibrate --shard I/N: shard I runs the I-th contiguous
 * share of the runs, whose seeds follow from --seed as in the whole run) and
 * back for merge. Datasets (docs/formats.md, "Shard files"): calibrate_first
 * (the first run's number), calibrate_K (each case's K), and per run
 * calibrate_p (its p-values, NaN where it had no test), calibrate_failed,
 * calibrate_tests and calibrate_split. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "calibrate_runs.h"

#define MAX_CASES 1024 /* a suite's cases, far more than any has */

int calibrate_runs_init(calibrate_runs *runs, size_t n_cases)
{
    memset(runs, 0, sizeof *runs);
    if (n_cases > MAX_CASES)
        return sv_fail(SV_EBAD, "calibrate: %zu cases, at most %d", n_cases, MAX_CASES);
    runs->n_cases = n_cases;
    runs->cols = n_cases * CALIBRATE_CHECKS;
    runs->K = calloc(n_cases ? n_cases : 1, sizeof *runs->K);
    return runs->K ? SV_OK : sv_fail(SV_EENV, "out of memory for %zu cases", n_cases);
}

int calibrate_runs_add(calibrate_runs *runs, double **row)
{
    if (runs->n == runs->cap) {
        size_t cap = runs->cap ? 2 * runs->cap : 64;
        double *p = realloc(runs->p, cap * runs->cols * sizeof *p);
        if (p)
            runs->p = p;
        uint64_t *failed = realloc(runs->failed, cap * sizeof *failed);
        if (failed)
            runs->failed = failed;
        uint64_t *tests = realloc(runs->tests, cap * sizeof *tests);
        if (tests)
            runs->tests = tests;
        double *split = realloc(runs->split, cap * sizeof *split);
        if (split)
            runs->split = split;
        if (!p || !failed || !tests || !split)
            return sv_fail(SV_EENV, "out of memory for %zu runs' p-values", cap);
        runs->cap = cap;
    }
    *row = runs->p + runs->n * runs->cols;
    for (size_t j = 0; j < runs->cols; j++)
        (*row)[j] = NAN;
    runs->failed[runs->n] = runs->tests[runs->n] = 0;
    runs->split[runs->n] = 0.0;
    runs->n++;
    return SV_OK;
}

void calibrate_runs_free(calibrate_runs *runs)
{
    free(runs->p);
    free(runs->failed);
    free(runs->tests);
    free(runs->split);
    free(runs->K);
    memset(runs, 0, sizeof *runs);
}

int calibrate_runs_write(sv_h5 *f, const calibrate_runs *runs, uint64_t first)
{
    uint64_t K[MAX_CASES];
    for (size_t i = 0; i < runs->n_cases; i++)
        K[i] = (uint64_t)runs->K[i];
    int rc = sv_h5_u64s(f, "calibrate_first", &first, 1);
    if (rc == SV_OK)
        rc = sv_h5_u64s(f, "calibrate_K", K, runs->n_cases);
    if (rc == SV_OK && runs->n) { /* a shard of no runs has no rows */
        rc = sv_h5_doubles(f, "calibrate_p", runs->p, runs->n, runs->cols);
        if (rc == SV_OK)
            rc = sv_h5_u64s(f, "calibrate_failed", runs->failed, runs->n);
        if (rc == SV_OK)
            rc = sv_h5_u64s(f, "calibrate_tests", runs->tests, runs->n);
        if (rc == SV_OK)
            rc = sv_h5_doubles(f, "calibrate_split", runs->split, runs->n, 1);
    }
    return rc;
}

int calibrate_runs_read(sv_h5_reader *r, calibrate_runs *runs, uint64_t next)
{
    uint64_t first = 0, K[MAX_CASES];
    int rc = sv_h5_read_u64s(r, "calibrate_first", &first, 1);
    if (rc == SV_OK && first != next)
        rc = sv_fail(SV_EBAD, "merge: %s starts at run %llu, where the shards before it end "
                     "at run %llu", r->path, (unsigned long long)first + 1,
                     (unsigned long long)next);
    if (rc == SV_OK)
        rc = sv_h5_read_u64s(r, "calibrate_K", K, runs->n_cases);
    for (size_t i = 0; rc == SV_OK && i < runs->n_cases; i++) {
        if (K[i] > SV_MAX_K)
            rc = sv_fail(SV_EBAD, "merge: %s: case %zu has K = %llu, at most %d", r->path,
                         i + 1, (unsigned long long)K[i], SV_MAX_K);
        else
            runs->K[i] = (int32_t)K[i];
    }
    if (rc != SV_OK || !sv_h5_has_dataset(r, "calibrate_p"))
        return rc;
    double *p = NULL, *split = NULL;
    size_t rows = 0, cols = 0, srows = 0, scols = 0;
    rc = sv_h5_read_doubles(r, "calibrate_p", &p, &rows, &cols);
    if (rc == SV_OK && cols != runs->cols)
        rc = sv_fail(SV_EBAD, "merge: %s holds %zu p-values a run, where the suite makes %zu",
                     r->path, cols, runs->cols);
    for (size_t j = 0; rc == SV_OK && j < rows * cols; j++)
        if (!isnan(p[j]) && !(p[j] >= 0.0 && p[j] <= 1.0))
            rc = sv_h5_bad_value(r, "calibrate_p", j / cols, j % cols, p[j],
                                 "a p-value in [0, 1] or NaN");
    if (rc == SV_OK)
        rc = sv_h5_read_checked(r, "calibrate_split", &split, &srows, &scols, 0.0, 1.0, 0);
    if (rc == SV_OK && srows != rows)
        rc = sv_fail(SV_EBAD, "merge: %s: %zu runs' p-values and %zu splits", r->path, rows,
                     srows);
    const size_t at = runs->n;
    for (size_t k = 0; rc == SV_OK && k < rows; k++) {
        double *row;
        rc = calibrate_runs_add(runs, &row);
        if (rc == SV_OK) {
            memcpy(row, p + k * cols, cols * sizeof *row);
            runs->split[runs->n - 1] = split[k];
        }
    }
    if (rc == SV_OK)
        rc = sv_h5_read_u64s(r, "calibrate_failed", runs->failed + at, rows);
    if (rc == SV_OK)
        rc = sv_h5_read_u64s(r, "calibrate_tests", runs->tests + at, rows);
    free(p);
    free(split);
    return rc;
}
