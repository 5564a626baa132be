/* compare_plot.c: `compare --plot DIR [--axis B]`: each file's median time
 * over the first file's, along one numeric axis (B, K, V or a), one series
 * per file and combination of the other axes that vary. Each point carries
 * its noise band (the ratio times and over 1 + the threshold its verdict
 * used: a band that crosses 1 is SAME), the minimum practical difference is
 * shaded around 1, the y axis is fitted to the data, the x tics are the
 * axis's own values, and a series keeps a colour, a dash and a point
 * shape (sv_gp_style) so 16 stay apart in print. Labels are device names (compare.h), every string through
 * sv_gp_string. PNG, SVG and PDF from DIR/compare.gp. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "compare.h"
#include "sv_cli.h"
#include "sv_plot.h"
#include "sv_store.h"

#define MAX_SERIES 16

static const char *const others_of[] = {"sampler", "B", "K", "V", "a", "input", "cold", "graph"};
#define N_OTHERS (sizeof others_of / sizeof others_of[0])

int sv_compare_plot_ready(const char *dir)
{
    char path[4096];
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return sv_fail(SV_EBAD, "--plot: cannot create the folder %s: %s", dir, strerror(errno));
    if (snprintf(path, sizeof path, "%s/compare.dat", dir) >= (int)sizeof path)
        return sv_fail(SV_EBAD, "--plot %.60s...: the path is too long", dir);
    int rc = sv_atomic_check(path);
    snprintf(path, sizeof path, "%s/compare.gp", dir);
    return rc == SV_OK ? sv_atomic_check(path) : rc;
}

/* The series key of a row: the values of the axes (not `axis`) in `vary`. */
static void key_of(const sv_bench_point *p, const char *axis, const int *vary, char *out,
                   size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t a = 0; a < N_OTHERS && used < len; a++) {
        if (!vary[a] || strcmp(others_of[a], axis) == 0)
            continue;
        char v[128];
        sv_compare_axis_value(p, others_of[a], v, sizeof v);
        const int named = strcmp(others_of[a], "sampler") != 0 &&
                          strcmp(others_of[a], "input") != 0 &&
                          strcmp(others_of[a], "cold") != 0 && strcmp(others_of[a], "graph") != 0;
        used += (size_t)snprintf(out + used, len - used, "%s%s%s%s", used ? " " : "",
                                 named ? others_of[a] : "", named ? "=" : "", v);
    }
}

typedef struct series {
    int file;
    char key[256];
} series;

static double x_of(const sv_bench_point *p, const char *axis)
{
    char v[64];
    sv_compare_axis_value(p, axis, v, sizeof v);
    return strtod(v, NULL); /* the axis's own number, printed by %d or %g */
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void body(FILE *f, const char *ext, const char *title, const char *axis,
                 const series *ss, int n_series, const sv_compare_file *files)
{
    char text[2000], quoted[SV_GP_QUOTED(2000)], style[128];
    sv_gp_terminal(f, ext, 1100, 700, "compare");
    fprintf(f, "set title %s\nplot ", sv_gp_string(title, quoted, sizeof quoted));
    for (int s = 0; s < n_series; s++) {
        snprintf(text, sizeof text, "%s%s%s", files[ss[s].file].label, ss[s].key[0] ? ": " : "",
                 ss[s].key);
        fprintf(f, "%s'compare.dat' index %d using 1:2:3:4 with yerrorlines %s ps 0.9 lw 1.5 "
                "title %s", s ? ", \\\n     " : "", s, sv_gp_style(s, 1, style, sizeof style),
                sv_gp_string(text, quoted, sizeof quoted));
    }
    fprintf(f, ", \\\n     1 with lines lc rgb '#555555' dt 2 notitle\n");
    (void)axis;
}

int sv_compare_plot(const char *dir, const char *axis, const sv_compare_file *files,
                    int n_files, sv_compare_row *const *rows, const size_t *n_rows,
                    double min_diff)
{
    if (strcmp(axis, "B") != 0 && strcmp(axis, "K") != 0 && strcmp(axis, "V") != 0 &&
        strcmp(axis, "a") != 0)
        return sv_fail(SV_EBAD, "--axis %s: plots run along a numeric axis: B, K, V or a", axis);
    /* the axes that vary among the matched points, across every file */
    int vary[N_OTHERS] = {0};
    const sv_bench_point *first = NULL;
    for (int j = 1; j < n_files; j++)
        for (size_t i = 0; i < n_rows[j]; i++) {
            const sv_compare_row *r = &rows[j][i];
            if (!r->base || !r->other)
                continue;
            if (!first)
                first = r->base;
            for (size_t a = 0; a < N_OTHERS; a++) {
                char u[128], v[128];
                sv_compare_axis_value(first, others_of[a], u, sizeof u);
                sv_compare_axis_value(r->base, others_of[a], v, sizeof v);
                vary[a] |= strcmp(u, v) != 0;
            }
        }
    if (!first)
        return sv_fail(SV_EBAD, "compare --plot: no point is in both files (after --where)");
    series ss[MAX_SERIES];
    int n_series = 0;
    for (int j = 1; j < n_files; j++)
        for (size_t i = 0; i < n_rows[j]; i++) {
            const sv_compare_row *r = &rows[j][i];
            if (!r->base || !r->other)
                continue;
            char key[256];
            key_of(r->base, axis, vary, key, sizeof key);
            int found = 0;
            for (int s = 0; s < n_series && !found; s++)
                found = ss[s].file == j && strcmp(ss[s].key, key) == 0;
            if (found)
                continue;
            if (n_series == MAX_SERIES)
                return sv_fail(SV_EBAD, "compare --plot: more than %d series along %s (one per "
                               "file and combination of the other axes that vary); keep fewer "
                               "with --where, e.g. --where sampler=cuda_fused", MAX_SERIES,
                               axis);
            ss[n_series].file = j;
            snprintf(ss[n_series].key, sizeof ss[n_series].key, "%s", key);
            n_series++;
        }
    char path[4096];
    snprintf(path, sizeof path, "%s/compare.dat", dir);
    sv_atomic_file af;
    int rc = sv_atomic_open(&af, path);
    if (rc != SV_OK)
        return rc;
    double xs[512], lo = INFINITY, hi = -INFINITY;
    size_t n_x = 0;
    fprintf(af.fp, "# one block per series (compare.gp's index): %s ratio ratio/(1+t) "
            "ratio*(1+t), t the verdict's threshold\n", axis);
    for (int s = 0; s < n_series; s++) {
        const int j = ss[s].file;
        fprintf(af.fp, "%s# %d\n", s ? "\n\n" : "", s);
        /* this series' rows in the axis's order */
        double done = -INFINITY;
        for (;;) {
            const sv_compare_row *next = NULL;
            for (size_t i = 0; i < n_rows[j]; i++) {
                const sv_compare_row *r = &rows[j][i];
                char key[256];
                if (!r->base || !r->other)
                    continue;
                key_of(r->base, axis, vary, key, sizeof key);
                const double x = x_of(r->base, axis);
                if (strcmp(key, ss[s].key) == 0 && x > done && (!next || x < x_of(next->base, axis)))
                    next = r;
            }
            if (!next)
                break;
            done = x_of(next->base, axis);
            const double band = 1.0 + next->threshold;
            fprintf(af.fp, "%.9g %.6g %.6g %.6g\n", done, next->ratio, next->ratio / band,
                    next->ratio * band);
            lo = fmin(lo, next->ratio / band), hi = fmax(hi, next->ratio * band);
            int seen = 0;
            for (size_t k = 0; k < n_x; k++)
                seen |= xs[k] == done;
            if (!seen && n_x < sizeof xs / sizeof xs[0])
                xs[n_x++] = done;
        }
    }
    if ((rc = sv_atomic_commit(&af)) != SV_OK)
        return rc;
    qsort(xs, n_x, sizeof xs[0], cmp_double);
    lo = fmin(lo, 1.0 / (1.0 + min_diff)), hi = fmax(hi, 1.0 + min_diff);

    snprintf(path, sizeof path, "%s/compare.gp", dir);
    if ((rc = sv_atomic_open(&af, path)) != SV_OK)
        return rc;
    FILE *f = af.fp;
    char text[2000], quoted[SV_GP_QUOTED(2000)];
    fprintf(f, "# compare.gp: run 'gnuplot compare.gp' in this folder\n");
    fprintf(f, "set grid\nset termoption noenhanced\nset key outside below center noenhanced\n");
    if (n_x > 1 && xs[0] > 0 && xs[n_x - 1] / xs[0] >= 16)
        fprintf(f, "set logscale x 2\n");
    fprintf(f, "set xtics (");
    for (size_t k = 0; k < n_x; k++)
        fprintf(f, "%s'%g' %.9g", k ? ", " : "", xs[k], xs[k]);
    fprintf(f, ")\nset offsets graph 0.04, graph 0.04, 0, 0\n");
    /* fitted to the data, with room: a 3% effect must not be a flat line */
    const double pad = 0.1 * (hi - lo) + 0.005;
    fprintf(f, "set yrange [%.6g:%.6g]\nset format y '%%.3g'\nset mytics 2\n", lo - pad,
            hi + pad);
    fprintf(f, "set object 1 rectangle from graph 0, first %.6g to graph 1, first %.6g behind "
            "fillcolor rgb '#e6e6e6' fillstyle solid noborder\n", 1.0 / (1.0 + min_diff),
            1.0 + min_diff);
    fprintf(f, "set xlabel %s offset 0,0.6\n", sv_gp_string(strcmp(axis, "a") == 0 ? "acceptance rate a"
                                               : strcmp(axis, "B") == 0 ? "batch size B"
                                               : strcmp(axis, "K") == 0 ? "drafts per step K"
                                                                        : "vocabulary V",
                                               quoted, sizeof quoted));
    snprintf(text, sizeof text, "median time / %s's (lower is faster; bars: noise band)",
             files[0].label);
    fprintf(f, "set ylabel %s\n", sv_gp_string(text, quoted, sizeof quoted));
    snprintf(text, sizeof text, "against %s, along %s (shaded: within %g%%)", files[0].label,
             axis, 100.0 * min_diff);
    static const char *const exts[3] = {"png", "svg", "pdf"};
    for (int e = 0; e < 3; e++)
        body(f, exts[e], text, axis, ss, n_series, files);
    if ((rc = sv_atomic_commit(&af)) != SV_OK)
        return rc;
    char note[1024];
    return sv_gnuplot_status(SV_OK, sv_gnuplot_run(dir, "compare.gp", note, sizeof note), note);
}
