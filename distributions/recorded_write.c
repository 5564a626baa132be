/* recorded_write.c: writes recorded p/q steps in the format of sv_recorded.h,
 * one step at a time, into a temporary beside PATH renamed into place at
 * commit (sv_output.h: PATH must be a regular file, a link to one, or new). */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sv_recorded.h"
#include "sv_bf16.h"
#include "sv_output.h"

struct sv_recorded_writer {
    sv_output out;                        /* where it goes: out.path as given, out.target */
    char tmp[SV_OUTPUT_PATH + 16];
    hid_t file, group;
    hid_t target, draft, drafts, context; /* datasets; drafts/context may be < 0 */
    hid_t file_type;                      /* how logits are stored */
    sv_recorded_dtype_t dtype;
    int32_t K, V, context_len;
    int64_t n;                            /* steps appended */
    int drafts_given;                     /* -1: not yet known; 0 / 1 */
    uint16_t *bf16;                       /* conversion buffer for bfloat16 */
};

/* IEEE half precision, as h5py and numpy's float16 store it. */
static hid_t float16_type(void)
{
    hid_t t = H5Tcopy(H5T_IEEE_F32LE);
    H5Tset_fields(t, 15, 10, 5, 0, 10);
    H5Tset_size(t, 2);
    H5Tset_ebias(t, 15);
    return t;
}

static int string_attr(hid_t obj, const char *name, const char *value)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, t, space, H5P_DEFAULT, H5P_DEFAULT);
    herr_t w = a >= 0 ? H5Awrite(a, t, &value) : -1;
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(space);
    H5Tclose(t);
    return w < 0 ? -1 : 0;
}

static int int_attr(hid_t obj, const char *name, int64_t value)
{
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT);
    herr_t w = a >= 0 ? H5Awrite(a, H5T_NATIVE_INT64, &value) : -1;
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(space);
    return w < 0 ? -1 : 0;
}

/* An extendible [0][rows][cols] (or [0][cols] when rows is 0) dataset,
 * chunked one step per chunk, shuffled and deflated. */
static hid_t step_dataset(hid_t group, const char *name, hid_t type, hsize_t rows, hsize_t cols)
{
    int rank = rows ? 3 : 2;
    hsize_t dims[3] = {0, rows ? rows : cols, cols};
    hsize_t maxd[3] = {H5S_UNLIMITED, dims[1], dims[2]};
    hsize_t chunk[3] = {1, dims[1], dims[2]};
    hid_t space = H5Screate_simple(rank, dims, maxd);
    hid_t plist = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(plist, rank, chunk);
    H5Pset_shuffle(plist);
    H5Pset_deflate(plist, 6);
    hid_t set = H5Dcreate2(group, name, type, space, H5P_DEFAULT, plist, H5P_DEFAULT);
    H5Pclose(plist);
    H5Sclose(space);
    return set;
}

/* Writes one step's block at index w->n of an extendible dataset. */
static int append_block(hid_t set, int64_t n, hid_t mem_type, const void *data)
{
    hid_t space = H5Dget_space(set);
    int rank = H5Sget_simple_extent_ndims(space);
    hsize_t dims[3];
    H5Sget_simple_extent_dims(space, dims, NULL);
    H5Sclose(space);
    dims[0] = (hsize_t)n + 1;
    if (H5Dset_extent(set, dims) < 0)
        return -1;
    space = H5Dget_space(set);
    hsize_t start[3] = {(hsize_t)n, 0, 0}, count[3] = {1, dims[1], rank == 3 ? dims[2] : 0};
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
    hsize_t mdims[3] = {1, count[1], count[2]};
    hid_t mem = H5Screate_simple(rank, mdims, NULL);
    herr_t w = H5Dwrite(set, mem_type, mem, space, H5P_DEFAULT, data);
    H5Sclose(mem);
    H5Sclose(space);
    return w < 0 ? -1 : 0;
}

static void close_all(sv_recorded_writer *w)
{
    hid_t sets[4] = {w->target, w->draft, w->drafts, w->context};
    for (int i = 0; i < 4; i++)
        if (sets[i] >= 0)
            H5Dclose(sets[i]);
    if (w->file_type >= 0)
        H5Tclose(w->file_type);
    if (w->group >= 0 && w->group != w->file)
        H5Gclose(w->group);
    if (w->file >= 0)
        H5Fclose(w->file);
    w->target = w->draft = w->drafts = w->context = w->file_type = w->group = w->file = -1;
}

static int attributes(sv_recorded_writer *w, const sv_recorded_meta *m)
{
    int rc = int_attr(w->group, "format_version", SV_RECORDED_FORMAT_VERSION);
    rc |= int_attr(w->group, "vocab_size", m->V);
    rc |= int_attr(w->group, "K", m->K);
    rc |= string_attr(w->group, "source", m->source);
    rc |= string_attr(w->group, "target_model", m->target_model);
    rc |= string_attr(w->group, "draft_model", m->draft_model);
    rc |= string_attr(w->group, "tokenizer", m->tokenizer);
    rc |= string_attr(w->group, "produced_by", m->produced_by);
    return rc;
}

int sv_recorded_writer_open(const char *path, const char *group, const sv_recorded_meta *m,
                            sv_recorded_dtype_t dtype, int32_t context_len,
                            sv_recorded_writer **out, char *err, size_t errlen)
{
    *out = NULL;
    if (m->K < 1 || m->K > SV_RECORDED_MAX_K || m->V < 2 || m->V > SV_RECORDED_MAX_V ||
        context_len < 0) {
        snprintf(err, errlen, "%s: cannot record K=%d, V=%d, context %d (K in [1, %d], V in "
                 "[2, %d])", path, m->K, m->V, context_len, SV_RECORDED_MAX_K, SV_RECORDED_MAX_V);
        return -1;
    }
    sv_recorded_writer *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    w->file = w->group = w->target = w->draft = w->drafts = w->context = w->file_type = -1;
    int fd = -1;
    if (sv_output_resolve(path, 1, &w->out, err, errlen) != 0 ||
        (fd = sv_output_temp(&w->out, w->tmp, sizeof w->tmp, err, errlen)) < 0) {
        free(w);
        return -1;
    }
    close(fd); /* the name is reserved; HDF5 truncates it */
    w->K = m->K, w->V = m->V, w->context_len = context_len, w->dtype = dtype;
    w->drafts_given = -1;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* errors are reported here, in words */
    /* 1.8 object headers and 1.10 chunk indexes: a small recording is a few
     * kilobytes, not twenty (readers since HDF5 1.10, h5py included) */
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_libver_bounds(fapl, H5F_LIBVER_V110, H5F_LIBVER_LATEST);
    w->file = H5Fcreate(w->tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    if (w->file < 0) {
        snprintf(err, errlen, "%s: cannot create an HDF5 file at %s", path, w->tmp);
        remove(w->tmp);
        free(w);
        return -1;
    }
    if (group && *group && strcmp(group, "/") != 0) {
        hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
        H5Pset_create_intermediate_group(lcpl, 1);
        w->group = H5Gcreate2(w->file, group, lcpl, H5P_DEFAULT, H5P_DEFAULT);
        H5Pclose(lcpl);
    } else {
        w->group = w->file;
    }
    if (dtype == SV_REC_FLOAT16)
        w->file_type = float16_type();
    else
        w->file_type = H5Tcopy(dtype == SV_REC_BFLOAT16 ? H5T_STD_U16LE : H5T_IEEE_F32LE);
    int ok = w->group >= 0 && attributes(w, m) == 0;
    if (ok) {
        w->target = step_dataset(w->group, "target_logits", w->file_type,
                                 (hsize_t)m->K + 1, (hsize_t)m->V);
        w->draft = step_dataset(w->group, "draft_logits", w->file_type, (hsize_t)m->K,
                                (hsize_t)m->V);
        ok = w->target >= 0 && w->draft >= 0;
    }
    if (ok && dtype == SV_REC_BFLOAT16) {
        ok = string_attr(w->target, "encoding", "bfloat16") == 0 &&
             string_attr(w->draft, "encoding", "bfloat16") == 0;
        w->bf16 = malloc(((size_t)m->K + 1) * (size_t)m->V * sizeof *w->bf16);
        ok = ok && w->bf16;
    }
    if (ok && context_len > 0) {
        w->context = step_dataset(w->group, "context_ids", H5T_STD_I32LE, 0,
                                  (hsize_t)context_len);
        ok = w->context >= 0;
    }
    if (!ok) {
        snprintf(err, errlen, "%s: cannot create the group '%s' and its datasets", path,
                 group ? group : "/");
        sv_recorded_writer_abort(w);
        return -1;
    }
    *out = w;
    return 0;
}

static int append_logits(sv_recorded_writer *w, hid_t set, const float *rows, int32_t n_rows)
{
    if (w->dtype != SV_REC_BFLOAT16)
        return append_block(set, w->n, H5T_NATIVE_FLOAT, rows);
    for (size_t i = 0; i < (size_t)n_rows * (size_t)w->V; i++)
        w->bf16[i] = sv_bf16_from_float(rows[i]);
    return append_block(set, w->n, H5T_NATIVE_UINT16, w->bf16);
}

int sv_recorded_writer_append(sv_recorded_writer *w, const float *target, const float *draft,
                              const int32_t *drafts, const int32_t *context, char *err,
                              size_t errlen)
{
    int given = drafts != NULL;
    if (w->drafts_given >= 0 && given != w->drafts_given) {
        snprintf(err, errlen, "%s: step %lld %s draft tokens but earlier steps %s", w->out.path,
                 (long long)w->n, given ? "gives" : "lacks", given ? "did not" : "did");
        return -1;
    }
    if (given && w->drafts < 0) {
        w->drafts = step_dataset(w->group, "draft_tokens", H5T_STD_I32LE, 0, (hsize_t)w->K);
        if (w->drafts < 0) {
            snprintf(err, errlen, "%s: cannot create dataset draft_tokens", w->out.path);
            return -1;
        }
    }
    w->drafts_given = given;
    int rc = append_logits(w, w->target, target, w->K + 1);
    if (rc == 0)
        rc = append_logits(w, w->draft, draft, w->K);
    if (rc == 0 && given)
        rc = append_block(w->drafts, w->n, H5T_NATIVE_INT32, drafts);
    if (rc == 0 && w->context >= 0)
        rc = append_block(w->context, w->n, H5T_NATIVE_INT32, context);
    if (rc != 0) {
        snprintf(err, errlen, "%s: cannot write step %lld (disk full?)", w->out.path,
                 (long long)w->n);
        return -1;
    }
    w->n++;
    return 0;
}

int sv_recorded_writer_commit(sv_recorded_writer *w, char *err, size_t errlen)
{
    int rc = 0;
    if (w->drafts_given < 0 && w->n > 0)
        rc = -1; /* cannot happen: append sets it */
    if (w->file >= 0 && H5Fflush(w->file, H5F_SCOPE_GLOBAL) < 0)
        rc = -1;
    close_all(w);
    if (rc == 0 && rename(w->tmp, w->out.target) != 0)
        rc = -1;
    if (rc != 0) {
        snprintf(err, errlen, "could not write %s: cannot finish the file (it was written to "
                 "%s)", w->out.path, w->tmp);
        remove(w->tmp);
    }
    free(w->bf16);
    free(w);
    return rc;
}

void sv_recorded_writer_abort(sv_recorded_writer *w)
{
    if (!w)
        return;
    close_all(w);
    remove(w->tmp);
    free(w->bf16);
    free(w);
}
