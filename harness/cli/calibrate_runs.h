/* calibrate_runs.h: what calibrate keeps of each run (cmd_calibrate.c), and
 * the shard files that carry them (calibrate_runs.c): a calibration cut
 * into shards of its runs, which merge reads back in run order. */
#ifndef SV_CALIBRATE_RUNS_H
#define SV_CALIBRATE_RUNS_H

#include <stdint.h>
#include "sv_report.h"

/* The checks of one case, in the order calibrate takes them: y_1 .. y_{K+1},
 * the accepted length, the two independence tables, a chain's transitions. */
#define CALIBRATE_CHECKS (SV_MAX_K + 5)

/* Runs in order: per run every case's check p-values (NaN where the run had
 * no test), whether it failed, its tests and split. */
typedef struct calibrate_runs {
    size_t n_cases, cols;  /* cols = n_cases * CALIBRATE_CHECKS */
    size_t n, cap;         /* runs held */
    double *p;             /* [n][cols] */
    uint64_t *failed, *tests;
    double *split;
    int32_t *K;            /* [n_cases] */
} calibrate_runs;

int calibrate_runs_init(calibrate_runs *runs, size_t n_cases);
/* Room for one more run; its row, NaN-filled, in *row. */
int calibrate_runs_add(calibrate_runs *runs, double **row);
void calibrate_runs_free(calibrate_runs *runs);

/* A shard's runs, the first numbered `first`, into its file. */
int calibrate_runs_write(sv_h5 *f, const calibrate_runs *runs, uint64_t first);
/* Shard k's runs appended; SV_EBAD naming the file when they do not start
 * at run `next` or do not fit the suite. */
int calibrate_runs_read(sv_h5_reader *r, calibrate_runs *runs, uint64_t next);
/* What calibrate concluded, for --json (calibrate_json.c; docs/formats.md,
 * "Calibrate JSON"). */
typedef struct calibrate_result {
    const char *sampler, *suite, *verdict, *interrupted_by; /* interrupted_by: NULL if whole */
    uint64_t seed, runs, runs_planned, failed_runs, small, p_values, tests_per_run;
    double alpha, split, ks_stat, ks_p, bins_stat, bins_p, fail_p;
    uint64_t bins[10];
    double small_ci[2], fail_ci[2]; /* 95% Clopper-Pearson; NaN where GSL gave none */
    size_t same_checks;             /* checks with one p-value in every run */
    const char *same_which;         /* the first of them, in words */
} calibrate_result;
int calibrate_write_json(const char *path, const calibrate_result *r);

#endif
