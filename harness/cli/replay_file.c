/* replay_file.c: a failing batch that verify --dump-failing wrote
 * (dump.c), read back with every field checked: SV_EBAD naming the file
 * and what was wrong, before the sampler is given anything. */
#include <stdlib.h>
#include <string.h>
#include "replay.h"

static int attr_u64(sv_h5_reader *r, const char *name, uint64_t max, uint64_t *out)
{
    char text[64], flag[1200];
    if (!sv_h5_has_attr(r, name))
        return sv_fail(SV_EBAD, "%s: no attribute %s: not a whole failing batch", r->path,
                       name);
    int rc = sv_h5_read_attr(r, name, text, sizeof text);
    snprintf(flag, sizeof flag, "%s: attribute %s", r->path, name);
    return rc == SV_OK ? sv_parse_u64(flag, text, 0, max, out) : rc;
}

static int attr_text(sv_h5_reader *r, const char *name, char *out, size_t len)
{
    if (!sv_h5_has_attr(r, name))
        return sv_fail(SV_EBAD, "%s: no attribute %s: not a whole failing batch", r->path,
                       name);
    return sv_h5_read_attr(r, name, out, len);
}

/* A dataset of exactly rows x cols (cols 0: 1-D) whole numbers in [lo, hi]. */
static int whole(sv_h5_reader *r, const char *name, size_t rows, size_t cols, double lo,
                 double hi, double **out)
{
    size_t n = 0, m = 0;
    int rc = sv_h5_read_checked(r, name, out, &n, &m, lo, hi, SV_H5_WHOLE);
    if (rc == SV_OK && (n != rows || m != cols)) {
        free(*out);
        *out = NULL;
        rc = sv_fail(SV_EBAD, "%s: dataset %s holds %zu x %zu values where the batch has %zu "
                     "x %zu", r->path, name, n, m, rows, cols);
    }
    return rc;
}

static int read_part(sv_h5_reader *r, replay_file *f, int p, replay_part *pt)
{
    const char *pre = p ? "b" : "a";
    char name[64], text[16];
    double *v = NULL;
#define NAME(what) (snprintf(name, sizeof name, "%s_%s", pre, what), name)
    size_t B = 0, cols = 0;
    int rc = sv_h5_read_checked(r, NAME("case_of"), &v, &B, &cols, 0.0,
                                (double)(f->n_cases - 1), SV_H5_WHOLE);
    if (rc == SV_OK && (B < 1 || B > (1u << 20) || cols))
        rc = sv_fail(SV_EBAD, "%s: dataset %s holds %zu x %zu values, not one per sequence of "
                     "a batch", r->path, name, B, cols);
    pt->B = (int32_t)B;
    pt->case_of = calloc(B ? B : 1, sizeof *pt->case_of);
    pt->drafts = calloc(B ? B : 1, sizeof *pt->drafts);
    pt->seeded = calloc(B ? B : 1, sizeof *pt->seeded);
    pt->indices = calloc(B ? B : 1, sizeof *pt->indices);
    pt->rows = calloc((B ? B : 1) * (SV_MAX_K + 2), sizeof *pt->rows);
    if (rc == SV_OK && (!pt->case_of || !pt->drafts || !pt->seeded || !pt->indices || !pt->rows))
        rc = sv_fail(SV_EENV, "out of memory for a batch of %zu", B);
    for (size_t b = 0; rc == SV_OK && b < B; b++)
        pt->case_of[b] = (int32_t)v[b];
    free(v);
    v = NULL;
    if (rc == SV_OK)
        rc = whole(r, NAME("num_drafts"), B, 0, 0.0, (double)f->K, &v);
    for (size_t b = 0; rc == SV_OK && b < B; b++) {
        pt->drafts[b] = (int32_t)v[b];
        if (pt->drafts[b] > f->cases[pt->case_of[b]]->K)
            rc = sv_h5_bad_value(r, name, b, SIZE_MAX, v[b], "at most its case's K");
    }
    free(v);
    v = NULL;
    if (rc == SV_OK)
        rc = whole(r, NAME("seeded"), B, 0, 0.0, 1.0, &v);
    for (size_t b = 0; rc == SV_OK && b < B; b++)
        pt->seeded[b] = (uint8_t)v[b];
    free(v);
    v = NULL;
    if (rc == SV_OK)
        rc = sv_h5_read_u64s(r, NAME("indices"), pt->indices, B);
    /* what the sampler gave: any int32 (a broken contract's n is anything) */
    if (rc == SV_OK)
        rc = whole(r, NAME("accepted"), B, 0, -2147483648.0, 2147483647.0, &v);
    double *t = NULL;
    if (rc == SV_OK)
        rc = whole(r, NAME("tokens"), B, (size_t)f->K + 1, -2147483648.0, 2147483647.0, &t);
    for (size_t b = 0; rc == SV_OK && b < B; b++) {
        int32_t *row = pt->rows + b * (SV_MAX_K + 2);
        row[0] = (int32_t)v[b];
        for (int32_t k = 0; k <= SV_MAX_K; k++)
            row[1 + k] = k <= f->K ? (int32_t)t[b * ((size_t)f->K + 1) + (size_t)k] : -1;
    }
    free(v);
    free(t);
    uint64_t target = 0;
    if (rc == SV_OK)
        rc = attr_u64(r, NAME("target"), B - 1, &target);
    pt->target = (int32_t)target;
    if (rc == SV_OK)
        rc = attr_text(r, NAME("layout"), text, sizeof text);
    if (rc == SV_OK && strcmp(text, "padded") != 0 && strcmp(text, "packed") != 0)
        rc = sv_fail(SV_EBAD, "%s: attribute %s is '%s', not padded or packed", r->path, name,
                     text);
    pt->layout = strcmp(text, "packed") == 0 ? SV_LAYOUT_PACKED : SV_LAYOUT_PADDED;
#undef NAME
    return rc;
}

/* The cases again, as the run readied them, each proved by its hash. */
static int read_cases(sv_h5_reader *r, replay_file *f, const sv_sampler *s)
{
    char **specs = NULL;
    size_t n = 0;
    int rc = sv_h5_read_strings(r, "cases", &specs, &n);
    if (rc == SV_OK && (n < 1 || n > 256)) /* a verify run mixes at most 256 cases */
        rc = sv_fail(SV_EBAD, "%s: dataset cases holds %zu cases", r->path, n);
    f->n_cases = (int32_t)n;
    f->cases = calloc(n ? n : 1, sizeof *f->cases);
    uint64_t *hashes = calloc(n ? n : 1, sizeof *hashes);
    if (rc == SV_OK && (!f->cases || !hashes))
        rc = sv_fail(SV_EENV, "out of memory for %zu cases", n);
    if (rc == SV_OK)
        rc = sv_h5_read_u64s(r, "case_hashes", hashes, n);
    int32_t K = 0;
    for (size_t i = 0; rc == SV_OK && i < n; i++) {
        rc = sv_case_ready(specs[i], f->input, s->rule, &f->cases[i]);
        if (rc != SV_OK)
            rc = sv_fail(SV_EBAD, "%s: case %zu: %s", r->path, i + 1, sv_error_message());
        else if (f->cases[i]->V != f->V || sv_dump_case_hash(f->cases[i]) != hashes[i])
            rc = sv_fail(SV_EBAD, "%s: case %s: its rows are not those the run gave the "
                         "sampler (the file was changed, or written by another version of "
                         "specverify, or for a sampler of another rule)", r->path,
                         f->cases[i]->name);
        else
            K = f->cases[i]->K > K ? f->cases[i]->K : K;
    }
    if (rc == SV_OK && K != f->K)
        rc = sv_fail(SV_EBAD, "%s: attribute K is %d, and its cases' largest K is %d", r->path,
                     f->K, K);
    for (size_t i = 0; specs && i < n; i++)
        free(specs[i]);
    free(specs);
    free(hashes);
    return rc;
}

/* Text a file holds, escaped where specverify did not escape it (a file
 * it did not write), never twice. */
static void stored(char *s, size_t len)
{
    char *buf = malloc(len); /* the escaped text must fit where the text was */
    if (!buf) {
        s[0] = '\0';
        return;
    }
    sv_escape_stored(buf, len, s);
    memcpy(s, buf, strlen(buf) + 1);
    free(buf);
}

static void stored_words(replay_file *f)
{
    stored(f->sampler_name, sizeof f->sampler_name);
    stored(f->case_name, sizeof f->case_name);
    stored(f->finding, sizeof f->finding);
    stored(f->reproduce, sizeof f->reproduce);
}

/* Without --sampler, where the file's is not loaded: the one sampler the
 * plugins (or --python) brought, a fixed build say; else NULL. */
static const sv_sampler *only_brought(void)
{
    const sv_sampler *one = NULL;
    size_t n = 0;
    for (size_t i = 0; i < sv_registry_count(); i++)
        if (strcmp(sv_registry_origin(i), "built-in") != 0 &&
            strcmp(sv_registry_origin(i), "broken") != 0)
            one = sv_registry_get(i), n++;
    return n == 1 ? one : NULL;
}

int sv_replay_read(const char *path, const char *sampler, replay_file *f)
{
    memset(f, 0, sizeof *f);
    sv_h5_reader r;
    int rc = sv_h5_open(&r, path);
    if (rc != SV_OK)
        return rc;
    char text[SV_FINDING_LEN * 2];
    uint64_t v = 0;
    if (!sv_h5_has_attr(&r, "format") || sv_h5_read_attr(&r, "format", text, sizeof text) ||
        strcmp(text, SV_DUMP_FORMAT) != 0)
        rc = sv_fail(SV_EBAD, "%s: not a failing batch (verify --dump-failing writes them)",
                     path);
    if (rc == SV_OK && (rc = attr_u64(&r, "format_version", UINT32_MAX, &v)) == SV_OK &&
        (v < 1 || v > SV_DUMP_VERSION))
        rc = sv_fail(SV_EBAD, "%s: format version %llu; this specverify reads 1 to %d", path,
                     (unsigned long long)v, SV_DUMP_VERSION);
    if (rc == SV_OK && (rc = attr_text(&r, "kind", f->kind, sizeof f->kind)) == SV_OK &&
        strcmp(f->kind, "contract") != 0 && strcmp(f->kind, "composition") != 0)
        rc = sv_fail(SV_EBAD, "%s: kind '%s', not contract or composition", path, f->kind);
    f->n_parts = strcmp(f->kind, "composition") == 0 ? 2 : 1;
    if (rc == SV_OK)
        rc = attr_text(&r, "sampler", f->sampler_name, sizeof f->sampler_name);
    if (rc == SV_OK && !(f->sampler = sv_registry_find(sampler ? sampler : f->sampler_name)) &&
        !(f->sampler = sampler ? NULL : only_brought()))
        rc = sv_fail(SV_EBAD, "replay: sampler '%s' is not loaded; give the --plugin or "
                     "--python the run had (the file's reproduce attribute names them), or "
                     "--sampler", sampler ? sampler : f->sampler_name);
    if (rc == SV_OK && (rc = attr_text(&r, "input", text, 32)) == SV_OK &&
        (f->input = sv_input_find(text)) < 0)
        rc = sv_fail(SV_EBAD, "%s: input '%s' is no input mode", path, text);
    if (rc == SV_OK)
        rc = attr_text(&r, "case", f->case_name, sizeof f->case_name);
    if (rc == SV_OK)
        rc = attr_text(&r, "finding", f->finding, sizeof f->finding);
    if (rc == SV_OK)
        rc = attr_text(&r, "reproduce", f->reproduce, sizeof f->reproduce);
    if (rc == SV_OK) { /* the file's words, shown as they are where specverify escaped them */
        stored_words(f);
        rc = attr_u64(&r, "seed", UINT64_MAX, &f->seed);
    }
    if (rc == SV_OK && (rc = attr_u64(&r, "K", SV_MAX_K, &v)) == SV_OK)
        f->K = (int32_t)v;
    if (rc == SV_OK && (rc = attr_u64(&r, "V", INT32_MAX, &v)) == SV_OK)
        f->V = (int32_t)v;
    if (rc == SV_OK && (rc = attr_u64(&r, "v3", 1, &v)) == SV_OK)
        f->v3 = (int)v;
    if (rc == SV_OK && (rc = attr_u64(&r, "own_drafts", 1, &v)) == SV_OK)
        f->own_drafts = (int)v;
    if (rc == SV_OK)
        rc = read_cases(&r, f, f->sampler);
    for (int p = 0; rc == SV_OK && p < f->n_parts; p++)
        rc = read_part(&r, f, p, &f->parts[p]);
    sv_h5_close(&r);
    return rc;
}

void sv_replay_free(replay_file *f)
{
    for (int32_t i = 0; f->cases && i < f->n_cases; i++)
        sv_case_free(f->cases[i]);
    free(f->cases);
    for (int p = 0; p < 2; p++) {
        free(f->parts[p].case_of);
        free(f->parts[p].drafts);
        free(f->parts[p].seeded);
        free(f->parts[p].indices);
        free(f->parts[p].rows);
    }
}
