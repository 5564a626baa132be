/* results_h5_read.c: reading back what results_h5.c writes: datasets of
 * doubles (1-D or 2-D) and string attributes, with errors that name the
 * file and the dataset; and the check that every number read back is
 * finite and in its range (a file is input: it may be damaged or forged). */
#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sv_input.h"
#include "sv_store.h"

int sv_h5_open(sv_h5_reader *r, const char *path)
{
    memset(r, 0, sizeof *r);
    snprintf(r->path, sizeof r->path, "%s", path);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    char err[4200];
    if (sv_input_check(path, err, sizeof err) == SV_INPUT_NOT_FILE) /* a FIFO would block */
        return sv_fail(SV_EBAD, "%s", err);
    int checked = sv_h5_check_whole(path); /* a corrupt file crashes a child, not us */
    if (checked != SV_OK)
        return checked;
    if (H5Fis_hdf5(path) <= 0)
        return sv_fail(SV_EBAD, "%s: not an HDF5 file (or not readable)", path);
    r->file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (r->file < 0)
        return sv_fail(SV_EBAD, "%s: cannot open it as HDF5", path);
    int rc = sv_h5_own_data(r); /* before any link is followed */
    if (rc != SV_OK)
        sv_h5_close(r);
    return rc;
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

int sv_h5_read_u64s(sv_h5_reader *r, const char *name, uint64_t *out, size_t n)
{
    hid_t set = H5Dopen2(r->file, name, H5P_DEFAULT);
    if (set < 0)
        return sv_fail(SV_EBAD, "%s: no dataset '%s'", r->path, name);
    hid_t space = H5Dget_space(set), type = H5Dget_type(set);
    hsize_t dims[1] = {0};
    int rc = SV_OK;
    if (H5Sget_simple_extent_ndims(space) != 1 || H5Tget_class(type) != H5T_INTEGER ||
        (H5Sget_simple_extent_dims(space, dims, NULL), dims[0] != n))
        rc = sv_fail(SV_EBAD, "%s: dataset '%s' is not %zu counts (%llu found)", r->path, name,
                     n, (unsigned long long)dims[0]);
    else if (n && H5Dread(set, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0)
        rc = sv_fail(SV_EBAD, "%s: cannot read dataset '%s' as counts", r->path, name);
    H5Tclose(type);
    H5Sclose(space);
    H5Dclose(set);
    return rc;
}

int sv_h5_has_dataset(sv_h5_reader *r, const char *name)
{
    return H5Lexists(r->file, name, H5P_DEFAULT) > 0;
}

int sv_h5_has_attr(sv_h5_reader *r, const char *name)
{
    return H5Aexists(r->file, name) > 0;
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

/* "1", "0.25", "1e+300", not "0.10000000000000001": %.15g unless it loses the value. */
static void number_text(double v, char *out, size_t len)
{
    snprintf(out, len, "%.15g", v);
    if (isfinite(v) && strtod(out, NULL) != v)
        snprintf(out, len, "%.17g", v);
}

int sv_h5_bad_value(const sv_h5_reader *r, const char *name, size_t row, size_t col,
                    double v, const char *want)
{
    char value[40], where[48] = "";
    number_text(v, value, sizeof value);
    if (col != SIZE_MAX)
        snprintf(where, sizeof where, ", column %zu", col);
    return sv_fail(SV_EBAD, "%s: dataset '%s', row %zu%s: %s; expected %s", r->path, name, row,
                   where, value, want);
}

/* What a range asks for, in words. */
static void range_text(double lo, double hi, unsigned flags, char *out, size_t len)
{
    char a[40], b[40];
    number_text(lo, a, sizeof a);
    number_text(hi, b, sizeof b);
    const char *kind = flags & SV_H5_WHOLE ? "a whole number" : "a finite number";
    const char *nan = flags & SV_H5_NAN_OK ? " (or NaN)" : "";
    if (isinf(hi))
        snprintf(out, len, "%s %s %s%s", kind, flags & SV_H5_ABOVE_LO ? ">" : ">=", a, nan);
    else
        snprintf(out, len, "%s %s %s to %s%s", kind,
                 flags & SV_H5_ABOVE_LO ? "above" : "from", a, b, nan);
}

static int in_range(double v, double lo, double hi, unsigned flags)
{
    if (isnan(v))
        return (flags & SV_H5_NAN_OK) != 0;
    return isfinite(v) && (flags & SV_H5_ABOVE_LO ? v > lo : v >= lo) && v <= hi &&
           (!(flags & SV_H5_WHOLE) || v == floor(v));
}

int sv_h5_check_values(const sv_h5_reader *r, const char *name, const double *data,
                       size_t rows, size_t cols, double lo, double hi, unsigned flags)
{
    const size_t width = cols ? cols : 1;
    for (size_t i = 0; i < rows * width; i++) {
        if (!in_range(data[i], lo, hi, flags)) {
            const double v = data[i];
            char want[160];
            range_text(lo, hi, flags, want, sizeof want);
            return sv_h5_bad_value(r, name, i / width, cols ? i % width : SIZE_MAX, v, want);
        }
    }
    return SV_OK;
}

int sv_h5_read_checked(sv_h5_reader *r, const char *name, double **data, size_t *rows,
                       size_t *cols, double lo, double hi, unsigned flags)
{
    int rc = sv_h5_read_doubles(r, name, data, rows, cols);
    if (rc == SV_OK)
        rc = sv_h5_check_values(r, name, *data, *rows, *cols, lo, hi, flags);
    if (rc != SV_OK) {
        free(*data);
        *data = NULL;
    }
    return rc;
}

int sv_h5_read_number(sv_h5_reader *r, const char *name, double lo, double hi, unsigned flags,
                      double *out)
{
    char text[512], want[160];
    int rc = sv_h5_read_attr(r, name, text, sizeof text);
    if (rc != SV_OK)
        return rc;
    char *end;
    *out = strtod(text, &end);
    if (end != text && *end == '\0' && in_range(*out, lo, hi, flags))
        return SV_OK;
    range_text(lo, hi, flags, want, sizeof want);
    return sv_fail(SV_EBAD, "%s: attribute '%s' is '%s'; expected %s", r->path, name, text, want);
}
