/* results_h5.c: small HDF5 helpers for result files: 1-D and 2-D datasets of
 * doubles, bytes and strings, string attributes, and an atomic create/close
 * (the file is built under a temporary name beside its target and renamed
 * into place; sv_output.h decides the target, and refuses a device). */
#include <errno.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sv_store.h"

int sv_h5_create(sv_h5 *f, const char *path)
{
    memset(f, 0, sizeof *f);
    f->file = -1;
    char err[SV_OUTPUT_PATH + 256];
    if (sv_output_resolve(path, 1, &f->out, err, sizeof err) != 0)
        return sv_fail(SV_EBAD, "%s", err);
    /* the name mkstemp reserved beside the target, truncated by HDF5 */
    int fd = sv_output_temp(&f->out, f->tmp, sizeof f->tmp, err, sizeof err);
    if (fd < 0)
        return sv_fail(SV_EBAD, "%s", err);
    close(fd);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* errors are reported here, in words */
    f->file = H5Fcreate(f->tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f->file < 0) {
        unlink(f->tmp);
        f->tmp[0] = '\0';
        return sv_fail(SV_EBAD, "%s: cannot create an HDF5 file there", path);
    }
    return SV_OK;
}

int sv_h5_check(const char *path)
{
    char err[SV_OUTPUT_PATH + 256];
    if (sv_output_check(path, 1, err, sizeof err) != 0)
        return sv_fail(SV_EBAD, "%s", err);
    return SV_OK;
}

static int dataset(sv_h5 *f, const char *name, hid_t type, int rank, const hsize_t *dims,
                   const void *data)
{
    hid_t space = H5Screate_simple(rank, dims, NULL);
    hid_t set = H5Dcreate2(f->file, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    herr_t w = set >= 0 ? H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) : -1;
    if (set >= 0)
        H5Dclose(set);
    H5Sclose(space);
    if (w < 0)
        f->failed = 1;
    return w < 0 ? sv_fail(SV_EBAD, "could not write %s (dataset %s)", f->out.path, name) : SV_OK;
}

int sv_h5_doubles(sv_h5 *f, const char *name, const double *data, size_t rows, size_t cols)
{
    hsize_t dims[2] = {rows, cols};
    return dataset(f, name, H5T_NATIVE_DOUBLE, cols ? 2 : 1, dims, data);
}

int sv_h5_u64s(sv_h5 *f, const char *name, const uint64_t *data, size_t n)
{
    hsize_t dims[1] = {n};
    return dataset(f, name, H5T_NATIVE_UINT64, 1, dims, data);
}

int sv_h5_bytes(sv_h5 *f, const char *name, const signed char *data, size_t rows, size_t cols)
{
    hsize_t dims[2] = {rows, cols};
    return dataset(f, name, H5T_NATIVE_SCHAR, cols ? 2 : 1, dims, data);
}

static hid_t string_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    return t;
}

int sv_h5_strings(sv_h5 *f, const char *name, const char *const *strings, size_t n)
{
    hid_t t = string_type();
    hsize_t dims[1] = {n};
    int rc = dataset(f, name, t, 1, dims, strings);
    H5Tclose(t);
    return rc;
}

int sv_h5_attr(sv_h5 *f, const char *name, const char *value)
{
    hid_t t = string_type(), space = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(f->file, name, t, space, H5P_DEFAULT, H5P_DEFAULT);
    herr_t w = a >= 0 ? H5Awrite(a, t, &value) : -1;
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(space);
    H5Tclose(t);
    if (w < 0)
        f->failed = 1;
    return w < 0 ? sv_fail(SV_EBAD, "could not write %s (attribute %s)", f->out.path, name)
                 : SV_OK;
}

int sv_h5_commit(sv_h5 *f)
{
    const int closed = H5Fclose(f->file) >= 0 && !f->failed;
    f->file = -1;
    if (closed && rename(f->tmp, f->out.target) == 0) {
        f->tmp[0] = '\0';
        return SV_OK;
    }
    /* the library says no more than that it failed */
    const char *why = closed ? strerror(errno)
                             : "the HDF5 library could not finish it (disk full?)";
    int rc = sv_fail(SV_EBAD, "could not write %s: %s", f->out.path, why);
    sv_h5_abort(f);
    return rc;
}

void sv_h5_abort(sv_h5 *f)
{
    if (f->file >= 0)
        H5Fclose(f->file);
    f->file = -1;
    if (f->tmp[0])
        unlink(f->tmp);
    f->tmp[0] = '\0';
}
