/* recorded_args.c: --recorded FILE[:GROUP] and its pipeline options into
 * case specs, one per recorded step. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sv_cli.h"
#include "sv_cases.h"

int sv_recorded_opts_check(const sv_recorded_opts *o)
{
    const char *flags[] = {"--steps", "--T", "--top-k", "--top-p", "--mismatch-T", "--K"};
    const char *given[] = {o->steps, o->T, o->top_k, o->top_p, o->mismatch_T, o->K};
    for (size_t i = 0; !o->path && i < sizeof flags / sizeof *flags; i++)
        if (given[i])
            return sv_fail(SV_EBAD, "%s applies to a recording: give --recorded FILE[:GROUP] "
                           "too (or put it in a recorded case spec)", flags[i]);
    return SV_OK;
}

/* Appends ",key=value" after checking value is a number in range. */
static int append(char *out, size_t len, const char *flag, const char *key, const char *text,
                  double min, double max, int whole)
{
    if (!text)
        return SV_OK;
    double v;
    int rc = sv_parse_double(flag, text, min, max, 0, &v);
    if (rc == SV_OK && whole && v != (double)(int64_t)v)
        rc = sv_fail(SV_EBAD, "%s: %s is not a whole number", flag, text);
    size_t used = strlen(out);
    if (rc == SV_OK && (size_t)snprintf(out + used, len - used, ",%s=%.10g", key, v) >= len - used)
        rc = sv_fail(SV_EBAD, "--recorded: the case spec is too long");
    return rc;
}

int sv_recorded_base_spec(const sv_recorded_opts *o, char *out, size_t len, int64_t *steps)
{
    char err[2048];
    if (sv_recorded_spec(o->path, out, len, err, sizeof err) != 0)
        return sv_fail(SV_EBAD, "%s", err);
    int rc = append(out, len, "--K", "K", o->K, 1, 16, 1);
    if (rc == SV_OK)
        rc = append(out, len, "--T", "T", o->T, 0, 100, 0);
    if (rc == SV_OK)
        rc = append(out, len, "--top-k", "top_k", o->top_k, 0, 1048576, 1);
    if (rc == SV_OK)
        rc = append(out, len, "--top-p", "top_p", o->top_p, 1e-9, 1, 0);
    if (rc == SV_OK)
        rc = append(out, len, "--mismatch-T", "mismatch_T", o->mismatch_T, 0, 100, 0);
    int has_step;
    if (rc == SV_OK && sv_recorded_spec_steps(out, steps, &has_step, err, sizeof err) != 0)
        rc = sv_fail(SV_EBAD, "%s", err);
    return rc;
}

/* --steps: "3", "0,4,9" or "FROM:TO" (both ends included), each < steps. */
static int parse_steps(const char *text, int64_t steps, size_t max, int64_t **out, size_t *n)
{
    double range[2];
    const int fields = sv_range_read(text, range, 2);
    if (fields == 1 || fields < 0)
        return sv_fail(SV_EBAD, "--steps '%s' is not FROM:TO (two whole numbers)", text);
    if (fields == 2) {
        if (!(range[0] >= 0 && range[0] <= range[1] && range[1] < (double)steps))
            return sv_fail(SV_EBAD, "--steps %s: need 0 <= FROM <= TO < %lld (the recording's "
                           "steps)", text, (long long)steps);
        if (range[0] != floor(range[0]) || range[1] != floor(range[1]))
            return sv_fail(SV_EBAD, "--steps '%s' is not FROM:TO (two whole numbers)", text);
        const double count = range[1] - range[0] + 1.0; /* exact: both below 2^53 */
        if (count > (double)max)
            return sv_fail(SV_EBAD, "--steps %s: %.0f steps; at most %zu per run", text, count,
                           max);
        const int64_t from = (int64_t)range[0], to = (int64_t)range[1];
        *out = malloc((size_t)count * sizeof **out);
        if (!*out)
            return sv_fail(SV_EENV, "out of memory");
        for (int64_t s = from; s <= to; s++)
            (*out)[(*n)++] = s;
        return SV_OK;
    }
    char (*items)[SV_LIST_ITEM] = malloc(max * sizeof *items);
    *out = malloc(max * sizeof **out);
    int count = 0, rc = items && *out ? sv_split_list("--steps", text, items, (int)max, &count)
                                      : sv_fail(SV_EENV, "out of memory");
    for (int i = 0; rc == SV_OK && i < count; i++) {
        uint64_t s;
        rc = sv_parse_u64("--steps", items[i], 0, (uint64_t)steps - 1, &s);
        (*out)[(*n)++] = (int64_t)s;
    }
    free(items);
    return rc;
}

int sv_recorded_expand(const sv_recorded_opts *o, size_t max, char ***specs, size_t *n)
{
    char base[1600];
    int64_t steps = 0, *which = NULL;
    size_t count = 0;
    *specs = NULL, *n = 0;
    int rc = sv_recorded_base_spec(o, base, sizeof base, &steps);
    if (rc == SV_OK && o->steps)
        rc = parse_steps(o->steps, steps, max, &which, &count);
    else if (rc == SV_OK && (uint64_t)steps > max)
        rc = sv_fail(SV_EBAD, "--recorded %s: %lld steps, more than the %zu a run takes; choose "
                     "some with --steps (e.g. --steps 0:%zu)", o->path, (long long)steps, max,
                     max - 1);
    else if (rc == SV_OK) {
        which = malloc((size_t)steps * sizeof *which);
        if (!which)
            rc = sv_fail(SV_EENV, "out of memory");
        for (int64_t s = 0; rc == SV_OK && s < steps; s++)
            which[count++] = s;
    }
    if (rc == SV_OK && !(*specs = calloc(count ? count : 1, sizeof **specs)))
        rc = sv_fail(SV_EENV, "out of memory");
    for (size_t i = 0; rc == SV_OK && i < count; i++) {
        size_t len = strlen(base) + 32;
        if (!((*specs)[i] = malloc(len)))
            rc = sv_fail(SV_EENV, "out of memory");
        else
            snprintf((*specs)[i], len, "%s,step=%lld", base, (long long)which[i]);
        *n = i + 1;
    }
    free(which);
    if (rc != SV_OK) {
        sv_recorded_specs_free(*specs, *n);
        *specs = NULL, *n = 0;
    }
    return rc;
}

void sv_recorded_specs_free(char **specs, size_t n)
{
    for (size_t i = 0; specs && i < n; i++)
        free(specs[i]);
    free(specs);
}
