/* spec.c: case specs, "family[:key=value,...]", into cases. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "families.h"
#include "sv_nearest.h"
#include "sv_syntax.h"

/* The bound V puts on a key, or infinity. */
static double v_bound(const sv_family_param *fp, double V)
{
    return fp->flags & SV_UPTO_V ? V : fp->flags & SV_BELOW_V ? V - 1 : HUGE_VAL;
}

/* "[min, max]" and what else the key takes: -1, or a bound by V. */
static void range_text(const sv_family_param *fp, double V, char *out, size_t len)
{
    const double bound = v_bound(fp, V);
    snprintf(out, len, "[%s, %s]%s", sv_number_show(fp->min).s,
             sv_number_show(bound < fp->max ? bound : fp->max).s,
             fp->flags & SV_OR_MINUS_ONE ? " or -1" : "");
}

static int parse_value(const sv_family *f, const sv_family_param *fp, const char *text,
                       double *out, char *err, size_t errlen)
{
    double v = 0.0;
    const int read = sv_number_read(text, &v);
    char range[96];
    range_text(fp, HUGE_VAL, range, sizeof range);
    if (read == SV_NUMBER_SYNTAX) {
        snprintf(err, errlen, "case %s: %s='%s' is not a number", f->name, fp->key, text);
        return -1;
    }
    if (read == SV_NUMBER_TINY) {
        snprintf(err, errlen, "case %s: %s=%s is out of range: nearer 0 than a double holds",
                 f->name, fp->key, text);
        return -1;
    }
    if (read == SV_NUMBER_OK && (fp->flags & SV_WHOLE) && v != floor(v)) {
        snprintf(err, errlen, "case %s: %s=%s must be a whole number", f->name, fp->key, text);
        return -1;
    }
    const int minus_one = (fp->flags & SV_OR_MINUS_ONE) && v == -1.0;
    if (read == SV_NUMBER_HUGE || ((v < fp->min || v > fp->max) && !minus_one)) {
        snprintf(err, errlen, "case %s: %s=%s is out of range %s (%s)", f->name, fp->key, text,
                 range, fp->help);
        return -1;
    }
    *out = v;
    return 0;
}

/* Keys bounded by V (known only once every key is read): a value given
 * beyond the bound is refused; a default beyond it is cut to it. */
static int check_v_bounds(const sv_family *f, double *values, const int *given, char *err,
                          size_t errlen)
{
    for (size_t j = 0; j < sv_family_param_count(f); j++) {
        const sv_family_param *fp = &f->params[j];
        const double bound = v_bound(fp, values[0]);
        if (values[j] <= bound)
            continue;
        if (!given[j]) {
            values[j] = bound;
            continue;
        }
        char range[96];
        range_text(fp, values[0], range, sizeof range);
        snprintf(err, errlen, "case %s: %s=%s is out of range %s with V=%s (%s)", f->name,
                 fp->key, sv_number_show(values[j]).s, range, sv_number_show(values[0]).s,
                 fp->help);
        return -1;
    }
    return 0;
}

static int find_param(const sv_family *f, const char *key)
{
    for (size_t j = 0; j < sv_family_param_count(f); j++)
        if (strcmp(f->params[j].key, key) == 0)
            return (int)j;
    return -1;
}

static void list_keys(const sv_family *f, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t j = 0; j < sv_family_param_count(f); j++) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%s", j ? ", " : "", f->params[j].key);
    }
}

/* Parses "key=value,key=value" into values[]; marks which were given. */
static int parse_params(const sv_family *f, const char *text, double *values, int *given,
                        char *err, size_t errlen)
{
    char buf[512];
    if (snprintf(buf, sizeof buf, "%s", text) >= (int)sizeof buf) {
        snprintf(err, errlen, "case %s: parameter list too long", f->name);
        return -1;
    }
    char *cursor = buf;
    int position = 0;
    for (char *item = sv_list_next(&cursor); item; item = sv_list_next(&cursor)) {
        position++;
        if (!*item) { /* "V=10,,K=2", or a comma first or last */
            snprintf(err, errlen, "case %s: '%s': item %d is empty", f->name, text, position);
            return -1;
        }
        char *eq = strchr(item, '=');
        if (!eq || eq == item || eq[1] == '\0') {
            snprintf(err, errlen, "case %s: '%s' is not key=value", f->name, item);
            return -1;
        }
        *eq = '\0';
        int j = find_param(f, item);
        if (j < 0) {
            char keys[256];
            list_keys(f, keys, sizeof keys);
            snprintf(err, errlen, "case %s: unknown parameter '%s' (known: %s)", f->name, item,
                     keys);
            return -1;
        }
        if (given[j]) {
            snprintf(err, errlen, "case %s: parameter '%s' given twice", f->name, item);
            return -1;
        }
        if (parse_value(f, &f->params[j], eq + 1, &values[j], err, errlen) != 0)
            return -1;
        given[j] = 1;
    }
    return 0;
}

/* Canonical name: family, then V and K always, then other values that differ
 * from their defaults, in the family's order. */
static void canonical_name(const sv_family *f, const double *values, char *out, size_t len)
{
    size_t used = (size_t)snprintf(out, len, "%s:", f->name);
    int first = 1;
    for (size_t j = 0; j < sv_family_param_count(f) && used < len; j++) {
        if (j >= 2 && values[j] == f->params[j].def)
            continue;
        used += (size_t)snprintf(out + used, len - used, "%s%s=%.10g", first ? "" : ",",
                                 f->params[j].key, values[j]);
        first = 0;
    }
}

int sv_case_from_spec(const char *spec, sv_case **out, char *err, size_t errlen)
{
    *out = NULL;
    if (strncmp(spec, "recorded:", 9) == 0 || strcmp(spec, "recorded") == 0)
        return sv_recorded_case_from_spec(spec, out, err, errlen); /* a file, not numbers */
    char family[64];
    const char *colon = strchr(spec, ':');
    size_t flen = colon ? (size_t)(colon - spec) : strlen(spec);
    if (flen == 0 || flen >= sizeof family) {
        snprintf(err, errlen, "case '%s': expected family[:key=value,...]", spec);
        return -1;
    }
    memcpy(family, spec, flen);
    family[flen] = '\0';
    const sv_family *f = sv_family_find(family);
    if (!f) {
        char names[512] = "", hint[240];
        sv_nearest near;
        sv_nearest_init(&near, family);
        sv_nearest_offer(&near, "recorded");
        for (size_t i = 0; i < sv_family_count(); i++) {
            size_t used = strlen(names);
            snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "",
                     sv_family_get(i)->name);
            sv_nearest_offer(&near, sv_family_get(i)->name);
        }
        snprintf(err, errlen, "case '%s': unknown family '%s'%s (known: %s)", spec, family,
                 sv_nearest_say(&near, "; ", hint, sizeof hint), names);
        return -1;
    }

    double values[SV_FAMILY_MAX_PARAMS] = {0};
    int given[SV_FAMILY_MAX_PARAMS] = {0};
    for (size_t j = 0; j < sv_family_param_count(f); j++)
        values[j] = f->params[j].def;
    if (colon && colon[1] && parse_params(f, colon + 1, values, given, err, errlen) != 0)
        return -1;
    if (check_v_bounds(f, values, given, err, errlen) != 0)
        return -1;

    double cells = (values[1] + 1.0) * values[0];
    if (cells > 64.0 * 1024 * 1024) {
        snprintf(err, errlen, "case %s: (K+1) x V = %.0f rows cells is more than the 67108864 "
                 "a case may hold", spec, cells);
        return -1;
    }
    sv_case *c = sv_case_alloc((int32_t)values[1], (int32_t)values[0]);
    if (!c) {
        snprintf(err, errlen, "case %s: out of memory for %.0f floats", spec, 2.0 * cells);
        return -1;
    }
    canonical_name(f, values, c->name, sizeof c->name);
    f->build(c, values);
    if (sv_case_validate(c, err, errlen) != 0) {
        sv_case_free(c);
        return -1;
    }
    *out = c;
    return 0;
}

void sv_families_print(FILE *out)
{
    for (size_t i = 0; i < sv_family_count(); i++) {
        const sv_family *f = sv_family_get(i);
        fprintf(out, "  %-10s %s\n", f->name, f->description);
        for (size_t j = 0; j < sv_family_param_count(f); j++)
            fprintf(out, "      %-9s = %-8g %s\n", f->params[j].key, f->params[j].def,
                    f->params[j].help);
    }
    fprintf(out, "  %-10s one step of a recording (HDF5, see docs/record.md): --recorded FILE[:GROUP]\n"
            "      file=PATH group=G step=S K=k (<= the recording's) T=1 top_k=0 top_p=1\n"
            "      mismatch_T=t (draw drafts at t, tell the sampler q at T: must FAIL)\n",
            "recorded");
}
