/* results_h5_read.c: reading back what results_h5.c writes: datasets of
 * doubles (1-D or 2-D) and string attributes, with errors that name the
 * file and the dataset. */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sv_harness.h"

int sv_h5_open(sv_h5_reader *r, const char *path)
{
    memset(r, 0, sizeof *r);
    snprintf(r->path, sizeof r->path, "%s", path);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (H5Fis_hdf5(path) <= 0)
        return sv_fail(SV_EBAD, "%s: not an HDF5 file (or not readable)", path);
    r->file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    return r->file < 0 ? sv_fail(SV_EBAD, "%s: cannot open it as HDF5", path) : SV_OK;
}

void sv_h5_close(sv_h5_reader *r)
{
    if (r->file > 0)
        H5Fclose(r->file);
    r->file = 0;
}

int sv_h5_read_doubles(sv_h5_reader *r, const char *name, double **data, size_t *rows,
                       size_t *cols)
{
    *data = NULL;
    *rows = *cols = 0;
    hid_t set = H5Dopen2(r->file, name, H5P_DEFAULT);
    if (set < 0)
        return sv_fail(SV_EBAD, "%s: no dataset '%s'", r->path, name);
    hid_t space = H5Dget_space(set);
    int rank = H5Sget_simple_extent_ndims(space);
    hsize_t dims[2] = {0, 0};
    int rc = SV_OK;
    if (rank < 1 || rank > 2) {
        rc = sv_fail(SV_EBAD, "%s: dataset '%s' has rank %d, expected 1 or 2", r->path, name,
                     rank);
    } else {
        H5Sget_simple_extent_dims(space, dims, NULL);
        size_t count = (size_t)dims[0] * (rank == 2 ? (size_t)dims[1] : 1);
        *data = malloc((count ? count : 1) * sizeof **data);
        if (!*data)
            rc = sv_fail(SV_EENV, "%s: out of memory reading '%s'", r->path, name);
        else if (H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, *data) < 0)
            rc = sv_fail(SV_EBAD, "%s: cannot read dataset '%s' as numbers", r->path, name);
        *rows = (size_t)dims[0];
        *cols = rank == 2 ? (size_t)dims[1] : 0;
    }
    H5Sclose(space);
    H5Dclose(set);
    if (rc != SV_OK) {
        free(*data);
        *data = NULL;
    }
    return rc;
}

int sv_h5_read_attr(sv_h5_reader *r, const char *name, char *out, size_t len)
{
    out[0] = '\0';
    if (H5Aexists(r->file, name) <= 0)
        return sv_fail(SV_EBAD, "%s: no attribute '%s'", r->path, name);
    hid_t a = H5Aopen(r->file, name, H5P_DEFAULT);
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    char *value = NULL;
    herr_t rd = a >= 0 ? H5Aread(a, t, &value) : -1;
    if (rd >= 0 && value) {
        snprintf(out, len, "%s", value);
        H5free_memory(value);
    }
    H5Tclose(t);
    if (a >= 0)
        H5Aclose(a);
    return rd < 0 ? sv_fail(SV_EBAD, "%s: cannot read attribute '%s' as text", r->path, name)
                  : SV_OK;
}

int sv_h5_read_strings(sv_h5_reader *r, const char *name, char ***out, size_t *n)
{
    *out = NULL;
    *n = 0;
    hid_t set = H5Dopen2(r->file, name, H5P_DEFAULT);
    if (set < 0)
        return sv_fail(SV_EBAD, "%s: no dataset '%s'", r->path, name);
    hid_t space = H5Dget_space(set);
    hsize_t dims[1] = {0};
    int rc = SV_OK;
    if (H5Sget_simple_extent_ndims(space) != 1) {
        rc = sv_fail(SV_EBAD, "%s: dataset '%s' is not a list of strings", r->path, name);
    } else {
        H5Sget_simple_extent_dims(space, dims, NULL);
        hid_t t = H5Tcopy(H5T_C_S1);
        H5Tset_size(t, H5T_VARIABLE);
        char **raw = calloc(dims[0] ? dims[0] : 1, sizeof *raw);
        *out = calloc(dims[0] ? dims[0] : 1, sizeof **out);
        if (!raw || !*out)
            rc = sv_fail(SV_EENV, "%s: out of memory reading '%s'", r->path, name);
        else if (H5Dread(set, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw) < 0)
            rc = sv_fail(SV_EBAD, "%s: cannot read dataset '%s' as strings", r->path, name);
        for (hsize_t i = 0; rc == SV_OK && i < dims[0]; i++) {
            (*out)[i] = strdup(raw[i] ? raw[i] : "");
            if (!(*out)[i])
                rc = sv_fail(SV_EENV, "%s: out of memory reading '%s'", r->path, name);
        }
        if (raw && rc == SV_OK)
            H5Dvlen_reclaim(t, space, H5P_DEFAULT, raw);
        free(raw);
        H5Tclose(t);
        *n = rc == SV_OK ? (size_t)dims[0] : 0;
    }
    H5Sclose(space);
    H5Dclose(set);
    if (rc != SV_OK && *out) {
        for (hsize_t i = 0; i < dims[0]; i++)
            free((*out)[i]);
        free(*out);
        *out = NULL;
    }
    return rc;
}
