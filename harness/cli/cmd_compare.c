/* cmd_compare.c: `specverify compare A.h5 B.h5 [...]`: bench results from
 * different runs or GPUs, point by point against the first file.
 *
 * A point is the same point when sampler, B, K, V, acceptance rate (none
 * for a recording's inputs), input mode, cold and graph all match. The ratio is median(other) / median(first); it is
 * FASTER or SLOWER only when |log ratio| exceeds 3 times the combined
 * relative error of the two medians (each file's `noise`, the median's
 * relative standard error): judged against the noise each run measured;
 * and, as NVBench does, only when it also exceeds a minimum practical
 * difference (--min-diff, 2%): two very quiet runs would otherwise call a
 * 0.1% difference, which no one acts on, FASTER. SAME otherwise. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "sv_bench.h"
#include "sv_cli.h"
#include "sv_plot.h"
#include "sv_store.h"

#define MAX_FILES 16

static void usage(FILE *out)
{
    fprintf(out,
            "usage: specverify compare BASE.h5 OTHER.h5 [OTHER.h5 ...] [--min-diff D]\n"
            "                          [--plot DIR]\n"
            "\n"
            "Lines up the points of bench files (specverify bench --out) with those of\n"
            "BASE: for each point the medians, the ratio OTHER / BASE, and FASTER, SLOWER\n"
            "or SAME, judged against the noise both runs measured: a difference counts\n"
            "when |ln ratio| > 3 sqrt(noise_base^2 + noise_other^2), and also exceeds\n"
            "the minimum practical difference D (|ln ratio| > ln(1 + D)). Warns when the\n"
            "devices differ and lists points found in one file only.\n"
            "\n"
            "  --min-diff D  the smallest relative difference called FASTER or SLOWER\n"
            "                (default 0.02: 2%%; 0 for the noise rule alone)\n"
            "  --plot DIR    write DIR/compare.dat, DIR/compare.gp and the ratio plot (PNG, SVG)\n"
            "\n"
            "Exit status: 0 compared, 2 bad usage or a file that is not a valid bench file,\n"
            "3 gnuplot failed on the plot (the tables are printed, its data written).\n");
}

static int same_point(const sv_bench_point *a, const sv_bench_point *b)
{
    const int same_accept = a->accept_target == b->accept_target ||
                            (isnan(a->accept_target) && isnan(b->accept_target)); /* recordings */
    return strcmp(a->sampler, b->sampler) == 0 && a->B == b->B && a->K == b->K && a->V == b->V &&
           same_accept && a->input == b->input && a->cold == b->cold && a->graph == b->graph;
}

/* FASTER (other is quicker), SLOWER or SAME, and the threshold in log units:
 * the noise's, or the minimum difference's when that is larger. */
static const char *verdict(const sv_bench_point *base, const sv_bench_point *other,
                           double min_diff, double *log_ratio, double *threshold)
{
    *log_ratio = log(other->median_us / base->median_us);
    *threshold = 3.0 * sqrt(base->noise * base->noise + other->noise * other->noise);
    if (*threshold < log1p(min_diff))
        *threshold = log1p(min_diff);
    if (!(fabs(*log_ratio) > *threshold)) /* a NaN (the reader refuses them) is no verdict */
        return "SAME";
    return *log_ratio < 0.0 ? "FASTER" : "SLOWER";
}

typedef struct bench_file {
    const char *path;
    char shown[1024]; /* the path as printed: escaped (an argument's bytes) */
    sv_bench_device device;
    sv_bench_point *pts;
    size_t n;
} bench_file;

static void point_label(const sv_bench_point *p, char *out, size_t len)
{
    snprintf(out, len, "%s B=%d K=%d V=%d a=%g%s%s%s%s", p->sampler, p->B, p->K, p->V,
             p->accept_target, p->input ? " " : "", p->input ? sv_input_name(p->input) : "",
             p->cold ? " cold" : "", p->graph ? " graph" : "");
}

/* DIR, made if missing, and its two files checked before the files are read. */
static int plot_ready(const char *dir)
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

static void write_data(FILE *f, const bench_file *files, int n_files)
{
    fprintf(f, "# index ratio_per_file... (the points' labels are compare.gp's xtics)\n");
    const bench_file *base = &files[0];
    for (size_t i = 0; i < base->n; i++) {
        fprintf(f, "%zu", i);
        for (int j = 1; j < n_files; j++) {
            double ratio = NAN;
            for (size_t m = 0; m < files[j].n; m++)
                if (same_point(&base->pts[i], &files[j].pts[m]))
                    ratio = files[j].pts[m].median_us / base->pts[i].median_us;
            fprintf(f, " %.6g", ratio);
        }
        fprintf(f, "\n");
    }
}

/* Its strings (point labels, file and device names: all from the files) are
 * quoted by sv_gp_string. */
static void write_script(FILE *f, const bench_file *files, int n_files)
{
    const bench_file *base = &files[0];
    char text[4400], quoted[SV_GP_QUOTED(4400)];
    fprintf(f, "# compare.gp: run 'gnuplot compare.gp' in this folder\n");
    fprintf(f, "set grid\nset key outside right top noenhanced\nset termoption noenhanced\n");
    for (size_t i = 0; i < base->n; i++) { /* the first replaces the numbered tics */
        point_label(&base->pts[i], text, sizeof text);
        fprintf(f, "set xtics %s(%s %zu)\n", i ? "add " : "",
                sv_gp_string(text, quoted, sizeof quoted), i);
    }
    fprintf(f, "set xtics rotate by 60 right font ',8'\nset logscale y 2\n");
    fprintf(f, "set offsets 0.5, 0.5, 0, 0\nset bmargin 14\nset xlabel 'point'\n");
    snprintf(text, sizeof text, "median time ratio to %s (lower is faster)", base->shown);
    fprintf(f, "set ylabel %s\n", sv_gp_string(text, quoted, sizeof quoted));
    snprintf(text, sizeof text, "bench comparison against %s (%s)", base->shown,
             base->device.name);
    fprintf(f, "set title %s\n", sv_gp_string(text, quoted, sizeof quoted));
    for (int fmt = 0; fmt < 2; fmt++) {
        fprintf(f, "set terminal %s size 1200,700 noenhanced font ',10'\n",
                fmt ? "svg" : "pngcairo");
        fprintf(f, "set output 'compare.%s'\n", fmt ? "svg" : "png");
        fprintf(f, "plot ");
        for (int j = 1; j < n_files; j++) {
            snprintf(text, sizeof text, "%s (%s)", files[j].shown, files[j].device.name);
            fprintf(f, "%s'compare.dat' using 1:%d with linespoints pt 7 title %s",
                    j > 1 ? ", " : "", j + 1, sv_gp_string(text, quoted, sizeof quoted));
        }
        fprintf(f, ", 1 with lines lt 0 notitle\n");
    }
}

/* DIR/compare.dat and DIR/compare.gp (through sv_atomic: a device there is
 * written, never replaced), then gnuplot on them. */
static int plot(const char *dir, const bench_file *files, int n_files)
{
    char path[4096];
    for (int script = 0; script < 2; script++) {
        snprintf(path, sizeof path, "%s/compare.%s", dir, script ? "gp" : "dat");
        sv_atomic_file f;
        int rc = sv_atomic_open(&f, path);
        if (rc != SV_OK)
            return rc;
        if (script)
            write_script(f.fp, files, n_files);
        else
            write_data(f.fp, files, n_files);
        if ((rc = sv_atomic_commit(&f)) != SV_OK)
            return rc;
    }
    char note[1024];
    return sv_gnuplot_status(SV_OK, sv_gnuplot_run(dir, "compare.gp", note, sizeof note),
                             note);
}

static const struct option options[] = {
    {"plot", required_argument, 0, 'p'}, {"min-diff", required_argument, 0, 'm'},
    {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
static const char optstring[] = ":p:m:h";
/* the flags, for `run` to check an experiment's keys against before it runs */
const sv_command_flags sv_compare_flags = {optstring, options};

int sv_cmd_compare(int argc, char **argv)
{
    const char *plot_dir = NULL;
    double min_diff = 0.02;
    int opt;
    opterr = 0;
    optind = 1;
    while ((opt = getopt_long(argc, argv, optstring, options, NULL)) != -1) {
        switch (opt) {
        case 'p':
            if (sv_output_flag("compare", "--plot", &plot_dir, optarg) != SV_OK)
                return SV_EBAD;
            break;
        case 'm':
            if (sv_parse_double("--min-diff", optarg, 0.0, 1.0, 0, &min_diff) != SV_OK)
                return SV_EBAD;
            break;
        case 'h': usage(stdout); return SV_OK;
        default: return sv_option_error("compare", opt, options, argv);
        }
    }
    int n_files = argc - optind;
    if (n_files < 2 || n_files > MAX_FILES)
        return sv_fail(SV_EBAD, "compare needs 2 to %d bench files, got %d (see specverify "
                       "compare --help)", MAX_FILES, n_files);
    bench_file files[MAX_FILES];
    memset(files, 0, sizeof files);
    int rc = plot_dir ? plot_ready(plot_dir) : SV_OK;
    for (int j = 0; rc == SV_OK && j < n_files; j++) {
        files[j].path = argv[optind + j];
        sv_escaped(files[j].shown, sizeof files[j].shown, files[j].path);
        rc = sv_bench_read_h5(files[j].path, &files[j].device, &files[j].pts, &files[j].n);
    }
    const bench_file *base = &files[0];
    for (int j = 1; rc == SV_OK && j < n_files; j++) {
        const bench_file *o = &files[j];
        if (strcmp(o->device.name, base->device.name) != 0)
            printf("warning: devices differ: %s ran on %s, %s on %s\n", base->shown,
                   base->device.name, o->shown, o->device.name);
        printf("\n%s against %s\n\n", o->shown, base->shown);
        char cell_base[2048], cell_other[2048], cell[512];
        sv_md_cell(cell_base, sizeof cell_base, base->shown);
        sv_md_cell(cell_other, sizeof cell_other, o->shown);
        printf("| point | %s median us | %s median us | ratio | threshold | verdict |\n",
               cell_base, cell_other);
        printf("|---|---:|---:|---:|---:|---|\n");
        size_t faster = 0, slower = 0, same = 0, only_base = 0;
        for (size_t i = 0; i < base->n; i++) {
            const sv_bench_point *b = &base->pts[i], *m = NULL;
            for (size_t k = 0; k < o->n && !m; k++)
                if (same_point(b, &o->pts[k]))
                    m = &o->pts[k];
            char label[256];
            point_label(b, label, sizeof label);
            if (!m) {
                only_base++;
                printf("| %s | %.2f | - | - | - | only in %s |\n",
                       sv_md_cell(cell, sizeof cell, label), b->median_us, cell_base);
                continue;
            }
            double lr, thr;
            const char *v = verdict(b, m, min_diff, &lr, &thr);
            faster += strcmp(v, "FASTER") == 0; /* "FASTER"[1] is 'A' too, as in "SAME" */
            slower += strcmp(v, "SLOWER") == 0;
            same += strcmp(v, "SAME") == 0;
            printf("| %s | %.2f | %.2f | %.3f | %.1f%% | %s |\n",
                   sv_md_cell(cell, sizeof cell, label), b->median_us,
                   m->median_us, exp(lr), 100.0 * (exp(thr) - 1.0), v);
        }
        size_t only_other = 0;
        for (size_t k = 0; k < o->n; k++) {
            int found = 0;
            for (size_t i = 0; i < base->n && !found; i++)
                found = same_point(&base->pts[i], &o->pts[k]);
            if (!found) {
                char label[256];
                point_label(&o->pts[k], label, sizeof label);
                printf("| %s | - | %.2f | - | - | only in %s |\n",
                       sv_md_cell(cell, sizeof cell, label), o->pts[k].median_us, cell_other);
                only_other++;
            }
        }
        printf("\n%zu faster, %zu slower, %zu same", faster, slower, same);
        if (only_base || only_other)
            printf("; warning: parameters differ: %zu points only in %s, %zu only in %s",
                   only_base, base->shown, only_other, o->shown);
        printf("\n");
    }
    if (rc == SV_OK && plot_dir)
        rc = plot(plot_dir, files, n_files);
    for (int j = 0; j < n_files; j++)
        free(files[j].pts);
    return rc;
}
