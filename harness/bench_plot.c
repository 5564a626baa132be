/* bench_plot.c: latency plots of a bench file, drawn by gnuplot from a
 * script written beside the data (cd DIR && gnuplot STEM-plot.gp):
 *   STEM-latency_vs_B: median time per step against B, log-log, one curve
 *                      per sampler, V, acceptance rate and mode;
 *   STEM-latency_vs_V: the same against V, one curve per sampler and B...
 * Bars span the interquartile range. Data: STEM-latency.dat, one block per
 * curve (gnuplot's index), each opening with its title. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"
#include "sv_harness.h"

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

/* Writes the curves along B (by_B) or V as data blocks; returns their count. */
static int write_curves(FILE *f, const sv_bench_point *pts, size_t n, int by_B)
{
    char *done = calloc(n ? n : 1, 1);
    int curves = 0;
    if (!done)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (done[i])
            continue;
        char mode[32];
        mode_text(&pts[i], mode, sizeof mode);
        fprintf(f, "%s\"%s K=%d %s=%d a=%g %s\"\n", curves ? "\n\n" : "", pts[i].sampler,
                pts[i].K, by_B ? "V" : "B", by_B ? pts[i].V : pts[i].B, pts[i].accept_target,
                mode);
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

static void plot_command(FILE *f, const char *stem, const char *which, const char *data,
                         int curves, const char *fmt)
{
    fprintf(f, "set terminal %s size 1000,650 noenhanced font ',10'\n",
            strcmp(fmt, "svg") == 0 ? "svg" : "pngcairo");
    fprintf(f, "set output '%s-latency_vs_%s.%s'\n", stem, which, fmt);
    /* eight colours; with six point shapes, 24 curves stay apart */
    fprintf(f, "plot for [i=0:%d] '%s' index i using 1:2:3:4 with yerrorlines lc ((i%%8)+1) "
            "pt ((i%%6)+4) ps 0.7 title columnheader(1)\n", curves - 1, data);
}

int sv_bench_plot(const char *dir, const char *stem, const sv_bench_device *d,
                  const sv_bench_point *pts, size_t n, char *note, size_t note_len)
{
    char path[4096], data_B[512], data_V[512];
    note[0] = '\0';
    snprintf(data_B, sizeof data_B, "%s-latency_B.dat", stem);
    snprintf(data_V, sizeof data_V, "%s-latency_V.dat", stem);
    int curves[2] = {0, 0};
    for (int by_B = 1; by_B >= 0; by_B--) {
        snprintf(path, sizeof path, "%s/%s", dir, by_B ? data_B : data_V);
        FILE *f = fopen(path, "w");
        if (!f)
            return sv_fail(SV_EBAD, "bench plots: cannot write %s", path);
        curves[by_B] = write_curves(f, pts, n, by_B);
        if (fclose(f) != 0 || curves[by_B] < 0)
            return sv_fail(SV_EBAD, "bench plots: cannot write %s", path);
    }
    snprintf(path, sizeof path, "%s/%s-plot.gp", dir, stem);
    FILE *f = fopen(path, "w");
    if (!f)
        return sv_fail(SV_EBAD, "bench plots: cannot write %s", path);
    fprintf(f, "# %s-plot.gp: run 'gnuplot %s-plot.gp' in this folder\n", stem, stem);
    fprintf(f, "set grid\nset key outside right top noenhanced\nset logscale xy\n");
    fprintf(f, "set ylabel 'median time per step (us), bars: interquartile range'\n");
    for (int by_B = 1; by_B >= 0; by_B--) {
        fprintf(f, "set xlabel '%s'\n", by_B ? "batch size B (sequences)" : "vocabulary size V");
        fprintf(f, "set title 'step latency against %s on %s'\n", by_B ? "B" : "V", d->name);
        plot_command(f, stem, by_B ? "B" : "V", by_B ? data_B : data_V, curves[by_B], "png");
        plot_command(f, stem, by_B ? "B" : "V", by_B ? data_B : data_V, curves[by_B], "svg");
    }
    if (fclose(f) != 0)
        return sv_fail(SV_EBAD, "bench plots: cannot write %s", path);
    snprintf(path, sizeof path, "%s-plot.gp", stem);
    sv_gnuplot_run(dir, path, note, note_len);
    return SV_OK;
}

int sv_bench_plot_beside(const char *h5_path, const sv_bench_device *d,
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
    char note[1024];
    int rc = sv_bench_plot(dir, stem, d, pts, n, note, sizeof note);
    if (rc == SV_OK && note[0])
        fprintf(stderr, "specverify: %s\n", note);
    else if (rc == SV_OK)
        fprintf(stderr, "wrote %s/%s-latency_vs_B and _vs_V (.png, .svg; %s-plot.gp redraws "
                "them)\n", dir, stem, stem);
    return rc;
}
