/* compare.h: `specverify compare` in parts: the files and their labels, the
 * points matched and judged (compare_points.c), the JSON (compare_json.c)
 * and the plot along one axis (compare_plot.c); cmd_compare.c runs them. */
#ifndef SV_COMPARE_H
#define SV_COMPARE_H

#include <stddef.h>
#include <stdio.h>
#include "sv_bench.h"

#define SV_COMPARE_MAX_FILES 16
#define SV_COMPARE_MAX_WHERE 8

typedef struct sv_compare_file {
    const char *path;
    char shown[1024]; /* the path as printed: escaped (an argument's bytes) */
    char label[1400]; /* its device's name, and its file's when two devices share a name */
    sv_bench_device device;
    sv_bench_point *pts;
    size_t n;
} sv_compare_file;

/* --where AXIS=V1[,V2...]: the points kept (axes sampler, B, K, V, a, input,
 * cold, graph) */
typedef struct sv_compare_where {
    char axis[16];
    char values[256]; /* the list as given, each value compared as text */
} sv_compare_where;

/* One point of BASE beside its match in OTHER (other NULL: only in BASE). */
typedef struct sv_compare_row {
    const sv_bench_point *base, *other;
    double ratio, threshold; /* other / base; the verdict's bound, as a ratio - 1 */
    const char *verdict;     /* FASTER, SLOWER, SAME, or NULL with no match */
} sv_compare_row;

int sv_compare_same_point(const sv_bench_point *a, const sv_bench_point *b);
/* FASTER (other is quicker), SLOWER or SAME, and ln(ratio) and the threshold
 * in log units: the noise's (3 combined standard errors), or the minimum
 * difference's when larger. */
const char *sv_compare_verdict(const sv_bench_point *base, const sv_bench_point *other,
                               double min_diff, double *log_ratio, double *threshold);
/* "cuda_fused B=64 K=5 V=128256 a=0.7 logits-bf16 cold graph" */
void sv_compare_point_label(const sv_bench_point *p, char *out, size_t len);
/* A point's value on an axis as text ("64", "cuda_fused", "hot"); "" for an
 * unknown axis. */
void sv_compare_axis_value(const sv_bench_point *p, const char *axis, char *out, size_t len);
int sv_compare_axis_known(const char *axis);
/* Parses AXIS=V1[,V2...] into w: SV_OK or SV_EBAD naming the axes. */
int sv_compare_parse_where(const char *text, sv_compare_where *w);
/* 1 when p passes every filter. */
int sv_compare_kept(const sv_bench_point *p, const sv_compare_where *w, int n_where);
/* Each file's label: its device's name, "NAME (FILE)" where devices repeat. */
void sv_compare_labels(sv_compare_file *files, int n);
/* The rows of base against other, base's points first (kept ones only),
 * then other's unmatched: *rows malloc'd, *n_rows; SV_OK or SV_EENV. */
int sv_compare_rows(const sv_compare_file *base, const sv_compare_file *other, double min_diff,
                    const sv_compare_where *w, int n_where, sv_compare_row **rows,
                    size_t *n_rows);

/* compare_json.c: --json FILE, every file against the first (docs/formats.md). */
int sv_compare_json(const char *path, const sv_compare_file *files, int n_files,
                    sv_compare_row *const *rows, const size_t *n_rows, double min_diff,
                    const char *fail_on);

/* compare_plot.c: DIR/compare.dat, compare.gp and the plot (PNG, SVG, PDF) of
 * each file's ratio to the first along `axis`, one series per file and
 * combination of the other axes that vary (at most 16; else SV_EBAD saying
 * which to filter), each point with its noise band; sv_gnuplot_status's. */
int sv_compare_plot(const char *dir, const char *axis, const sv_compare_file *files,
                    int n_files, sv_compare_row *const *rows, const size_t *n_rows,
                    double min_diff);
/* DIR made, and its files checked before anything is read. */
int sv_compare_plot_ready(const char *dir);

#endif
