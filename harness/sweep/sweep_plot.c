/* sweep_plot.c: gnuplot plots of a sweep, run as a program on a script
 * written next to the data, so a user can edit and re-run it:
 *     cd DIR && gnuplot plot.gp
 * Data files are plain columns with a header line naming them; the one
 * string from outside, the title (case spec and sampler), is quoted by
 * sv_gp_string (unquoted, "the case's T" in it broke the script). PNG, SVG
 * and PDF; every measured number with its interval, integer tics on K. */
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

/* tokens.dat: at temperature T, per K: E analytic, E measured and its
 * interval, then per c the speedup from E analytic, and from E measured
 * with its interval (E's scaled by 1 / (K c + 1)). */
static int write_tokens(const char *dir, const sv_sweep_point *pts, size_t n, double T,
                        const double *c, int n_c)
{
    sv_atomic_file af;
    FILE *f = open_in(dir, "tokens.dat", &af);
    if (!f)
        return SV_EBAD;
    fprintf(f, "# K tokens_analytic tokens_measured tokens_lo tokens_hi");
    for (int j = 0; j < n_c; j++)
        fprintf(f, " speedup_c%g speedup_measured_c%g lo_c%g hi_c%g", c[j], c[j], c[j], c[j]);
    fprintf(f, "\n");
    for (size_t i = 0; i < n; i++) {
        const sv_sweep_point *p = &pts[i];
        if (!sv_same_T(p->T, T))
            continue;
        fprintf(f, "%d %.6f %.6f %.6f %.6f", p->K, p->tokens_analytic, p->tokens_measured,
                p->tokens_lo, p->tokens_hi);
        for (int j = 0; j < n_c; j++)
            fprintf(f, " %.6f %.6f %.6f %.6f", sv_speedup(p->tokens_analytic, p->K, c[j]),
                    sv_speedup(p->tokens_measured, p->K, c[j]),
                    sv_speedup(p->tokens_lo, p->K, c[j]), sv_speedup(p->tokens_hi, p->K, c[j]));
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

void sv_sweep_spec_title(const char *spec, char *out, size_t len)
{
    /* the K parameter of "family:a=1,K=5,b=2": a sweep sets K itself */
    const char *colon = strchr(spec, ':');
    const char *k = colon ? colon : NULL;
    while (k && !((k[0] == ':' || k[0] == ',') && k[1] == 'K' && k[2] == '='))
        k = strchr(k + 1, ',');
    if (!k) {
        snprintf(out, len, "%s", spec);
        return;
    }
    const char *after = strchr(k + 1, ','); /* the next parameter, or the end */
    if (k[0] == ':' && after) /* "f:K=5,b" -> "f:b" */
        snprintf(out, len, "%.*s:%s", (int)(k - spec), spec, after + 1);
    else /* "f:a,K=5,b" -> "f:a,b"; "f:K=5" -> "f" */
        snprintf(out, len, "%.*s%s", (int)(k - spec), spec, after ? after : "");
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

/* The x axis of K: its own values as tics, half a step of room each side. */
static void K_axis(FILE *f, const sv_sweep_point *pts, size_t n, double T)
{
    int32_t lo = SV_MAX_K + 1, hi = 0;
    const char *sep = "";
    fprintf(f, "set xlabel 'drafts per step K'\nset xtics (");
    for (int32_t K = 1; K <= SV_MAX_K; K++)
        for (size_t i = 0; i < n; i++)
            if (pts[i].K == K && sv_same_T(pts[i].T, T)) {
                fprintf(f, "%s'%d' %d", sep, K, K);
                sep = ", ";
                lo = K < lo ? K : lo, hi = K > hi ? K : hi;
                break;
            }
    fprintf(f, ")\nset xrange [%g:%g]\n", lo - 0.5, hi + 0.5);
}

/* The plotting commands, once per output format. Each series has one
 * legend entry: the measured points with their interval bars carry it, the
 * analytic curve beside them shares their colour (the key's title says). */
static void script_body(FILE *f, const char *ext, const char *title, int32_t K, int have_T,
                        double T, const sv_sweep_point *pts, size_t n,
                        const sv_sweep_point *hist, const double *c, int n_c, double level)
{
    char Ttext[32], style[128], line[128];
    snprintf(Ttext, sizeof Ttext, isnan(T) ? "the case's T" : "T = %g", T);
    fprintf(f, "set key title 'lines: analytic; points and bars: measured, %g%% interval'\n",
            100.0 * level);
    if (have_T) {
        sv_gp_terminal(f, ext, 1000, 600, "acceptance_vs_T");
        set_title(f, "%s: acceptance per draft position, K = %d", title, K);
        double lo = INFINITY, hi = -INFINITY;
        for (size_t i = 0; i < n; i++)
            if (pts[i].K == K)
                lo = fmin(lo, pts[i].T), hi = fmax(hi, pts[i].T);
        fprintf(f, "set xlabel 'temperature T (target and drafter)'\nset xtics autofreq\n"
                "set xrange [%g:%g]\n", lo - 0.03 * (hi - lo), hi + 0.03 * (hi - lo));
        fprintf(f, "set ylabel 'acceptance alpha_k (probability)'\nset yrange [0:1.05]\nplot ");
        for (int32_t k = 1; k <= K; k++) {
            sv_gp_style(k - 1, 0, line, sizeof line);
            sv_gp_style(k - 1, 1, style, sizeof style);
            fprintf(f, "%s'acceptance.dat' using 1:%d with lines %s notitle, \\\n"
                    "     'acceptance.dat' using 1:%d:%d:%d with yerrorbars %s ps 0.6 "
                    "title 'position %d'", k > 1 ? ", \\\n     " : "", 4 * k - 2, line,
                    4 * k - 1, 4 * k, 4 * k + 1, style, k);
        }
        fprintf(f, "\nset yrange [*:*]\n");
    }
    sv_gp_terminal(f, ext, 1000, 600, "tokens_vs_K");
    set_title(f, "%s: tokens per step at %s", title, Ttext);
    K_axis(f, pts, n, T);
    fprintf(f, "set ylabel 'tokens per step E'\nset offsets 0, 0, graph 0.05, graph 0.05\n");
    sv_gp_style(0, 0, line, sizeof line);
    sv_gp_style(0, 1, style, sizeof style);
    fprintf(f, "plot 'tokens.dat' using 1:2 with lines %s notitle, \\\n"
            "     'tokens.dat' using 1:3:4:5 with yerrorbars %s ps 0.8 title 'E'\n", line,
            style);
    sv_gp_terminal(f, ext, 1000, 600, "speedup_vs_K");
    set_title(f, "%s: speedup E / (K c + 1) at %s", title, Ttext);
    fprintf(f, "set ylabel 'speedup over plain decoding (x)'\nplot ");
    for (int j = 0; j < n_c; j++) {
        sv_gp_style(j, 0, line, sizeof line);
        sv_gp_style(j, 1, style, sizeof style);
        fprintf(f, "%s'tokens.dat' using 1:%d with lines %s notitle, \\\n"
                "     'tokens.dat' using 1:%d:%d:%d with yerrorbars %s ps 0.8 title 'c = %g'",
                j ? ", \\\n     " : "", 6 + 4 * j, line, 7 + 4 * j, 8 + 4 * j, 9 + 4 * j,
                style, c[j]);
    }
    fprintf(f, "\nset offsets 0, 0, 0, 0\nunset key\n");
    sv_gp_terminal(f, ext, 1000, 600, "accepted_lengths");
    set_title(f, "%s: accepted drafts per step, K = %d, %s", title, hist->K, Ttext);
    fprintf(f, "set xlabel 'accepted drafts n'\nset ylabel 'fraction of steps'\n");
    fprintf(f, "set style fill solid 0.6\nset boxwidth 0.7\nset xtics 1\n"
            "set xrange [-0.5:%d.5]\nset yrange [0:*]\n", hist->K);
    fprintf(f, "plot 'lengths.dat' using 1:2 with boxes lc rgb '#0072B2' notitle\n");
    fprintf(f, "unset style\nset xtics autofreq\nset xrange [*:*]\nset yrange [*:*]\n"
            "set key\n");
}

int sv_sweep_plot(const char *dir, const char *title, const sv_sweep_point *pts, size_t n,
                  const double *c, int n_c, double level, char *note, size_t note_len)
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
    fprintf(f, "set grid\nset key outside below center horizontal Left reverse\n"
            "set termoption noenhanced\n");
    static const char *const exts[3] = {"png", "svg", "pdf"};
    for (int e = 0; e < 3; e++)
        script_body(f, exts[e], title, K, have_T, T, pts, n, hist, c, n_c, level);
    if ((rc = sv_atomic_commit(&af)) != SV_OK)
        return rc;

    return sv_gnuplot_run(dir, "plot.gp", note, note_len);
}
