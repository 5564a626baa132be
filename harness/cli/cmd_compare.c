/* cmd_compare.c: `specverify compare A.h5 B.h5 [...]`: bench results from
 * different runs or GPUs, point by point against the first file (how
 * points match and are judged: compare_points.c), as tables, JSON
 * (compare_json.c) and a plot along one axis (compare_plot.c); with
 * --fail-on slower, a CI gate. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "compare.h"
#include "sv_cli.h"
#include "sv_store.h"

#define MAX_FILES SV_COMPARE_MAX_FILES

static void usage(FILE *out)
{
    fprintf(out,
            "usage: specverify compare BASE.h5 OTHER.h5 [OTHER.h5 ...] [--min-diff D]\n"
            "                          [--fail-on slower] [--json FILE] [--where AXIS=V,...]\n"
            "                          [--plot DIR [--axis B|K|V|a]]\n"
            "\n"
            "Lines up the points of bench files (specverify bench --out) with those of\n"
            "BASE: for each point the medians, the ratio OTHER / BASE, and FASTER, SLOWER\n"
            "or SAME, judged against the noise both runs measured: a difference counts\n"
            "when |ln ratio| > 3 sqrt(noise_base^2 + noise_other^2), and also exceeds\n"
            "the minimum practical difference D (|ln ratio| > ln(1 + D)). Warns when the\n"
            "devices differ and lists points found in one file only. Files are labelled\n"
            "by their device's name (and file, where two share a device).\n"
            "\n"
            "  --min-diff D  the smallest relative difference called FASTER or SLOWER\n"
            "                (default 0.02: 2%%; 0 for the noise rule alone)\n"
            "  --fail-on slower  exit 1 when any point is SLOWER, naming each (a CI gate)\n"
            "  --json FILE   every point's medians, ratio, threshold and verdict as data\n"
            "                (docs/formats.md#compare-json)\n"
            "  --where AXIS=V1[,V2...]  keep the points whose AXIS (sampler, B, K, V, a,\n"
            "                input, cold, graph) is one of the values (repeatable: all hold)\n"
            "  --plot DIR    write DIR/compare.dat, DIR/compare.gp and the ratio plot (PNG,\n"
            "                SVG, PDF) along --axis (default B), each point with its noise\n"
            "                band, one series per file and combination of the other axes\n"
            "                that vary (at most 16: narrow them with --where)\n"
            "\n"
            "Exit status: 0 compared, 1 a point SLOWER under --fail-on slower, 2 bad usage or\n"
            "a file that is not a valid bench file, 3 gnuplot failed on the plot (the tables\n"
            "are printed, its data written).\n"
            "\n"
            "Examples:\n"
            "  specverify compare results/gpu/NVIDIA_H100_80GB_HBM3/bench.h5 \\\n"
            "      results/gpu/NVIDIA_H200/bench.h5 --fail-on slower --json compare.json\n"
            "  specverify compare results/gpu/NVIDIA_H100_80GB_HBM3/bench.h5 \\\n"
            "      results/gpu/NVIDIA_H200/bench.h5 --where sampler=cuda_fused --plot cmp --axis B\n");
}

/* The table of base against o (its rows), on stdout. */
static void print_table(const sv_compare_file *base, const sv_compare_file *o,
                        const sv_compare_row *rows, size_t n_rows)
{
    if (strcmp(o->device.name, base->device.name) != 0)
        printf("warning: devices differ: %s ran on %s, %s on %s\n", base->shown, base->label,
               o->shown, o->label);
    printf("\n%s on %s against %s on %s\n\n", o->shown, o->device.name, base->shown,
           base->device.name);
    char cell_base[2048], cell_other[2048], cell[512], label[256];
    sv_md_cell(cell_base, sizeof cell_base, base->label);
    sv_md_cell(cell_other, sizeof cell_other, o->label);
    printf("| point | %s median us | %s median us | ratio | threshold | verdict |\n", cell_base,
           cell_other);
    printf("|---|---:|---:|---:|---:|---|\n");
    size_t faster = 0, slower = 0, same = 0, only_base = 0, only_other = 0;
    for (size_t i = 0; i < n_rows; i++) {
        const sv_compare_row *r = &rows[i];
        sv_compare_point_label(r->base ? r->base : r->other, label, sizeof label);
        sv_md_cell(cell, sizeof cell, label);
        if (r->base && !r->other) {
            only_base++;
            printf("| %s | %.2f | - | - | - | only in %s |\n", cell, r->base->median_us,
                   cell_base);
        } else if (!r->base && r->other) {
            only_other++;
            printf("| %s | - | %.2f | - | - | only in %s |\n", cell, r->other->median_us,
                   cell_other);
        } else if (r->base && r->other) {
            faster += strcmp(r->verdict, "FASTER") == 0;
            slower += strcmp(r->verdict, "SLOWER") == 0;
            same += strcmp(r->verdict, "SAME") == 0;
            printf("| %s | %.2f | %.2f | %.3f | %.1f%% | %s |\n", cell, r->base->median_us,
                   r->other->median_us, r->ratio, 100.0 * r->threshold, r->verdict);
        }
    }
    printf("\n%zu faster, %zu slower, %zu same", faster, slower, same);
    if (only_base || only_other)
        printf("; warning: parameters differ: %zu points only in %s, %zu only in %s", only_base,
               base->label, only_other, o->label);
    printf("\n");
}

/* --fail-on slower: each SLOWER point named on stderr; SV_EVERIFY if any. */
static int gate(const sv_compare_file *files, int n_files, sv_compare_row *const *rows,
                const size_t *n_rows)
{
    size_t slower = 0;
    char label[256];
    for (int j = 1; j < n_files; j++)
        for (size_t i = 0; i < n_rows[j]; i++)
            if (rows[j][i].verdict && strcmp(rows[j][i].verdict, "SLOWER") == 0) {
                sv_compare_point_label(rows[j][i].base, label, sizeof label);
                fprintf(stderr, "compare: SLOWER: %s on %s: %.2f us against %.2f us (%.3fx, "
                        "threshold %.1f%%)\n", label, files[j].label,
                        rows[j][i].other->median_us, rows[j][i].base->median_us,
                        rows[j][i].ratio, 100.0 * rows[j][i].threshold);
                slower++;
            }
    if (!slower)
        return SV_OK;
    fprintf(stderr, "compare: %zu point%s SLOWER than %s (--fail-on slower)\n", slower,
            slower == 1 ? "" : "s", files[0].label);
    return SV_EVERIFY;
}

static const struct option options[] = {
    {"plot", required_argument, 0, 'p'},    {"min-diff", required_argument, 0, 'm'},
    {"fail-on", required_argument, 0, 'f'}, {"json", required_argument, 0, 'j'},
    {"where", required_argument, 0, 'w'},   {"axis", required_argument, 0, 'a'},
    {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
static const char optstring[] = ":p:m:f:j:w:a:h";
/* the flags, for `run` to check an experiment's keys against before it runs */
const sv_command_flags sv_compare_flags = {optstring, options};

int sv_cmd_compare(int argc, char **argv)
{
    const char *plot_dir = NULL, *json = NULL, *fail_on = NULL, *axis = "B";
    sv_compare_where where[SV_COMPARE_MAX_WHERE];
    int n_where = 0;
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
        case 'j':
            if (sv_output_flag("compare", "--json", &json, optarg) != SV_OK)
                return SV_EBAD;
            break;
        case 'm':
            if (sv_parse_double("--min-diff", optarg, 0.0, 1.0, 0, &min_diff) != SV_OK)
                return SV_EBAD;
            break;
        case 'f':
            if (strcmp(optarg, "slower") != 0)
                return sv_fail(SV_EBAD, "--fail-on '%s': the one condition is 'slower' (any "
                               "point SLOWER than the first file's)", optarg);
            fail_on = optarg;
            break;
        case 'w':
            if (n_where == SV_COMPARE_MAX_WHERE)
                return sv_fail(SV_EBAD, "--where: at most %d filters", SV_COMPARE_MAX_WHERE);
            if (sv_compare_parse_where(optarg, &where[n_where++]) != SV_OK)
                return SV_EBAD;
            break;
        case 'a': axis = optarg; break;
        case 'h': usage(stdout); return SV_OK;
        default: return sv_option_error("compare", opt, options, argv);
        }
    }
    if (!sv_compare_axis_known(axis) || strcmp(axis, "sampler") == 0 ||
        strcmp(axis, "input") == 0 || strcmp(axis, "cold") == 0 || strcmp(axis, "graph") == 0)
        return sv_fail(SV_EBAD, "--axis '%s': plots run along a numeric axis: B, K, V or a",
                       axis);
    int n_files = argc - optind;
    if (n_files < 2 || n_files > MAX_FILES)
        return sv_fail(SV_EBAD, "compare needs 2 to %d bench files, got %d (see specverify "
                       "compare --help)", MAX_FILES, n_files);
    sv_compare_file files[MAX_FILES];
    memset(files, 0, sizeof files);
    sv_compare_row *rows[MAX_FILES] = {0};
    size_t n_rows[MAX_FILES] = {0};
    int rc = plot_dir ? sv_compare_plot_ready(plot_dir) : SV_OK;
    if (rc == SV_OK && json)
        rc = sv_atomic_check(json);
    if (rc == SV_OK && sv_preflight()) /* the files may be an earlier run's outputs */
        return SV_OK;
    for (int j = 0; rc == SV_OK && j < n_files; j++) {
        files[j].path = argv[optind + j];
        sv_escaped(files[j].shown, sizeof files[j].shown, files[j].path);
        rc = sv_bench_read_h5(files[j].path, &files[j].device, &files[j].pts, &files[j].n);
    }
    if (rc == SV_OK)
        sv_compare_labels(files, n_files);
    for (int j = 1; rc == SV_OK && j < n_files; j++)
        if ((rc = sv_compare_rows(&files[0], &files[j], min_diff, where, n_where, &rows[j],
                                  &n_rows[j])) == SV_OK)
            print_table(&files[0], &files[j], rows[j], n_rows[j]);
    if (rc == SV_OK && json)
        rc = sv_compare_json(json, files, n_files, rows, n_rows, min_diff, fail_on);
    if (rc == SV_OK && plot_dir)
        rc = sv_compare_plot(plot_dir, axis, files, n_files, rows, n_rows, min_diff);
    if (rc == SV_OK && fail_on)
        rc = gate(files, n_files, rows, n_rows);
    for (int j = 0; j < n_files; j++) {
        free(files[j].pts);
        free(rows[j]);
    }
    return rc;
}
