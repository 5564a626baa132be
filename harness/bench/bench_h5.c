/* bench_h5.c: bench results in HDF5 (the schema docs/formats.md documents), and
 * reading them back for `specverify compare`. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "sv_bench.h"
#include "sv_store.h"
#include "sv_cases.h"
#include "sv_registry.h"

/* The per-point columns, in file order. */
enum { N_COLS = 17 };
static const char *const names[N_COLS] = {
    "B", "K", "V", "accept_target", "accept_measured", "median_us", "min_us", "q25_us",
    "q75_us", "reps", "noise", "floor_bytes", "floor_gbps", "copy_fraction", "cold", "graph",
    "through_verify"};

/* What each column may hold when read back (sv_h5_check_values): the ranges
 * `bench` accepts and measures; a time of 0 only for the fastest rep and the
 * lower quartile (event resolution); the target rate NaN for a recording's
 * inputs. compare divides by the medians, sweep --latency interpolates them. */
static const struct {
    double lo, hi;
    unsigned flags;
} ranges[N_COLS] = {
    {1, 1 << 20, SV_H5_WHOLE},              /* B */
    {1, SV_MAX_K, SV_H5_WHOLE},             /* K */
    {2, SV_MAX_V, SV_H5_WHOLE},             /* V */
    {0, 1, SV_H5_NAN_OK},                   /* accept_target */
    {0, 1, 0},                              /* accept_measured */
    {0, INFINITY, SV_H5_ABOVE_LO},          /* median_us */
    {0, INFINITY, 0},                       /* min_us */
    {0, INFINITY, 0},                       /* q25_us */
    {0, INFINITY, SV_H5_ABOVE_LO},          /* q75_us */
    {1, 9007199254740992.0, SV_H5_WHOLE},   /* reps, at most 2^53 */
    {0, INFINITY, 0},                       /* noise */
    {0, INFINITY, 0},                       /* floor_bytes */
    {0, INFINITY, 0},                       /* floor_gbps */
    {0, INFINITY, 0},                       /* copy_fraction */
    {0, 1, SV_H5_WHOLE},                    /* cold */
    {0, 1, SV_H5_WHOLE},                    /* graph */
    {0, 1, SV_H5_WHOLE}};                   /* through_verify */

int sv_bench_write_h5(const char *path, const sv_bench_device *d, const sv_bench_point *pts,
                      size_t n, const char *command)
{
    double *col = malloc(n * sizeof *col);
    const char **samplers = malloc(n * sizeof *samplers);
    const char **inputs = malloc(n * sizeof *inputs);
    if (!col || !samplers || !inputs) {
        free(col);
        free(samplers);
        free(inputs);
        return sv_fail(SV_EENV, "out of memory writing %s", path);
    }
    sv_h5 f;
    int rc = sv_h5_create(&f, path);
    for (size_t i = 0; i < n; i++) {
        samplers[i] = pts[i].sampler;
        inputs[i] = sv_input_name(pts[i].input);
    }
    if (rc == SV_OK)
        rc = sv_h5_strings(&f, "sampler", samplers, n);
    if (rc == SV_OK)
        rc = sv_h5_strings(&f, "input", inputs, n);
    for (int c = 0; rc == SV_OK && c < N_COLS; c++) {
        for (size_t i = 0; i < n; i++) {
            const sv_bench_point *p = &pts[i];
            double gbps = p->floor_bytes / (p->median_us * 1e-6) / 1e9;
            const double v[N_COLS] = {p->B, p->K, p->V, p->accept_target, p->accept_measured,
                                      p->median_us, p->min_us, p->q25_us, p->q75_us,
                                      (double)p->reps, p->noise, p->floor_bytes, gbps,
                                      gbps / d->copy_gbps, p->cold, p->graph,
                                      p->through_verify};
            col[i] = v[c];
        }
        rc = sv_h5_doubles(&f, names[c], col, n, 0);
    }
    for (size_t i = 0; i < n; i++)
        col[i] = (double)pts[i].cold_copies;
    if (rc == SV_OK) /* not a column of names[]: files from before it lack it */
        rc = sv_h5_doubles(&f, "cold_copies", col, n, 0);
    char text[512];
    struct {
        const char *name;
        double value;
    } numbers[] = {{"sm_count", d->sm_count},           {"clock_mhz", d->clock_mhz},
                   {"memory_clock_mhz", d->memory_clock_mhz},
                   {"bus_width_bits", d->bus_width_bits}, {"memory_bytes", d->memory_bytes},
                   {"l2_bytes", d->l2_bytes},           {"peak_gbps", d->peak_gbps},
                   {"copy_gbps", d->copy_gbps},         {"driver_version", d->driver_version},
                   {"runtime_version", d->runtime_version}};
    if (rc == SV_OK)
        rc = sv_h5_attr(&f, "device", d->name);
    for (size_t i = 0; rc == SV_OK && i < sizeof numbers / sizeof numbers[0]; i++) {
        snprintf(text, sizeof text, "%.17g", numbers[i].value);
        rc = sv_h5_attr(&f, numbers[i].name, text);
    }
    time_t now = time(NULL);
    strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    if (rc == SV_OK)
        rc = sv_h5_attr(&f, "date", text);
    if (rc == SV_OK)
        rc = sv_h5_attr(&f, "specverify_version", SV_VERSION);
    if (rc == SV_OK)
        rc = sv_h5_attr(&f, "command", command);
    if (rc == SV_OK)
        rc = sv_h5_attr(&f, "kind", "bench");
    if (rc == SV_OK)
        rc = sv_h5_commit(&f);
    else
        sv_h5_abort(&f);
    free(col);
    free(samplers);
    free(inputs);
    return rc;
}

int sv_bench_read_h5(const char *path, sv_bench_device *d, sv_bench_point **pts, size_t *n)
{
    *pts = NULL;
    *n = 0;
    memset(d, 0, sizeof *d);
    sv_h5_reader r;
    int rc = sv_h5_open(&r, path);
    char text[512];
    if (rc == SV_OK)
        rc = sv_h5_read_attr(&r, "kind", text, sizeof text);
    if (rc == SV_OK && strcmp(text, "bench") != 0)
        rc = sv_fail(SV_EBAD, "%s: a '%s' file, not a bench file (made by specverify bench "
                     "--out)", path, text);
    if (rc == SV_OK)
        rc = sv_h5_read_attr(&r, "device", text, sizeof text);
    if (rc == SV_OK) { /* the file's words are printed and tabled: escaped */
        sv_escape(d->name, sizeof d->name, text, strlen(text));
        rc = sv_h5_read_number(&r, "copy_gbps", 0, INFINITY, SV_H5_ABOVE_LO, &d->copy_gbps);
    }
    double sm = 0.0; /* optional: 0 when a file lacks it */
    if (rc == SV_OK && sv_h5_has_attr(&r, "sm_count"))
        rc = sv_h5_read_number(&r, "sm_count", 0, 1 << 20, SV_H5_WHOLE, &sm);
    d->sm_count = (int)sm;
    char **samplers = NULL;
    size_t rows = 0, cols = 0;
    if (rc == SV_OK)
        rc = sv_h5_read_strings(&r, "sampler", &samplers, n);
    if (rc == SV_OK && !(*pts = calloc(*n ? *n : 1, sizeof **pts)))
        rc = sv_fail(SV_EENV, "%s: out of memory", path);
    for (int c = 0; rc == SV_OK && c < N_COLS; c++) {
        double *col = NULL;
        rc = sv_h5_read_checked(&r, names[c], &col, &rows, &cols, ranges[c].lo, ranges[c].hi,
                                ranges[c].flags);
        if (rc == SV_OK && (rows != *n || cols != 0))
            rc = sv_fail(SV_EBAD, "%s: dataset '%s' has %zu values, 'sampler' has %zu", path,
                         names[c], rows, *n);
        for (size_t i = 0; rc == SV_OK && i < *n; i++) {
            sv_bench_point *p = &(*pts)[i];
            double v = col[i];
            switch (c) {
            case 0: p->B = (int32_t)v; break;
            case 1: p->K = (int32_t)v; break;
            case 2: p->V = (int32_t)v; break;
            case 3: p->accept_target = v; break;
            case 4: p->accept_measured = v; break;
            case 5: p->median_us = v; break;
            case 6: p->min_us = v; break;
            case 7: p->q25_us = v; break;
            case 8: p->q75_us = v; break;
            case 9: p->reps = (int64_t)v; break;
            case 10: p->noise = v; break;
            case 11: p->floor_bytes = v; break;
            case 14: p->cold = v != 0.0; break;
            case 15: p->graph = v != 0.0; break;
            case 16: p->through_verify = v != 0.0; break;
            default: break; /* derived columns: floor_gbps, copy_fraction */
            }
        }
        free(col);
    }
    for (size_t i = 0; samplers && i < *n; i++) {
        if (rc == SV_OK)
            sv_escape((*pts)[i].sampler, sizeof (*pts)[i].sampler, samplers[i],
                      strlen(samplers[i]));
        free(samplers[i]);
    }
    free(samplers);
    /* "input": optional, a file from before the logits modes is all probs */
    char **inputs = NULL;
    size_t n_inputs = 0;
    if (rc == SV_OK && sv_h5_read_strings(&r, "input", &inputs, &n_inputs) == SV_OK) {
        if (n_inputs != *n)
            rc = sv_fail(SV_EBAD, "%s: dataset 'input' has %zu values, 'sampler' has %zu", path,
                         n_inputs, *n);
        for (size_t i = 0; i < n_inputs; i++) {
            int mode = sv_input_find(inputs[i]);
            if (rc == SV_OK && mode < 0)
                rc = sv_fail(SV_EBAD, "%s: input '%s' of point %zu is not probs, logits-f32 "
                             "or logits-bf16", path, inputs[i], i);
            if (rc == SV_OK)
                (*pts)[i].input = mode;
            free(inputs[i]);
        }
        free(inputs);
    }
    /* "cold_copies": optional, a file from before it rotated nothing (1) */
    double *copies = NULL;
    if (rc == SV_OK && sv_h5_read_doubles(&r, "cold_copies", &copies, &rows, &cols) == SV_OK) {
        rc = sv_h5_check_values(&r, "cold_copies", copies, rows, cols, 1, SV_BENCH_MAX_COPIES,
                                SV_H5_WHOLE);
        if (rc == SV_OK && (rows != *n || cols != 0))
            rc = sv_fail(SV_EBAD, "%s: dataset 'cold_copies' has %zu values, 'sampler' has %zu",
                         path, rows, *n);
        for (size_t i = 0; rc == SV_OK && i < *n; i++)
            (*pts)[i].cold_copies = (int64_t)copies[i];
    } else {
        for (size_t i = 0; rc == SV_OK && i < *n; i++)
            (*pts)[i].cold_copies = 1;
    }
    free(copies);
    sv_h5_close(&r);
    if (rc != SV_OK) {
        free(*pts);
        *pts = NULL;
        *n = 0;
    }
    return rc;
}
