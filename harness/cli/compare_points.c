/* compare_points.c: which points of two bench files are the same point,
 * how their medians compare, how they are named, and which are kept.
 *
 * A point is the same point when sampler, B, K, V, acceptance rate (none
 * for a recording's inputs), input mode, cold and graph all match. The
 * ratio is median(other) / median(first); it is FASTER or SLOWER only when
 * |log ratio| exceeds 3 times the combined relative error of the two
 * medians (each file's `noise`, the median's relative standard error), and,
 * as NVBench does, also a minimum practical difference (--min-diff, 2%):
 * two very quiet runs would otherwise call a 0.1% difference, which no one
 * acts on, FASTER. SAME otherwise. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "compare.h"
#include "sv_cli.h"

int sv_compare_same_point(const sv_bench_point *a, const sv_bench_point *b)
{
    const int same_accept = a->accept_target == b->accept_target ||
                            (isnan(a->accept_target) && isnan(b->accept_target)); /* recordings */
    return strcmp(a->sampler, b->sampler) == 0 && a->B == b->B && a->K == b->K && a->V == b->V &&
           same_accept && a->input == b->input && a->cold == b->cold && a->graph == b->graph;
}

const char *sv_compare_verdict(const sv_bench_point *base, const sv_bench_point *other,
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

void sv_compare_point_label(const sv_bench_point *p, char *out, size_t len)
{
    snprintf(out, len, "%s B=%d K=%d V=%d a=%g%s%s%s%s", p->sampler, p->B, p->K, p->V,
             p->accept_target, p->input ? " " : "", p->input ? sv_input_name(p->input) : "",
             p->cold ? " cold" : "", p->graph ? " graph" : "");
}

static const char *const axes[] = {"sampler", "B", "K", "V", "a", "input", "cold", "graph"};
#define N_AXES (sizeof axes / sizeof axes[0])

int sv_compare_axis_known(const char *axis)
{
    for (size_t i = 0; i < N_AXES; i++)
        if (strcmp(axis, axes[i]) == 0)
            return 1;
    return 0;
}

void sv_compare_axis_value(const sv_bench_point *p, const char *axis, char *out, size_t len)
{
    if (strcmp(axis, "sampler") == 0)
        snprintf(out, len, "%s", p->sampler);
    else if (strcmp(axis, "B") == 0)
        snprintf(out, len, "%d", p->B);
    else if (strcmp(axis, "K") == 0)
        snprintf(out, len, "%d", p->K);
    else if (strcmp(axis, "V") == 0)
        snprintf(out, len, "%d", p->V);
    else if (strcmp(axis, "a") == 0)
        snprintf(out, len, "%g", p->accept_target);
    else if (strcmp(axis, "input") == 0)
        snprintf(out, len, "%s", sv_input_name(p->input));
    else if (strcmp(axis, "cold") == 0)
        snprintf(out, len, "%s", p->cold ? "cold" : "hot");
    else if (strcmp(axis, "graph") == 0)
        snprintf(out, len, "%s", p->graph ? "graph" : "launch");
    else
        out[0] = '\0';
}

int sv_compare_parse_where(const char *text, sv_compare_where *w)
{
    const char *eq = strchr(text, '=');
    const size_t n = eq ? (size_t)(eq - text) : 0;
    if (!eq || n == 0 || n >= sizeof w->axis || !eq[1] || strlen(eq + 1) >= sizeof w->values)
        return sv_fail(SV_EBAD, "--where '%s': give AXIS=VALUE[,VALUE...], AXIS one of sampler, "
                       "B, K, V, a, input, cold, graph", text);
    memcpy(w->axis, text, n);
    w->axis[n] = '\0';
    snprintf(w->values, sizeof w->values, "%s", eq + 1);
    if (!sv_compare_axis_known(w->axis))
        return sv_fail(SV_EBAD, "--where: unknown axis '%s' (sampler, B, K, V, a, input, cold, "
                       "graph)", w->axis);
    return SV_OK;
}

/* 1 when value is one of the comma-separated list's items. */
static int listed(const char *list, const char *value)
{
    const size_t n = strlen(value);
    for (const char *at = list; *at;) {
        const char *end = strchr(at, ',');
        const size_t len = end ? (size_t)(end - at) : strlen(at);
        if (len == n && strncmp(at, value, n) == 0)
            return 1;
        if (!end)
            break;
        at = end + 1;
    }
    return 0;
}

int sv_compare_kept(const sv_bench_point *p, const sv_compare_where *w, int n_where)
{
    for (int i = 0; i < n_where; i++) {
        char value[128];
        sv_compare_axis_value(p, w[i].axis, value, sizeof value);
        if (!listed(w[i].values, value))
            return 0;
    }
    return 1;
}

void sv_compare_labels(sv_compare_file *files, int n)
{
    for (int j = 0; j < n; j++) {
        int repeated = 0;
        for (int k = 0; k < n; k++)
            repeated |= k != j && strcmp(files[k].device.name, files[j].device.name) == 0;
        const char *device = files[j].device.name; /* escaped when read (bench_h5.c) */
        if (repeated)
            snprintf(files[j].label, sizeof files[j].label, "%s (%s)", device, files[j].shown);
        else
            snprintf(files[j].label, sizeof files[j].label, "%s", device);
    }
}

int sv_compare_rows(const sv_compare_file *base, const sv_compare_file *other, double min_diff,
                    const sv_compare_where *w, int n_where, sv_compare_row **rows,
                    size_t *n_rows)
{
    *n_rows = 0;
    *rows = calloc(base->n + other->n + 1, sizeof **rows);
    if (!*rows)
        return sv_fail(SV_EENV, "compare: out of memory");
    for (size_t i = 0; i < base->n; i++) {
        const sv_bench_point *b = &base->pts[i], *m = NULL;
        if (!sv_compare_kept(b, w, n_where))
            continue;
        for (size_t k = 0; k < other->n && !m; k++)
            if (sv_compare_same_point(b, &other->pts[k]))
                m = &other->pts[k];
        sv_compare_row *r = &(*rows)[(*n_rows)++];
        *r = (sv_compare_row){.base = b, .other = m, .ratio = NAN, .threshold = NAN};
        if (m) {
            double lr, thr;
            r->verdict = sv_compare_verdict(b, m, min_diff, &lr, &thr);
            r->ratio = exp(lr);
            r->threshold = exp(thr) - 1.0;
        }
    }
    for (size_t k = 0; k < other->n; k++) { /* points only in other */
        int found = 0;
        for (size_t i = 0; i < base->n && !found; i++)
            found = sv_compare_same_point(&base->pts[i], &other->pts[k]);
        if (!found && sv_compare_kept(&other->pts[k], w, n_where))
            (*rows)[(*n_rows)++] = (sv_compare_row){.base = NULL, .other = &other->pts[k],
                                                    .ratio = NAN, .threshold = NAN};
    }
    return SV_OK;
}
