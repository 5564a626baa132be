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

#endif
