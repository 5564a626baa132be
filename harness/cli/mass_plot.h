/* mass_plot.h: figures of where a failing position's mass went (mass_plot.c),
 * from a run's report (verify --plot) or its JSON (plot REPORT.json). */
#ifndef SV_MASS_PLOT_H
#define SV_MASS_PLOT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "sv_base.h"

typedef struct sv_mass_fig {
    const char *case_name;
    int32_t position;       /* 1-based */
    const char *verdict;    /* "FAIL", "SUSPECT" */
    int32_t nbins;          /* the tests' bins: tokens, then the pooled tail (-1) */
    const int32_t *token;
    const double *observed, *expected;
    int32_t tail_categories;
} sv_mass_fig;

/* Writes DIR/mass-N.dat, DIR/mass.gp and DIR/mass-N.{png,svg,pdf} for figs
 * (N from 1), the band at split (the run's split false-alarm rate). As
 * sv_gnuplot_run: SV_OK drawn or gnuplot missing (note says so). */
int sv_mass_plot(const char *dir, const sv_mass_fig *figs, size_t n, double split, char *note,
                 size_t note_len);

struct sv_report;
/* verify --plot DIR: a figure per position of a failing or suspect case
 * whose own verdict is not PASS (its last run), listed on out. */
int sv_mass_plot_report(const struct sv_report *r, const char *dir, FILE *out);
/* plot REPORT.json --out DIR: the same from a report's JSON (report_format
 * 2: the positions' counts); SV_EBAD naming what is wrong in the file. */
int sv_mass_plot_json(const char *path, const char *dir, FILE *out);

#endif
