/* sweep.h: one point of `specverify sweep`, and its plots. */
#ifndef SV_SWEEP_H
#define SV_SWEEP_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include "acceptance.h"
#include "sv_sampler.h"

typedef struct sv_sweep_point {
    double T;                          /* NaN when the sweep has no T axis */
    int32_t K;
    uint64_t draws;
    double analytic[SV_MAX_K];         /* alpha_k = sum min(p_k, q_k) */
    sv_proportion measured[SV_MAX_K];  /* accepted / tested, with its interval */
    uint64_t length[SV_MAX_K + 1];     /* histogram of accepted counts */
    double tokens_analytic, tokens_measured;
} sv_sweep_point;

/* The same temperature (no --T: every point has T = NaN). */
static inline int sv_same_T(double x, double y)
{
    return x == y || (isnan(x) && isnan(y));
}

/* Writes DIR/plot.gp and its data files, then runs gnuplot on them for PNG
 * and SVG: acceptance vs temperature (one curve per position), tokens per
 * step and speedup vs K (one curve per c), the histogram of accepted
 * lengths. The script stays beside the data for a user to edit and re-run.
 * Returns as sv_gnuplot_run (SV_OK, also when gnuplot is missing: *note
 * then says so; SV_EENV with *note when gnuplot failed), SV_EBAD when a file
 * cannot be written. The data and script are written either way. */
int sv_sweep_plot(const char *dir, const char *title, const sv_sweep_point *pts, size_t n,
                  const double *c, int n_c, char *note, size_t note_len);

/* ---- sweep_resume.c: --resume ------------------------------------------------- */

/* What makes two runs the same sweep. */
typedef struct sv_sweep_run {
    const char *spec, *sampler;
    uint64_t seed, draws;
    double level;
} sv_sweep_run;

/* The points of an earlier run, from DIR/sweep.h5. */
typedef struct sv_sweep_earlier {
    size_t n;
    double *T, *K, *analytic, *tokens, *lengths; /* analytic [n][16], lengths [n][17] */
} sv_sweep_earlier;

/* Reads DIR/sweep.h5 when there is one (none: *e empty, SV_OK, and a note);
 * SV_EBAD when it is another sweep's, or when any number is not finite, out
 * of its range or inconsistent (alpha missing within K, counts not summing to
 * the draws), naming the file, the dataset, the row and the value. */
int sv_sweep_earlier_load(const char *dir, const sv_sweep_run *run, sv_sweep_earlier *e);
/* Fills pt from the earlier run if it has (T, K); returns 1 if it did. */
int sv_sweep_earlier_take(const sv_sweep_earlier *e, const sv_sweep_run *run, double T,
                          int32_t K, sv_sweep_point *pt);
void sv_sweep_earlier_free(sv_sweep_earlier *e);

#endif
