/* sweep_plot.c: gnuplot plots of a sweep, run as a program on a script
 * written next to the data, so a user can edit and re-run it:
 *     cd DIR && gnuplot plot.gp
 * Data files are plain columns with a header line naming them; the one
 * string from outside, the title (case spec and sampler), is quoted by
 * sv_gp_string (unquoted, "the case's T" in it broke the script). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sv_sweep.h"
#include "sv_plot.h"
#include "sv_store.h"
#include "sv_cases.h"

/* The point whose temperature the K-axis plots use: the first closest to 1. */
static size_t chosen_T(const sv_sweep_point *pts, size_t n)
{
    size_t best = 0;
    for (size_t i = 1; i < n; i++)
        if (fabs(pts[i].T - 1.0) < fabs(pts[best].T - 1.0))
            best = i;
    return best;
}

/* DIR/NAME through sv_atomic: written whole or not at all, and a device or
 * a FIFO there is written, never replaced. */
static FILE *open_in(const char *dir, const char *name, sv_atomic_file *af)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return sv_atomic_open(af, path) == SV_OK ? af->fp : NULL;
}

/* acceptance.dat: for the largest K, per T: analytic, measured, lo, hi per position. */
static int write_acceptance(const char *dir, const sv_sweep_point *pts, size_t n, int32_t K)
{
    sv_atomic_file af;
    FILE *f = open_in(dir, "acceptance.dat", &af);
    if (!f)
        return SV_EBAD;
    fprintf(f, "# T");
    for (int32_t k = 1; k <= K; k++)
        fprintf(f, " analytic_%d measured_%d lo_%d hi_%d", k, k, k, k);
    fprintf(f, "\n");
    for (size_t i = 0; i < n; i++) {
        if (pts[i].K != K)
            continue;
        fprintf(f, "%.6g", pts[i].T);
        for (int32_t k = 0; k < K; k++)
            fprintf(f, " %.6f %.6f %.6f %.6f", pts[i].analytic[k], pts[i].measured[k].value,
                    pts[i].measured[k].lo, pts[i].measured[k].hi);
        fprintf(f, "\n");
    }
    return sv_atomic_commit(&af);
}

/* tokens.dat: at temperature T, per K: E analytic, E measured, speedup per c. */
static int write_tokens(const char *dir, const sv_sweep_point *pts, size_t n, double T,
                        const double *c, int n_c)
{
    sv_atomic_file af;
    FILE *f = open_in(dir, "tokens.dat", &af);
    if (!f)
        return SV_EBAD;
    fprintf(f, "# K tokens_analytic tokens_measured");
    for (int j = 0; j < n_c; j++)
        fprintf(f, " speedup_c%g", c[j]);
    fprintf(f, "\n");
    for (size_t i = 0; i < n; i++) {
        if (!sv_same_T(pts[i].T, T))
            continue;
        fprintf(f, "%d %.6f %.6f", pts[i].K, pts[i].tokens_analytic, pts[i].tokens_measured);
        for (int j = 0; j < n_c; j++)
            fprintf(f, " %.6f", sv_speedup(pts[i].tokens_analytic, pts[i].K, c[j]));
        fprintf(f, "\n");
    }
    return sv_atomic_commit(&af);
}

/* lengths.dat: the accepted-count histogram of one point, as fractions. */
static int write_lengths(const char *dir, const sv_sweep_point *p)
{
    sv_atomic_file af;
    FILE *f = open_in(dir, "lengths.dat", &af);
    if (!f)
        return SV_EBAD;
    double total = 0.0;
    for (int32_t m = 0; m <= p->K; m++)
        total += (double)p->length[m];
    fprintf(f, "# accepted fraction\n");
    for (int32_t m = 0; m <= p->K; m++)
        fprintf(f, "%d %.6f\n", m, total > 0.0 ? (double)p->length[m] / total : 0.0);
    return sv_atomic_commit(&af);
}

/* set title TEXT, TEXT quoted: it holds the case spec (a recording's file
 * name) and the sampler's name. */
static void set_title(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_title(FILE *f, const char *fmt, ...)
{
    char text[SV_CASE_NAME_MAX + 256], quoted[SV_GP_QUOTED(SV_CASE_NAME_MAX + 256)];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    fprintf(f, "set title %s\n", sv_gp_string(text, quoted, sizeof quoted));
}

/* The plotting commands, once per output format. */
static void script_body(FILE *f, const char *ext, const char *title, int32_t K, int have_T,
                        double T, const sv_sweep_point *hist, const double *c, int n_c)
{
    char Ttext[32];
    snprintf(Ttext, sizeof Ttext, isnan(T) ? "the case's T" : "T = %g", T);
    if (have_T) {
        fprintf(f, "set output 'acceptance_vs_T.%s'\n", ext);
        set_title(f, "%s: acceptance per draft position, K = %d", title, K);
        fprintf(f, "set xlabel 'temperature T (target and drafter)'\n");
        fprintf(f, "set ylabel 'acceptance alpha_k (probability)'\nset yrange [0:1.05]\n");
        fprintf(f, "plot for [k=1:%d] 'acceptance.dat' using 1:(column(4*k-2)) with lines "
                   "lt k title sprintf('position %%d analytic', k), \\\n"
                   "     for [k=1:%d] 'acceptance.dat' using 1:(column(4*k-1)):(column(4*k)):"
                   "(column(4*k+1)) with yerrorbars lt k pt 7 ps 0.6 "
                   "title sprintf('position %%d measured', k)\n",
                K, K);
        fprintf(f, "set yrange [*:*]\n");
    }
    fprintf(f, "set output 'tokens_vs_K.%s'\n", ext);
    set_title(f, "%s: tokens per step at %s", title, Ttext);
    fprintf(f, "set xlabel 'drafts per step K'\nset ylabel 'tokens per step (expected)'\n");
    fprintf(f, "plot 'tokens.dat' using 1:2 with linespoints pt 7 title 'analytic', "
               "'tokens.dat' using 1:3 with points pt 6 ps 1.5 title 'measured'\n");
    fprintf(f, "set output 'speedup_vs_K.%s'\n", ext);
    set_title(f, "%s: speedup E / (K c + 1) at %s", title, Ttext);
    fprintf(f, "set xlabel 'drafts per step K'\nset ylabel 'speedup over plain decoding (x)'\n");
    fprintf(f, "plot for [j=1:%d] 'tokens.dat' using 1:(column(3+j)) with linespoints pt 7 "
               "title sprintf('c = %%s', word('",
            n_c);
    for (int j = 0; j < n_c; j++)
        fprintf(f, "%s%g", j ? " " : "", c[j]);
    fprintf(f, "', j))\n");
    fprintf(f, "set output 'accepted_lengths.%s'\n", ext);
    set_title(f, "%s: accepted drafts per step, K = %d, %s", title, hist->K, Ttext);
    fprintf(f, "set xlabel 'accepted drafts n'\nset ylabel 'fraction of steps'\n");
    fprintf(f, "set style fill solid 0.6\nset boxwidth 0.7\nset xtics 1\n");
    fprintf(f, "plot 'lengths.dat' using 1:2 with boxes title 'measured'\n");
    fprintf(f, "unset style\nset xtics autofreq\n");
}

int sv_sweep_plot(const char *dir, const char *title, const sv_sweep_point *pts, size_t n,
                  const double *c, int n_c, char *note, size_t note_len)
{
    note[0] = '\0';
    if (n == 0)
        return SV_OK;
    int32_t K = 0;
    int have_T = 0;
    for (size_t i = 0; i < n; i++) {
        K = pts[i].K > K ? pts[i].K : K;
        have_T |= !sv_same_T(pts[i].T, pts[0].T);
    }
    /* hist: the largest K at the chosen T (a point, so never none) */
    const sv_sweep_point *hist = &pts[chosen_T(pts, n)];
    const double T = hist->T;
    for (size_t i = 0; i < n; i++)
        if (sv_same_T(pts[i].T, T) && pts[i].K > hist->K)
            hist = &pts[i];

    int rc = write_acceptance(dir, pts, n, K);
    if (rc == SV_OK)
        rc = write_tokens(dir, pts, n, T, c, n_c);
    if (rc == SV_OK)
        rc = write_lengths(dir, hist);
    sv_atomic_file af;
    FILE *f = rc == SV_OK ? open_in(dir, "plot.gp", &af) : NULL;
    if (!f)
        return rc == SV_OK ? SV_EBAD : rc;
    fprintf(f, "# plot.gp: the plots of this sweep; run 'gnuplot plot.gp' in this folder\n");
    fprintf(f, "set grid\nset key outside right top\nset termoption noenhanced\n");
    fprintf(f, "set terminal pngcairo size 1000,600 noenhanced font ',11'\n");
    script_body(f, "png", title, K, have_T, T, hist, c, n_c);
    fprintf(f, "set terminal svg size 1000,600 noenhanced font ',11'\n");
    script_body(f, "svg", title, K, have_T, T, hist, c, n_c);
    if ((rc = sv_atomic_commit(&af)) != SV_OK)
        return rc;

    return sv_gnuplot_run(dir, "plot.gp", note, note_len);
}
