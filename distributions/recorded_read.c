/* recorded_read.c: opens a recording (sv_recorded.h), checks its layout, and
 * streams it one step at a time, checking the values it reads. */
#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sv_recorded.h"

/* How a logits/probs dataset is stored. */
typedef enum { STORED_FLOAT, STORED_BF16 } stored_t;

typedef struct rows_set {
    hid_t set;
    stored_t stored;
    char name[32];
} rows_set;

struct sv_recorded {
    char path[1024], group_name[256];
    hid_t file, group;
    rows_set target, draft;
    hid_t drafts;     /* draft_tokens, or -1 */
    int probs;        /* the rows are probabilities */
    int64_t n;
    char dtype[16];
    sv_recorded_meta meta;
    uint16_t *bf16;   /* [K+1][V]: bfloat16 bits of one step */
};

/* "FILE:/GROUP/NAME" or "FILE:/NAME", for messages. */
static const char *where(const sv_recorded *r, const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s:%s%s/%s", r->path, r->group_name[0] == '/' ? "" : "/",
             strcmp(r->group_name, "/") == 0 ? "" : r->group_name, name);
    return buf;
}

static int has_link(hid_t loc, const char *name)
{
    return H5Lexists(loc, name, H5P_DEFAULT) > 0;
}

/* An integer attribute if present: 1 read, 0 absent, -1 not an integer. */
static int int_attr(hid_t obj, const char *name, int64_t *value)
{
    if (H5Aexists(obj, name) <= 0)
        return 0;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    hid_t t = a >= 0 ? H5Aget_type(a) : -1;
    int ok = t >= 0 && H5Tget_class(t) == H5T_INTEGER &&
             H5Aread(a, H5T_NATIVE_INT64, value) >= 0;
    if (t >= 0)
        H5Tclose(t);
    if (a >= 0)
        H5Aclose(a);
    return ok ? 1 : -1;
}

/* A string attribute (fixed or variable length) into buf; "" when absent. */
static void string_attr(hid_t obj, const char *name, char *buf, size_t len)
{
    buf[0] = '\0';
    if (H5Aexists(obj, name) <= 0)
        return;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    hid_t t = a >= 0 ? H5Aget_type(a) : -1;
    if (t >= 0 && H5Tget_class(t) == H5T_STRING) {
        if (H5Tis_variable_str(t) > 0) {
            char *s = NULL;
            hid_t mt = H5Tcopy(H5T_C_S1);
            H5Tset_size(mt, H5T_VARIABLE);
            H5Tset_cset(mt, H5Tget_cset(t)); /* h5py writes UTF-8: no conversion to ASCII */
            if (H5Aread(a, mt, &s) >= 0 && s) {
                snprintf(buf, len, "%s", s);
                H5free_memory(s);
            }
            H5Tclose(mt);
        } else {
            size_t n = H5Tget_size(t);
            char *s = calloc(n + 1, 1);
            hid_t mt = H5Tcopy(H5T_C_S1);
            H5Tset_size(mt, n + 1);
            H5Tset_cset(mt, H5Tget_cset(t));
            if (s && H5Aread(a, mt, s) >= 0)
                snprintf(buf, len, "%s", s);
            H5Tclose(mt);
            free(s);
        }
    }
    if (t >= 0)
        H5Tclose(t);
    if (a >= 0)
        H5Aclose(a);
}

/* The dims of a dataset; -1 with a message when its rank is not `rank`. */
static int dims_of(const sv_recorded *r, hid_t set, const char *name, int rank, hsize_t *dims,
                   char *err, size_t errlen)
{
    char w[1400];
    hid_t space = H5Dget_space(set);
    int got = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
    if (got == rank)
        H5Sget_simple_extent_dims(space, dims, NULL);
    if (space >= 0)
        H5Sclose(space);
    if (got != rank) {
        snprintf(err, errlen, "%s: rank %d, expected %d (%s)", where(r, name, w, sizeof w), got,
                 rank, rank == 3 ? "[steps][rows][V]" : "[steps][K]");
        return -1;
    }
    return 0;
}

/* Opens target_X or draft_X, where X is logits or probs, and says how the
 * values are stored: floats of 2, 4 or 8 bytes, or bfloat16 bits in uint16. */
static int open_rows(sv_recorded *r, const char *side, rows_set *rs, char *err, size_t errlen)
{
    char w[1400], logits[32], probs[32];
    snprintf(logits, sizeof logits, "%s_logits", side);
    snprintf(probs, sizeof probs, "%s_probs", side);
    int has_l = has_link(r->group, logits), has_p = has_link(r->group, probs);
    if (has_l == has_p) {
        snprintf(err, errlen, "%s: %s dataset %s or %s (exactly one of them)",
                 where(r, "", w, sizeof w), has_l ? "both the" : "missing", logits, probs);
        return -1;
    }
    snprintf(rs->name, sizeof rs->name, "%s", has_l ? logits : probs);
    if (strcmp(side, "target") == 0)
        r->probs = has_p;
    else if (r->probs != has_p) {
        snprintf(err, errlen, "%s: the target rows are %s but the draft rows are %s; store both "
                 "the same way", where(r, rs->name, w, sizeof w), r->probs ? "probs" : "logits",
                 has_p ? "probs" : "logits");
        return -1;
    }
    rs->set = H5Dopen2(r->group, rs->name, H5P_DEFAULT);
    if (rs->set < 0) {
        snprintf(err, errlen, "%s: cannot open the dataset (corrupt file?)",
                 where(r, rs->name, w, sizeof w));
        return -1;
    }
    hid_t t = H5Dget_type(rs->set);
    H5T_class_t cls = H5Tget_class(t);
    size_t size = H5Tget_size(t);
    char enc[32];
    string_attr(rs->set, "encoding", enc, sizeof enc);
    int ok = 1;
    if (cls == H5T_FLOAT && (size == 2 || size == 4 || size == 8)) {
        rs->stored = STORED_FLOAT;
        snprintf(r->dtype, sizeof r->dtype, "float%zu", 8 * size);
    } else if (cls == H5T_INTEGER && size == 2 && H5Tget_sign(t) == H5T_SGN_NONE &&
               strcmp(enc, "bfloat16") == 0) {
        rs->stored = STORED_BF16;
        snprintf(r->dtype, sizeof r->dtype, "bfloat16");
    } else {
        ok = 0;
    }
    H5Tclose(t);
    if (!ok) {
        snprintf(err, errlen, "%s: values of %zu-byte %s; expected float16, float32 or float64, "
                 "or bfloat16 bits in uint16 with the attribute encoding=\"bfloat16\"",
                 where(r, rs->name, w, sizeof w), size,
                 cls == H5T_INTEGER ? "integers" : cls == H5T_FLOAT ? "floats" : "a non-number type");
        return -1;
    }
    return 0;
}

/* An optional [steps][cols] int dataset: -1 absent, else its handle; cols
 * must be `cols` unless cols < 0. *bad set on error. */
static hid_t open_ints(sv_recorded *r, const char *name, int64_t cols, int64_t *got_cols,
                       int *bad, char *err, size_t errlen)
{
    char w[1400];
    if (!has_link(r->group, name))
        return -1;
    hid_t set = H5Dopen2(r->group, name, H5P_DEFAULT);
    hsize_t dims[2];
    if (set < 0 || dims_of(r, set, name, 2, dims, err, errlen) != 0) {
        if (set < 0)
            snprintf(err, errlen, "%s: cannot open the dataset", where(r, name, w, sizeof w));
        *bad = 1;
        return set >= 0 ? (H5Dclose(set), -1) : -1;
    }
    hid_t t = H5Dget_type(set);
    int is_int = H5Tget_class(t) == H5T_INTEGER;
    H5Tclose(t);
    const char *what = NULL;
    if (!is_int)
        what = "values are not integers";
    else if ((int64_t)dims[0] != r->n)
        what = "steps differ from target rows";
    else if (cols >= 0 && (int64_t)dims[1] != cols)
        what = "columns differ from K";
    if (what) {
        snprintf(err, errlen, "%s: %s (dims [%llu][%llu]; %lld steps, K = %d)",
                 where(r, name, w, sizeof w), what, (unsigned long long)dims[0],
                 (unsigned long long)dims[1], (long long)r->n, r->meta.K);
        H5Dclose(set);
        *bad = 1;
        return -1;
    }
    if (got_cols)
        *got_cols = (int64_t)dims[1];
    return set;
}

/* Checks attributes against the dataset dims. */
static int check_attributes(sv_recorded *r, char *err, size_t errlen)
{
    char w[1400];
    int64_t version = 0, V = 0, K = 0;
    int got = int_attr(r->group, "format_version", &version);
    if (got <= 0) {
        snprintf(err, errlen, "%s: %s attribute format_version (does this group hold a "
                 "recording? see distributions/sv_recorded.h)", where(r, "", w, sizeof w),
                 got == 0 ? "missing the" : "non-integer");
        return -1;
    }
    if (version != SV_RECORDED_FORMAT_VERSION) {
        snprintf(err, errlen, "%s: format_version %lld; this specverify reads version %d",
                 where(r, "", w, sizeof w), (long long)version, SV_RECORDED_FORMAT_VERSION);
        return -1;
    }
    if ((got = int_attr(r->group, "vocab_size", &V)) < 0 || (got == 1 && V != r->meta.V)) {
        snprintf(err, errlen, "%s: attribute vocab_size = %lld disagrees with the datasets' "
                 "V = %d", where(r, "", w, sizeof w), (long long)V, r->meta.V);
        return -1;
    }
    if ((got = int_attr(r->group, "K", &K)) < 0 || (got == 1 && K != r->meta.K)) {
        snprintf(err, errlen, "%s: attribute K = %lld disagrees with the datasets' K = %d",
                 where(r, "", w, sizeof w), (long long)K, r->meta.K);
        return -1;
    }
    string_attr(r->group, "source", r->meta.source, sizeof r->meta.source);
    string_attr(r->group, "target_model", r->meta.target_model, sizeof r->meta.target_model);
    string_attr(r->group, "draft_model", r->meta.draft_model, sizeof r->meta.draft_model);
    string_attr(r->group, "tokenizer", r->meta.tokenizer, sizeof r->meta.tokenizer);
    string_attr(r->group, "produced_by", r->meta.produced_by, sizeof r->meta.produced_by);
    return 0;
}

/* Every value of the dataset was written: HDF5 returns the fill value for
 * chunks never written, so an unfinished file (or one whose dims were
 * corrupted upwards) would otherwise read as steps of zeros, forever. */
static int check_written(sv_recorded *r, const rows_set *rs, const hsize_t *dims, char *err,
                         size_t errlen)
{
    char w[1400];
    hid_t plist = H5Dget_create_plist(rs->set), type = H5Dget_type(rs->set);
    H5D_layout_t layout = H5Pget_layout(plist);
    hsize_t chunk[3] = {1, 1, 1}, expected = 1, have = 0;
    int ok = 1;
    if (layout == H5D_CHUNKED && H5Pget_chunk(plist, 3, chunk) == 3) {
        for (int i = 0; i < 3; i++)
            expected *= (dims[i] + chunk[i] - 1) / chunk[i];
        hid_t space = H5Dget_space(rs->set); /* 1.10 refuses H5S_ALL here */
        ok = H5Dget_num_chunks(rs->set, space, &have) >= 0 && have >= expected;
        H5Sclose(space);
    } else if (layout == H5D_CONTIGUOUS) {
        expected = dims[0] * dims[1] * dims[2] * H5Tget_size(type);
        have = H5Dget_storage_size(rs->set);
        ok = have >= expected;
    }
    H5Tclose(type);
    H5Pclose(plist);
    if (!ok)
        snprintf(err, errlen, "%s: %llu of its %llu %s were written: an unfinished or "
                 "corrupt recording", where(r, rs->name, w, sizeof w), (unsigned long long)have,
                 (unsigned long long)expected, layout == H5D_CHUNKED ? "chunks" : "bytes");
    return ok ? 0 : -1;
}

/* Target [N][K+1][V] and draft [N][K][V] agree; K and V within bounds. */
static int check_dims(sv_recorded *r, char *err, size_t errlen)
{
    char w[1400];
    hsize_t t[3], d[3];
    if (dims_of(r, r->target.set, r->target.name, 3, t, err, errlen) != 0 ||
        dims_of(r, r->draft.set, r->draft.name, 3, d, err, errlen) != 0)
        return -1;
    const char *what = NULL;
    if (t[0] == 0)
        what = "no steps";
    else if (t[1] < 2 || t[1] > SV_RECORDED_MAX_K + 1)
        what = "rows per step must be K+1 with K in [1, 16]";
    else if (t[2] < 2 || t[2] > SV_RECORDED_MAX_V)
        what = "V must be in [2, 1048576]";
    if (what) {
        snprintf(err, errlen, "%s: dims [%llu][%llu][%llu]: %s",
                 where(r, r->target.name, w, sizeof w), (unsigned long long)t[0],
                 (unsigned long long)t[1], (unsigned long long)t[2], what);
        return -1;
    }
    if (d[0] != t[0] || d[1] != t[1] - 1 || d[2] != t[2]) {
        snprintf(err, errlen, "%s: dims [%llu][%llu][%llu], but %s is [%llu][%llu][%llu]: "
                 "expected [%llu][%llu][%llu] (same steps, K = %llu rows, same V)",
                 where(r, r->draft.name, w, sizeof w), (unsigned long long)d[0],
                 (unsigned long long)d[1], (unsigned long long)d[2], r->target.name,
                 (unsigned long long)t[0], (unsigned long long)t[1], (unsigned long long)t[2],
                 (unsigned long long)t[0], (unsigned long long)t[1] - 1,
                 (unsigned long long)t[2], (unsigned long long)t[1] - 1);
        return -1;
    }
    if (check_written(r, &r->target, t, err, errlen) != 0 ||
        check_written(r, &r->draft, d, err, errlen) != 0)
        return -1;
    r->n = (int64_t)t[0];
    r->meta.K = (int32_t)t[1] - 1;
    r->meta.V = (int32_t)t[2];
    return 0;
}

/* "file.h5:group" -> file and group; a path that exists as given wins. */
static void split_path(const char *path_group, char *path, size_t plen, char *group, size_t glen)
{
    const char *colon = strrchr(path_group, ':');
    if (!colon || access(path_group, F_OK) == 0 || colon[1] == '\0') {
        snprintf(path, plen, "%s", path_group);
        snprintf(group, glen, "/");
        return;
    }
    snprintf(path, plen, "%.*s", (int)(colon - path_group), path_group);
    snprintf(group, glen, "%s", colon + 1);
}

/* Opens and checks the layout, in this process. */
static int open_here(const char *path_group, sv_recorded **out, char *err, size_t errlen)
{
    *out = NULL;
    sv_recorded *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "%s: out of memory", path_group);
        return -1;
    }
    r->file = r->group = r->target.set = r->draft.set = r->drafts = -1;
    split_path(path_group, r->path, sizeof r->path, r->group_name, sizeof r->group_name);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* errors are reported here, in words */
    int rc = -1;
    FILE *probe = fopen(r->path, "rb");
    if (!probe) {
        snprintf(err, errlen, "%s: cannot read the recording: %s", r->path, strerror(errno));
        goto done;
    }
    fclose(probe);
    if (H5Fis_hdf5(r->path) <= 0) {
        snprintf(err, errlen, "%s: not an HDF5 file (a recording is HDF5: see "
                 "distributions/sv_recorded.h)", r->path);
        goto done;
    }
    r->file = H5Fopen(r->path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (r->file < 0) {
        snprintf(err, errlen, "%s: cannot open it as HDF5 (truncated or corrupt?)", r->path);
        goto done;
    }
    if (strcmp(r->group_name, "/") != 0 && !has_link(r->file, r->group_name)) {
        snprintf(err, errlen, "%s: no group '%s' in the file", r->path, r->group_name);
        goto done;
    }
    r->group = H5Gopen2(r->file, r->group_name, H5P_DEFAULT);
    if (r->group < 0) {
        snprintf(err, errlen, "%s: '%s' is not a group", r->path, r->group_name);
        goto done;
    }
    if (open_rows(r, "target", &r->target, err, errlen) != 0 ||
        open_rows(r, "draft", &r->draft, err, errlen) != 0 || check_dims(r, err, errlen) != 0 ||
        check_attributes(r, err, errlen) != 0)
        goto done;
    int bad = 0;
    r->drafts = open_ints(r, "draft_tokens", r->meta.K, NULL, &bad, err, errlen);
    if (!bad) {
        hid_t ctx = open_ints(r, "context_ids", -1, NULL, &bad, err, errlen);
        if (ctx >= 0)
            H5Dclose(ctx); /* checked, not read: the harness does not need the context */
    }
    if (bad)
        goto done;
    if (r->target.stored == STORED_BF16 || r->draft.stored == STORED_BF16) {
        r->bf16 = malloc(((size_t)r->meta.K + 1) * (size_t)r->meta.V * sizeof *r->bf16);
        if (!r->bf16) {
            snprintf(err, errlen, "%s: out of memory for one step", r->path);
            goto done;
        }
    }
    rc = 0;
done:
    if (rc != 0)
        sv_recorded_close(r);
    else
        *out = r;
    return rc;
}

void sv_recorded_close(sv_recorded *r)
{
    if (!r)
        return;
    hid_t sets[3] = {r->target.set, r->draft.set, r->drafts};
    for (int i = 0; i < 3; i++)
        if (sets[i] >= 0)
            H5Dclose(sets[i]);
    if (r->group >= 0)
        H5Gclose(r->group);
    if (r->file >= 0)
        H5Fclose(r->file);
    free(r->bf16);
    free(r);
}

int64_t sv_recorded_steps(const sv_recorded *r) { return r->n; }
const sv_recorded_meta *sv_recorded_info(const sv_recorded *r) { return &r->meta; }
int sv_recorded_is_probs(const sv_recorded *r) { return r->probs; }
int sv_recorded_has_drafts(const sv_recorded *r) { return r->drafts >= 0; }
const char *sv_recorded_dtype(const sv_recorded *r) { return r->dtype; }

/* Reads [i][0..rows)[0..V) of one dataset into doubles. */
static int read_rows(sv_recorded *r, const rows_set *rs, int64_t i, int32_t rows, double *out)
{
    hid_t space = H5Dget_space(rs->set);
    hsize_t start[3] = {(hsize_t)i, 0, 0}, count[3] = {1, (hsize_t)rows, (hsize_t)r->meta.V};
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
    hid_t mem = H5Screate_simple(3, count, NULL);
    herr_t got;
    if (rs->stored == STORED_FLOAT) {
        got = H5Dread(rs->set, H5T_NATIVE_DOUBLE, mem, space, H5P_DEFAULT, out);
    } else {
        got = H5Dread(rs->set, H5T_NATIVE_UINT16, mem, space, H5P_DEFAULT, r->bf16);
        for (size_t j = 0; got >= 0 && j < (size_t)rows * (size_t)r->meta.V; j++) {
            uint32_t bits = (uint32_t)r->bf16[j] << 16;
            float f;
            memcpy(&f, &bits, sizeof f);
            out[j] = f;
        }
    }
    H5Sclose(mem);
    H5Sclose(space);
    return got < 0 ? -1 : 0;
}

/* Logits finite; or probabilities finite, >= 0, rows summing to 1, which
 * become log-probabilities. */
static int check_rows(sv_recorded *r, const rows_set *rs, int64_t i, int32_t rows, double *x,
                      char *err, size_t errlen)
{
    char w[1400];
    const int32_t V = r->meta.V;
    for (int32_t k = 0; k < rows; k++) {
        double *row = x + (size_t)k * V, sum = 0.0;
        for (int32_t v = 0; v < V; v++) {
            if (!isfinite(row[v]) || (r->probs && row[v] < 0.0)) {
                snprintf(err, errlen, "%s[%lld][%d][%d] = %g: %s", where(r, rs->name, w, sizeof w),
                         (long long)i, k, v, row[v],
                         r->probs ? "probabilities must be finite and >= 0"
                                  : "logits must be finite");
                return -1;
            }
            sum += row[v];
        }
        if (!r->probs)
            continue;
        if (fabs(sum - 1.0) > SV_RECORDED_SUM_TOL) {
            snprintf(err, errlen, "%s[%lld][%d]: row sums to %.6g, expected 1 +- %g",
                     where(r, rs->name, w, sizeof w), (long long)i, k, sum, SV_RECORDED_SUM_TOL);
            return -1;
        }
        for (int32_t v = 0; v < V; v++)
            row[v] = row[v] > 0.0 ? log(row[v]) : -INFINITY;
    }
    return 0;
}

int sv_recorded_read_step(sv_recorded *r, int64_t i, double *target, double *draft,
                          int32_t *drafts, char *err, size_t errlen)
{
    char w[1400];
    const int32_t K = r->meta.K, V = r->meta.V;
    if (i < 0 || i >= r->n) {
        snprintf(err, errlen, "%s: step %lld is out of range [0, %lld)", r->path, (long long)i,
                 (long long)r->n);
        return -1;
    }
    if (read_rows(r, &r->target, i, K + 1, target) != 0 ||
        read_rows(r, &r->draft, i, K, draft) != 0) {
        snprintf(err, errlen, "%s: cannot read step %lld (truncated or corrupt file?)",
                 where(r, r->target.name, w, sizeof w), (long long)i);
        return -1;
    }
    if (check_rows(r, &r->target, i, K + 1, target, err, errlen) != 0 ||
        check_rows(r, &r->draft, i, K, draft, err, errlen) != 0)
        return -1;
    if (!drafts || r->drafts < 0)
        return 0;
    hid_t space = H5Dget_space(r->drafts);
    hsize_t start[2] = {(hsize_t)i, 0}, count[2] = {1, (hsize_t)K};
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
    hid_t mem = H5Screate_simple(2, count, NULL);
    herr_t got = H5Dread(r->drafts, H5T_NATIVE_INT32, mem, space, H5P_DEFAULT, drafts);
    H5Sclose(mem);
    H5Sclose(space);
    if (got < 0) {
        snprintf(err, errlen, "%s: cannot read step %lld", where(r, "draft_tokens", w, sizeof w),
                 (long long)i);
        return -1;
    }
    for (int32_t k = 0; k < K; k++) {
        const char *bad = NULL;
        if (drafts[k] < 0 || drafts[k] >= V)
            bad = "outside [0, V)";
        else if (draft[(size_t)k * V + drafts[k]] == -INFINITY)
            bad = "a token the drafter gives probability 0";
        if (bad) {
            snprintf(err, errlen, "%s[%lld][%d] = %d: %s (V = %d)",
                     where(r, "draft_tokens", w, sizeof w), (long long)i, k, drafts[k], bad, V);
            return -1;
        }
    }
    return 0;
}

/* ---- isolation ---------------------------------------------------------------
 * libhdf5 1.10 is not safe on corrupt files: fuzzing this reader found a heap
 * overflow in its attribute decoding, a leak and absurd allocations, all
 * inside the library. So a recording is first read whole in a child
 * process, layout and every value: a crash there becomes an error naming the
 * file, a bad value at step 900 is reported before any draw, and the parent
 * opens only files that read cleanly. Each file is checked once per process
 * (keyed by path, inode, size and time). */

typedef struct checked_file {
    char path_group[1300];
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
} checked_file;

void (*sv_recorded_child_hook)(void);

static checked_file checked[32];
static size_t n_checked;

static int same_file(const checked_file *c, const char *path_group, const struct stat *st)
{
    return strcmp(c->path_group, path_group) == 0 && c->dev == st->st_dev &&
           c->ino == st->st_ino && c->size == st->st_size &&
           c->mtime.tv_sec == st->st_mtim.tv_sec && c->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

/* Reads every step; what the child runs. */
static int read_all(const char *path_group, char *err, size_t errlen)
{
    sv_recorded *r = NULL;
    if (open_here(path_group, &r, err, errlen) != 0)
        return -1;
    const size_t K = (size_t)r->meta.K, V = (size_t)r->meta.V;
    /* calloc, not malloc: clang's analyser cannot see that read_rows fills
     * every cell that check_rows then reads */
    double *t = calloc((K + 1) * V, sizeof *t), *d = calloc(K * V, sizeof *d);
    int32_t drafts[SV_RECORDED_MAX_K];
    int rc = t && d ? 0 : -1;
    if (rc != 0)
        snprintf(err, errlen, "%s: out of memory for one step", r->path);
    for (int64_t i = 0; rc == 0 && i < r->n; i++)
        rc = sv_recorded_read_step(r, i, t, d, drafts, err, errlen);
    free(t);
    free(d);
    sv_recorded_close(r);
    return rc;
}

/* Seconds the child may take: generous for a whole read at 20 MB/s, but
 * finite, because libhdf5 also loops forever on some corrupt files (fuzzing
 * found one). SV_RECORDED_CHECK_SECONDS overrides it (a slow network disk;
 * the fuzz target and its replay, which cannot wait 30 s per input). */
static unsigned check_seconds(off_t size)
{
    const char *env = getenv("SV_RECORDED_CHECK_SECONDS");
    char *end;
    unsigned long v = env ? strtoul(env, &end, 10) : 0;
    if (env && *env && !*end && v >= 1 && v <= 86400)
        return (unsigned)v;
    return 30u + (unsigned)(size / (20 << 20));
}

static int check_in_child(const char *path, const char *path_group, off_t size, char *err,
                          size_t errlen)
{
    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(err, errlen, "%s: cannot check the recording: pipe: %s", path, strerror(errno));
        return -1;
    }
    fflush(NULL); /* nothing buffered is written twice */
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]), close(fds[1]);
        snprintf(err, errlen, "%s: cannot check the recording: fork: %s", path, strerror(errno));
        return -1;
    }
    if (pid == 0) {
        if (sv_recorded_child_hook)
            sv_recorded_child_hook();
        signal(SIGALRM, SIG_DFL);
        alarm(check_seconds(size));
        close(fds[0]);
        char msg[2048] = "";
        int rc = read_all(path_group, msg, sizeof msg);
        if (rc != 0 && write(fds[1], msg, strlen(msg)) < 0)
            rc = -1;
        _exit(rc == 0 ? 0 : 2);
    }
    close(fds[1]);
    size_t got = 0;
    ssize_t n;
    while (errlen > 1 && got < errlen - 1 && (n = read(fds[0], err + got, errlen - 1 - got)) > 0)
        got += (size_t)n;
    err[got] = '\0';
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
        snprintf(err, errlen, "%s: reading the file took more than %u s: libhdf5 loops on it "
                 "(it is corrupt)", path, check_seconds(size));
    else if (WIFSIGNALED(status))
        snprintf(err, errlen, "%s: libhdf5 crashed (signal %d) reading the file: it is corrupt "
                 "(the library trusts sizes and offsets the file states)", path,
                 WTERMSIG(status));
    else if (!err[0])
        snprintf(err, errlen, "%s: the check of the recording exited with status %d", path,
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return -1;
}

int sv_recorded_open(const char *path_group, sv_recorded **out, char *err, size_t errlen)
{
    char path[1024], group[256];
    struct stat st;
    *out = NULL;
    split_path(path_group, path, sizeof path, group, sizeof group);
    if (stat(path, &st) != 0 || access(path, R_OK) != 0) {
        snprintf(err, errlen, "%s: cannot read the recording: %s", path, strerror(errno));
        return -1;
    }
    size_t i = 0;
    while (i < n_checked && !same_file(&checked[i], path_group, &st))
        i++;
    if (i == n_checked) {
        if (check_in_child(path, path_group, st.st_size, err, errlen) != 0)
            return -1;
        checked_file *c = &checked[n_checked < 32 ? n_checked++ : 31];
        snprintf(c->path_group, sizeof c->path_group, "%s", path_group);
        c->dev = st.st_dev, c->ino = st.st_ino, c->size = st.st_size, c->mtime = st.st_mtim;
    }
    return open_here(path_group, out, err, errlen);
}
