/* bench_plot.c: latency plots of a bench file, drawn by gnuplot from a
 * script written beside the data (cd DIR && gnuplot STEM-plot.gp):
 *   STEM-latency_vs_B: median time per step against B, log-log, one curve
 *                      per sampler, V, acceptance rate and mode;
 *   STEM-latency_vs_V: the same against V, one curve per sampler and B...
 * Bars span the interquartile range, and a lower panel gives it as a
 * percentage of the median (a 0.5% spread is too small to see on a log
 * axis). Axes fitted to the points; a curve keeps a colour, a dash and a
 * point shape (sv_gp_style), so 16 stay apart in print. PNG, SVG and PDF. Data: STEM-latency_B.dat and _V.dat,
 * one block of numbers per curve (gnuplot's index); the curves' titles, made
 * of strings from the file, are in the script, quoted by sv_gp_string. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sv_bench.h"
#include "sv_plot.h"
#include "sv_store.h"

static void mode_text(const sv_bench_point *p, char *out, size_t len)
{
    snprintf(out, len, "%s%s", p->cold ? "cold" : "hot", p->graph ? ", graph" : "");
}

/* Same curve: every field but the x axis (B when by_B, else V) agrees. */
static int same_curve(const sv_bench_point *a, const sv_bench_point *b, int by_B)
{
    return strcmp(a->sampler, b->sampler) == 0 && a->K == b->K &&
           (by_B ? a->V == b->V : a->B == b->B) && a->accept_target == b->accept_target &&
           a->cold == b->cold && a->graph == b->graph;
}

/* Writes the curves along B (by_B) or V as data blocks (gnuplot's index),
 * numbers only; first[c] is the first point of curve c. Returns the count. */
static int write_curves(FILE *f, const sv_bench_point *pts, size_t n, int by_B, size_t *first)
{
    char *done = calloc(n ? n : 1, 1);
    int curves = 0;
    if (!done)
        return -1;
    fprintf(f, "# x median_us q25_us q75_us; one block per curve, titled in the script\n");
    for (size_t i = 0; i < n; i++) {
        if (done[i])
            continue;
        first[curves] = i;
        fprintf(f, "%s# curve %d\n", curves ? "\n\n" : "", curves);
        /* the curve's points in order of x: a selection sort over what is left */
        for (;;) {
            size_t best = n;
            for (size_t j = i; j < n; j++) {
                if (done[j] || !same_curve(&pts[i], &pts[j], by_B))
                    continue;
                int32_t xj = by_B ? pts[j].B : pts[j].V;
                if (best == n || xj < (by_B ? pts[best].B : pts[best].V))
                    best = j;
            }
            if (best == n)
                break;
            done[best] = 1;
            fprintf(f, "%d %.6g %.6g %.6g\n", by_B ? pts[best].B : pts[best].V,
                    pts[best].median_us, pts[best].q25_us, pts[best].q75_us);
        }
        curves++;
    }
    free(done);
    return curves;
}

/* The x axis (B or V) and the time axis fitted to the points, log scaled:
 * the axis's own values as tics where they are few. */
static void axes(FILE *f, const sv_bench_point *pts, size_t n, int by_B)
{
    double xs[16], x_lo = INFINITY, x_hi = 0.0, y_lo = INFINITY, y_hi = 0.0;
    size_t n_x = 0;
    int many = 0;
    for (size_t i = 0; i < n; i++) {
        const double x = by_B ? pts[i].B : pts[i].V;
        x_lo = fmin(x_lo, x), x_hi = fmax(x_hi, x);
        y_lo = fmin(y_lo, pts[i].q25_us), y_hi = fmax(y_hi, pts[i].q75_us);
        int seen = 0;
        for (size_t k = 0; k < n_x; k++)
            seen |= xs[k] == x;
        if (!seen && n_x < 16)
            xs[n_x++] = x;
        else if (!seen)
            many = 1;
    }
    fprintf(f, "set xrange [%.6g:%.6g]\nset yrange [%.6g:%.6g]\n", x_lo / 1.25, x_hi * 1.25,
            y_lo / 1.15, y_hi * 1.15);
    if (many) {
        fprintf(f, "set xtics autofreq\n");
        return;
    }
    fprintf(f, "set xtics (");
    for (size_t k = 0; k < n_x; k++)
        fprintf(f, "%s'%.0f' %.0f", k ? ", " : "", xs[k], xs[k]);
    fprintf(f, ")\n");
}

/* One figure: the median time with its interquartile bars above, and below
 * the interquartile range as a percentage of the median, where a spread
 * too small to see on the log axis above is read. */
static void plot_command(FILE *f, const char *stem, int by_B, const char *data,
                         const sv_bench_point *pts, size_t n, const size_t *first, int curves,
                         const char *fmt)
{
    char name[700], file[SV_GP_QUOTED(700)], title[400], quoted[SV_GP_QUOTED(400)], style[128];
    snprintf(name, sizeof name, "%s-latency_vs_%s", stem, by_B ? "B" : "V");
    sv_gp_terminal(f, fmt, 1000, 950, name);
    sv_gp_file(data, file, sizeof file);
    fprintf(f, "set multiplot\nset lmargin 12\nset rmargin 4\n");
    fprintf(f, "set origin 0,0.56\nset size 1,0.44\nunset key\nset logscale xy\nset format x ''\n"
            "unset xlabel\nset ylabel 'median time per step (us)'\n");
    axes(f, pts, n, by_B);
    for (int c = 0; c < curves; c++)
        fprintf(f, "%s %s index %d using 1:2:3:4 with yerrorlines %s ps 0.8 lw 1.5%s\n",
                c ? "    " : "plot", file, c, sv_gp_style(c, 1, style, sizeof style),
                c + 1 < curves ? ", \\" : "");
    fprintf(f, "unset title\nset origin 0,0\nset size 1,0.56\nset key outside below center "
            "horizontal Left reverse maxcols 2\nunset logscale y\nset yrange [0:*]\n"
            "set format x '%%g'\nset xlabel '%s'\n"
            "set ylabel 'interquartile range (%% of median)'\n",
            by_B ? "batch size B (sequences)" : "vocabulary size V");
    for (int c = 0; c < curves; c++) {
        const sv_bench_point *p = &pts[first[c]];
        char mode[32];
        mode_text(p, mode, sizeof mode);
        snprintf(title, sizeof title, "%s K=%d %s=%d a=%g %s", p->sampler, p->K,
                 by_B ? "V" : "B", by_B ? p->V : p->B, p->accept_target, mode);
        fprintf(f, "%s %s index %d using 1:(100 * ($4 - $3) / $2) with linespoints %s ps 0.8 "
                "lw 1.5 title %s%s\n", c ? "    " : "plot", file, c,
                sv_gp_style(c, 1, style, sizeof style), sv_gp_string(title, quoted, sizeof quoted),
                c + 1 < curves ? ", \\" : "");
    }
    fprintf(f, "unset multiplot\n");
}

int sv_bench_plot(const char *dir, const char *stem, const sv_bench_device *d,
                  const sv_bench_point *pts, size_t n, char *note, size_t note_len)
{
    char path[4096], data_B[600], data_V[600], text[600], quoted[SV_GP_QUOTED(600)];
    note[0] = '\0';
    snprintf(data_B, sizeof data_B, "%s-latency_B.dat", stem);
    snprintf(data_V, sizeof data_V, "%s-latency_V.dat", stem);
    int curves[2] = {0, 0};
    size_t *first[2] = {calloc(n ? n : 1, sizeof(size_t)), calloc(n ? n : 1, sizeof(size_t))};
    int rc = first[0] && first[1] ? SV_OK : sv_fail(SV_EENV, "bench plots: out of memory");
    for (int by_B = 1; rc == SV_OK && by_B >= 0; by_B--) {
        snprintf(path, sizeof path, "%s/%s", dir, by_B ? data_B : data_V);
        sv_atomic_file data; /* written whole; a device there is written, not replaced */
        if ((rc = sv_atomic_open(&data, path)) != SV_OK)
            break;
        curves[by_B] = write_curves(data.fp, pts, n, by_B, first[by_B]);
        if (curves[by_B] < 0) {
            sv_atomic_abort(&data);
            rc = sv_fail(SV_EBAD, "bench plots: cannot write %s", path);
        } else {
            rc = sv_atomic_commit(&data);
        }
    }
    snprintf(path, sizeof path, "%s/%s-plot.gp", dir, stem);
    sv_atomic_file script;
    if (rc == SV_OK)
        rc = sv_atomic_open(&script, path);
    if (rc == SV_OK) {
        FILE *f = script.fp;
        snprintf(text, sizeof text, "%s-plot.gp", stem);
        fprintf(f, "# run gnuplot %s in this folder\n", sv_gp_string(text, quoted, sizeof quoted));
        fprintf(f, "set grid\nset termoption noenhanced\nset bars 1.5\n");
        static const char *const exts[3] = {"png", "svg", "pdf"};
        for (int by_B = 1; by_B >= 0; by_B--) {
            snprintf(text, sizeof text, "step latency against %s on %s (bars: interquartile "
                     "range)", by_B ? "B" : "V", d->name);
            for (int e = 0; e < 3; e++) {
                fprintf(f, "set title %s\n", sv_gp_string(text, quoted, sizeof quoted));
                plot_command(f, stem, by_B, by_B ? data_B : data_V, pts, n, first[by_B],
                             curves[by_B], exts[e]);
            }
        }
        rc = sv_atomic_commit(&script);
    }
    free(first[0]);
    free(first[1]);
    if (rc != SV_OK)
        return rc;
    snprintf(path, sizeof path, "%s-plot.gp", stem);
    return sv_gnuplot_run(dir, path, note, note_len);
}

int sv_bench_plot_beside(int rc_so_far, const char *h5_path, const sv_bench_device *d,
                         const sv_bench_point *pts, size_t n, const char *dir_override)
{
    char dir[4096], stem[512];
    const char *slash = strrchr(h5_path, '/');
    if (dir_override)
        snprintf(dir, sizeof dir, "%s", dir_override);
    else if (slash)
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - h5_path), h5_path);
    else
        snprintf(dir, sizeof dir, ".");
    const char *base = slash ? slash + 1 : h5_path;
    size_t len = strlen(base);
    if (len > 3 && strcmp(base + len - 3, ".h5") == 0)
        len -= 3;
    snprintf(stem, sizeof stem, "%.*s", (int)len, base);
    /* the script names the files it reads and writes, and a gnuplot string
     * cannot hold a control character: the plots' names get '_' for one */
    for (char *c = stem; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7F)
            *c = '_';
    char note[1024];
    int rc = sv_bench_plot(dir, stem, d, pts, n, note, sizeof note);
    if (rc == SV_OK && !note[0])
        fprintf(stderr, "wrote %s/%s-latency_vs_B and _vs_V (.png, .svg, .pdf; %s-plot.gp redraws "
                "them)\n", dir, stem, stem);
    return sv_gnuplot_status(rc_so_far, rc, note);
}
