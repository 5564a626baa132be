/* recorded_case.c: one step of a recording as a case: its logits through the
 * sampling pipeline (temperature, top-k, top-p), the same for target and
 * draft unless a mismatch is asked for on purpose. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sv_cases.h"
#include "sv_input.h"
#include "sv_recorded.h"
#include "sv_syntax.h"

typedef struct recorded_spec {
    char file[1024], group[256];
    int64_t step;     /* -1: not given */
    int32_t K;        /* 0: the recording's */
    sv_sampling s;
    double mismatch_T; /* NaN: none */
} recorded_spec;

static int number(const char *key, const char *text, double min, double max, int whole,
                  double *out, char *err, size_t errlen)
{
    double v = 0.0;
    const int read = sv_number_read(text, &v);
    if (read != SV_NUMBER_OK || (whole && v != floor(v)) || v < min || v > max) {
        snprintf(err, errlen, "case recorded: %s=%s %s a %s in [%s, %s]", key, text,
                 read == SV_NUMBER_HUGE || read == SV_NUMBER_TINY ? "is out of range: need"
                                                                  : "must be",
                 whole ? "whole number" : "number", sv_number_show(min).s,
                 sv_number_show(max).s);
        return -1;
    }
    *out = v;
    return 0;
}

static int parse(const char *spec, recorded_spec *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->step = -1;
    r->s.T = 1.0, r->s.top_p = 1.0, r->mismatch_T = NAN;
    snprintf(r->group, sizeof r->group, "/");
    if (strncmp(spec, "recorded:", 9) != 0) {
        snprintf(err, errlen, "case '%s': expected recorded:file=PATH,...", spec);
        return -1;
    }
    char buf[2048];
    if (snprintf(buf, sizeof buf, "%s", spec + 9) >= (int)sizeof buf) {
        snprintf(err, errlen, "case recorded: the spec is longer than %zu characters",
                 sizeof buf - 1);
        return -1;
    }
    char *cursor = buf;
    double v = 0.0;
    int position = 0;
    for (char *item = sv_list_next(&cursor); item; item = sv_list_next(&cursor)) {
        position++;
        if (!*item) { /* ",," or a comma first or last */
            snprintf(err, errlen, "case recorded: '%s': item %d is empty", spec + 9, position);
            return -1;
        }
        char *eq = strchr(item, '=');
        if (!eq || eq == item || !eq[1]) {
            snprintf(err, errlen, "case recorded: '%s' is not key=value", item);
            return -1;
        }
        *eq = '\0';
        const char *key = item, *val = eq + 1;
        int rc = 0;
        if (strcmp(key, "file") == 0)
            rc = snprintf(r->file, sizeof r->file, "%s", val) >= (int)sizeof r->file;
        else if (strcmp(key, "group") == 0)
            rc = snprintf(r->group, sizeof r->group, "%s", val) >= (int)sizeof r->group;
        else if (strcmp(key, "step") == 0)
            rc = number(key, val, 0, 9e15, 1, &v, err, errlen), r->step = (int64_t)v;
        else if (strcmp(key, "K") == 0)
            rc = number(key, val, 1, SV_RECORDED_MAX_K, 1, &v, err, errlen), r->K = (int32_t)v;
        else if (strcmp(key, "T") == 0)
            rc = number(key, val, 0, 100, 0, &r->s.T, err, errlen);
        else if (strcmp(key, "top_k") == 0)
            rc = number(key, val, 0, SV_MAX_V, 1, &v, err, errlen), r->s.top_k = (int32_t)v;
        else if (strcmp(key, "top_p") == 0)
            rc = number(key, val, 1e-9, 1, 0, &r->s.top_p, err, errlen);
        else if (strcmp(key, "mismatch_T") == 0)
            rc = number(key, val, 0, 100, 0, &r->mismatch_T, err, errlen);
        else {
            snprintf(err, errlen, "case recorded: unknown parameter '%s' (known: file, group, "
                     "step, K, T, top_k, top_p, mismatch_T)", key);
            return -1;
        }
        if (rc > 0)
            snprintf(err, errlen, "case recorded: %s= is too long", key);
        if (rc != 0)
            return -1;
    }
    if (!r->file[0]) {
        snprintf(err, errlen, "case '%s': a recorded case needs file=PATH", spec);
        return -1;
    }
    return 0;
}

static int open_recording(const recorded_spec *r, sv_recorded **rec, char *err, size_t errlen)
{
    char path[1300];
    if (strcmp(r->group, "/") == 0)
        snprintf(path, sizeof path, "%s", r->file);
    else
        snprintf(path, sizeof path, "%s:%s", r->file, r->group);
    return sv_recorded_open(path, rec, err, errlen);
}

/* The canonical name: file, group unless the root, step, K, then whatever
 * differs from the defaults. */
static void canonical_name(const recorded_spec *r, int32_t K, char *out, size_t len)
{
    size_t used = (size_t)snprintf(out, len, "recorded:file=%s", r->file);
    if (strcmp(r->group, "/") != 0 && used < len)
        used += (size_t)snprintf(out + used, len - used, ",group=%s", r->group);
    if (used < len)
        used += (size_t)snprintf(out + used, len - used, ",step=%lld,K=%d", (long long)r->step, K);
    if (r->s.T != 1.0 && used < len)
        used += (size_t)snprintf(out + used, len - used, ",T=%.10g", r->s.T);
    if (r->s.top_k > 0 && used < len)
        used += (size_t)snprintf(out + used, len - used, ",top_k=%d", r->s.top_k);
    if (r->s.top_p < 1.0 && used < len)
        used += (size_t)snprintf(out + used, len - used, ",top_p=%.10g", r->s.top_p);
    if (!isnan(r->mismatch_T) && used < len)
        snprintf(out + used, len - used, ",mismatch_T=%.10g", r->mismatch_T);
}

/* rows [n][V] of logits -> rows of probabilities by s. */
static int pipeline(const double *logits, int32_t n, int32_t V, const sv_sampling *s, float *out)
{
    for (int32_t k = 0; k < n; k++)
        if (sv_logits_to_probs(logits + (size_t)k * V, V, s, out + (size_t)k * V) != 0)
            return -1;
    return 0;
}

int sv_recorded_case_from_spec(const char *spec, sv_case **out, char *err, size_t errlen)
{
    *out = NULL;
    recorded_spec r;
    if (parse(spec, &r, err, errlen) != 0)
        return -1;
    if (r.step < 0) {
        snprintf(err, errlen, "case '%s': name the step (step=S); --recorded FILE takes every "
                 "step of a recording", spec);
        return -1;
    }
    sv_recorded *rec = NULL;
    if (open_recording(&r, &rec, err, errlen) != 0)
        return -1;
    const sv_recorded_meta *m = sv_recorded_info(rec);
    const int32_t RK = m->K, V = m->V, K = r.K ? r.K : RK;
    int rc = -1;
    double *target = NULL, *draft = NULL;
    sv_case *c = NULL;
    if (r.step >= sv_recorded_steps(rec)) {
        snprintf(err, errlen, "case '%s': step %lld, but the recording has %lld steps (0 to "
                 "%lld)", spec, (long long)r.step, (long long)sv_recorded_steps(rec),
                 (long long)sv_recorded_steps(rec) - 1);
        goto done;
    }
    if (K > RK) {
        snprintf(err, errlen, "case '%s': K=%d, but the recording has K = %d drafts per step",
                 spec, K, RK);
        goto done;
    }
    target = malloc(((size_t)RK + 1) * (size_t)V * sizeof *target);
    draft = malloc((size_t)RK * (size_t)V * sizeof *draft);
    c = sv_case_alloc(K, V);
    if (!target || !draft || !c) {
        snprintf(err, errlen, "case '%s': out of memory for %d rows of %d tokens", spec,
                 2 * RK + 1, V);
        goto done;
    }
    if (sv_recorded_read_step(rec, r.step, target, draft, NULL, err, errlen) != 0)
        goto done;
    canonical_name(&r, K, c->name, sizeof c->name);
    /* rows 1..K+1 of the shortened chain are the recording's first K+1:
     * row k is conditioned on the drafts before it, whatever K is */
    if (pipeline(target, K + 1, V, &r.s, c->target) != 0 ||
        pipeline(draft, K, V, &r.s, c->draft) != 0 || sv_case_keep_logits(c, &r.s) != 0) {
        snprintf(err, errlen, "case '%s': out of memory in the sampling pipeline", spec);
        goto done;
    }
    /* for logits input: the target rows, then the draft rows */
    memcpy(c->logits, target, ((size_t)K + 1) * (size_t)V * sizeof *target);
    memcpy(c->logits + ((size_t)K + 1) * (size_t)V, draft, (size_t)K * (size_t)V * sizeof *draft);
    if (!isnan(r.mismatch_T)) {
        sv_sampling drafted = r.s;
        drafted.T = r.mismatch_T;
        c->draft_sampled = malloc((size_t)K * (size_t)V * sizeof *c->draft_sampled);
        if (!c->draft_sampled || pipeline(draft, K, V, &drafted, c->draft_sampled) != 0) {
            snprintf(err, errlen, "case '%s': out of memory in the sampling pipeline", spec);
            goto done;
        }
    }
    rc = sv_case_validate(c, err, errlen);
done:
    free(target);
    free(draft);
    sv_recorded_close(rec);
    if (rc != 0)
        sv_case_free(c);
    else
        *out = c;
    return rc;
}

int sv_recorded_spec_steps(const char *spec, int64_t *steps, int *has_step, char *err,
                           size_t errlen)
{
    recorded_spec r;
    sv_recorded *rec = NULL;
    if (parse(spec, &r, err, errlen) != 0 || open_recording(&r, &rec, err, errlen) != 0)
        return -1;
    *steps = sv_recorded_steps(rec);
    *has_step = r.step >= 0;
    sv_recorded_close(rec);
    return 0;
}

int sv_recorded_spec(const char *path_group, char *out, size_t len, char *err, size_t errlen)
{
    if (strpbrk(path_group, ",=")) {
        snprintf(err, errlen, "--recorded %s: a path with ',' or '=' cannot be named in a case "
                 "spec; rename or link the file", path_group);
        return -1;
    }
    /* the reader's rule: a path that exists as given is a file, else FILE:GROUP */
    const char *colon = strrchr(path_group, ':');
    char why[64 + 4096];
    const int exists = sv_input_check(path_group, why, sizeof why) != SV_INPUT_UNREADABLE;
    int n;
    if (!exists && colon && colon[1])
        n = snprintf(out, len, "recorded:file=%.*s,group=%s", (int)(colon - path_group),
                     path_group, colon + 1);
    else
        n = snprintf(out, len, "recorded:file=%s", path_group);
    if (n < 0 || (size_t)n >= len) {
        snprintf(err, errlen, "--recorded %s: the path is too long", path_group);
        return -1;
    }
    return 0;
}
