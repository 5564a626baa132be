/* recorded_open.c: opens a recording (sv_recorded.h) and checks its layout:
 * the datasets' presence, types, ranks and dims against each other, that
 * every value was written, and the group's attributes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "recorded_private.h"
#include "sv_input.h"

/* Opens target_X or draft_X, where X is logits or probs, and says how the
 * values are stored: floats of 2, 4 or 8 bytes, or bfloat16 bits in uint16. */
static int open_rows(sv_recorded *r, const char *side, rows_set *rs, char *err, size_t errlen)
{
    char w[1400], logits[32], probs[32];
    snprintf(logits, sizeof logits, "%s_logits", side);
    snprintf(probs, sizeof probs, "%s_probs", side);
    int has_l = sv_rec_has_link(r->group, logits), has_p = sv_rec_has_link(r->group, probs);
    if (has_l && has_p) {
        snprintf(err, errlen, "%s: both datasets %s and %s; a recording holds exactly one of "
                 "them", sv_rec_where(r, "", w, sizeof w), logits, probs);
        return -1;
    }
    if (!has_l && !has_p) {
        snprintf(err, errlen, "%s: missing dataset %s or %s (a recording holds exactly one of "
                 "them)", sv_rec_where(r, "", w, sizeof w), logits, probs);
        return -1;
    }
    snprintf(rs->name, sizeof rs->name, "%s", has_l ? logits : probs);
    if (strcmp(side, "target") == 0)
        r->probs = has_p;
    else if (r->probs != has_p) {
        snprintf(err, errlen, "%s: the target rows are %s but the draft rows are %s; store both "
                 "the same way", sv_rec_where(r, rs->name, w, sizeof w),
                 r->probs ? "probs" : "logits", has_p ? "probs" : "logits");
        return -1;
    }
    rs->set = H5Dopen2(r->group, rs->name, H5P_DEFAULT);
    if (rs->set < 0) {
        snprintf(err, errlen, "%s: cannot open the dataset (corrupt file?)",
                 sv_rec_where(r, rs->name, w, sizeof w));
        return -1;
    }
    hid_t t = H5Dget_type(rs->set);
    H5T_class_t cls = H5Tget_class(t);
    size_t size = H5Tget_size(t);
    char enc[32], why[96];
    if (sv_rec_string_attr(rs->set, "encoding", enc, sizeof enc, why, sizeof why) < 0) {
        H5Tclose(t);
        snprintf(err, errlen, "%s: attribute encoding is %s; expected one string (\"bfloat16\")",
                 sv_rec_where(r, rs->name, w, sizeof w), why);
        return -1;
    }
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
                 sv_rec_where(r, rs->name, w, sizeof w), size, sv_rec_class_name(cls));
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
    if (!sv_rec_has_link(r->group, name))
        return -1;
    hid_t set = H5Dopen2(r->group, name, H5P_DEFAULT);
    hsize_t dims[2];
    if (set < 0 || sv_rec_dims_of(r, set, name, 2, dims, err, errlen) != 0) {
        if (set < 0)
            snprintf(err, errlen, "%s: cannot open the dataset",
                     sv_rec_where(r, name, w, sizeof w));
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
                 sv_rec_where(r, name, w, sizeof w), what, (unsigned long long)dims[0],
                 (unsigned long long)dims[1], (long long)r->n, r->meta.K);
        H5Dclose(set);
        *bad = 1;
        return -1;
    }
    if (got_cols)
        *got_cols = (int64_t)dims[1];
    return set;
}

/* An integer attribute that must agree with the datasets' value, if present. */
static int agrees(sv_recorded *r, const char *name, int32_t want, char *err, size_t errlen)
{
    char w[1400], why[96];
    int64_t v = 0;
    const int got = sv_rec_int_attr(r->group, name, &v, why, sizeof why);
    if (got < 0)
        snprintf(err, errlen, "%s: attribute %s is %s; expected one integer, %d as in the "
                 "datasets", sv_rec_where(r, "", w, sizeof w), name, why, (int)want);
    else if (got == 1 && v != want)
        snprintf(err, errlen, "%s: attribute %s = %lld disagrees with the datasets' %s = %d",
                 sv_rec_where(r, "", w, sizeof w), name, (long long)v,
                 strcmp(name, "vocab_size") == 0 ? "V" : name, (int)want);
    return got < 0 || (got == 1 && v != want) ? -1 : 0;
}

/* Checks attributes against the dataset dims. */
static int check_attributes(sv_recorded *r, char *err, size_t errlen)
{
    char w[1400], why[96];
    int64_t version = 0;
    int got = sv_rec_int_attr(r->group, "format_version", &version, why, sizeof why);
    if (got <= 0) {
        snprintf(err, errlen, "%s: %s%s%s (does this group hold a recording? see "
                 "distributions/sv_recorded.h)", sv_rec_where(r, "", w, sizeof w),
                 got == 0 ? "missing the attribute format_version" : "attribute format_version is ",
                 got == 0 ? "" : why, got == 0 ? "" : "; expected one integer");
        return -1;
    }
    if (version != SV_RECORDED_FORMAT_VERSION) {
        snprintf(err, errlen, "%s: format_version %lld; this specverify reads version %d",
                 sv_rec_where(r, "", w, sizeof w), (long long)version, SV_RECORDED_FORMAT_VERSION);
        return -1;
    }
    if (agrees(r, "vocab_size", r->meta.V, err, errlen) != 0 ||
        agrees(r, "K", r->meta.K, err, errlen) != 0)
        return -1;
    struct {
        const char *name;
        char *value;
    } strings[] = {{"source", r->meta.source}, {"target_model", r->meta.target_model},
                   {"draft_model", r->meta.draft_model}, {"tokenizer", r->meta.tokenizer},
                   {"produced_by", r->meta.produced_by}};
    for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++)
        if (sv_rec_string_attr(r->group, strings[i].name, strings[i].value,
                               sizeof r->meta.source, why, sizeof why) < 0) {
            snprintf(err, errlen, "%s: attribute %s is %s; expected one string",
                     sv_rec_where(r, "", w, sizeof w), strings[i].name, why);
            return -1;
        }
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
                 "corrupt recording", sv_rec_where(r, rs->name, w, sizeof w),
                 (unsigned long long)have, (unsigned long long)expected,
                 layout == H5D_CHUNKED ? "chunks" : "bytes");
    return ok ? 0 : -1;
}

/* Target [N][K+1][V] and draft [N][K][V] agree; K and V within bounds. */
static int check_dims(sv_recorded *r, char *err, size_t errlen)
{
    char w[1400];
    hsize_t t[3], d[3];
    if (sv_rec_dims_of(r, r->target.set, r->target.name, 3, t, err, errlen) != 0 ||
        sv_rec_dims_of(r, r->draft.set, r->draft.name, 3, d, err, errlen) != 0)
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
                 sv_rec_where(r, r->target.name, w, sizeof w), (unsigned long long)t[0],
                 (unsigned long long)t[1], (unsigned long long)t[2], what);
        return -1;
    }
    if (d[0] != t[0] || d[1] != t[1] - 1 || d[2] != t[2]) {
        snprintf(err, errlen, "%s: dims [%llu][%llu][%llu], but %s is [%llu][%llu][%llu]: "
                 "expected [%llu][%llu][%llu] (same steps, K = %llu rows, same V)",
                 sv_rec_where(r, r->draft.name, w, sizeof w), (unsigned long long)d[0],
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
void sv_rec_split_path(const char *path_group, char *path, size_t plen, char *group, size_t glen)
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
int sv_rec_open_here(const char *path_group, sv_recorded **out, char *err, size_t errlen)
{
    *out = NULL;
    sv_recorded *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "%s: out of memory", path_group);
        return -1;
    }
    r->file = r->group = r->target.set = r->draft.set = r->drafts = -1;
    sv_rec_split_path(path_group, r->path, sizeof r->path, r->group_name, sizeof r->group_name);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* errors are reported here, in words */
    int rc = -1;
    char why[sizeof r->path + 64];
    int state = sv_input_check(r->path, why, sizeof why);
    if (state == SV_INPUT_NOT_FILE) {
        snprintf(err, errlen, "%s", why);
        goto done;
    }
    if (state != 0) {
        snprintf(err, errlen, "%s: cannot read the recording: %s", r->path, strerror(errno));
        goto done;
    }
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
    if (strcmp(r->group_name, "/") != 0 && !sv_rec_has_link(r->file, r->group_name)) {
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

