/* bench_plot.c: latency plots of a bench file, drawn by gnuplot from a
 * script written beside the data (cd DIR && gnuplot STEM-plot.gp):
 *   STEM-latency_vs_B: median time per step against B, log-log, one curve
 *                      per sampler, V, acceptance rate and mode;
 *   STEM-latency_vs_V: the same against V, one curve per sampler and B...
 * Bars span the interquartile range. Data: STEM-latency_B.dat and _V.dat,
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

static void plot_command(FILE *f, const char *stem, int by_B, const char *data,
                         const sv_bench_point *pts, const size_t *first, int curves,
                         const char *fmt)
{
    char name[700], file[SV_GP_QUOTED(700)], title[400], quoted[SV_GP_QUOTED(400)];
    fprintf(f, "set terminal %s size 1000,650 noenhanced font ',10'\n",
            strcmp(fmt, "svg") == 0 ? "svg" : "pngcairo");
    snprintf(name, sizeof name, "%s-latency_vs_%s.%s", stem, by_B ? "B" : "V", fmt);
    fprintf(f, "set output %s\n", sv_gp_file(name, file, sizeof file));
    sv_gp_file(data, file, sizeof file);
    for (int c = 0; c < curves; c++) {
        const sv_bench_point *p = &pts[first[c]];
        char mode[32];
        mode_text(p, mode, sizeof mode);
        snprintf(title, sizeof title, "%s K=%d %s=%d a=%g %s", p->sampler, p->K,
                 by_B ? "V" : "B", by_B ? p->V : p->B, p->accept_target, mode);
        /* eight colours; with six point shapes, 24 curves stay apart */
        fprintf(f, "%s %s index %d using 1:2:3:4 with yerrorlines lc %d pt %d ps 0.7 title %s%s\n",
                c ? "    " : "plot", file, c, c % 8 + 1, c % 6 + 4,
                sv_gp_string(title, quoted, sizeof quoted), c + 1 < curves ? ", \\" : "");
    }
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
        fprintf(f, "set grid\nset key outside right top noenhanced\nset logscale xy\n");
        fprintf(f, "set ylabel 'median time per step (us), bars: interquartile range'\n");
        for (int by_B = 1; by_B >= 0; by_B--) {
            fprintf(f, "set xlabel '%s'\n",
                    by_B ? "batch size B (sequences)" : "vocabulary size V");
            snprintf(text, sizeof text, "step latency against %s on %s", by_B ? "B" : "V",
                     d->name);
            fprintf(f, "set title %s\n", sv_gp_string(text, quoted, sizeof quoted));
            for (int fmt = 0; fmt < 2; fmt++)
                plot_command(f, stem, by_B, by_B ? data_B : data_V, pts, first[by_B],
                             curves[by_B], fmt ? "svg" : "png");
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
        fprintf(stderr, "wrote %s/%s-latency_vs_B and _vs_V (.png, .svg; %s-plot.gp redraws "
                "them)\n", dir, stem, stem);
    return sv_gnuplot_status(rc_so_far, rc, note);
}
