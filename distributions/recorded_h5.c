/* recorded_h5.c: a recording's attributes and dataset shapes, read with the
 * checks libhdf5 leaves to its caller: H5Aread writes every value of an
 * attribute, so an array where one value is expected would overrun the
 * buffer; each attribute is first checked to hold one value of its class. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "recorded_private.h"

const char *sv_rec_where(const sv_recorded *r, const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s:%s%s/%s", r->path, r->group_name[0] == '/' ? "" : "/",
             strcmp(r->group_name, "/") == 0 ? "" : r->group_name, name);
    return buf;
}

int sv_rec_has_link(hid_t loc, const char *name)
{
    return H5Lexists(loc, name, H5P_DEFAULT) > 0;
}

const char *sv_rec_class_name(H5T_class_t cls)
{
    switch (cls) {
    case H5T_INTEGER: return "integers";
    case H5T_FLOAT: return "floats";
    case H5T_STRING: return "strings";
    case H5T_COMPOUND: return "compound records";
    case H5T_ENUM: return "enum values";
    case H5T_ARRAY: return "HDF5 arrays";
    case H5T_VLEN: return "variable-length sequences";
    case H5T_OPAQUE: return "opaque values";
    case H5T_BITFIELD: return "bit fields";
    case H5T_REFERENCE: return "references";
    case H5T_TIME: return "time values";
    default: return "values of no known HDF5 class";
    }
}

/* 1 when attribute a holds one value of class `want` (a scalar or a
 * one-element array); else 0 and what it holds in why. */
static int one_value(hid_t a, H5T_class_t want, char *why, size_t len)
{
    hid_t t = H5Aget_type(a), s = H5Aget_space(a);
    const H5T_class_t cls = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
    const hssize_t n = s >= 0 ? H5Sget_simple_extent_npoints(s) : -1;
    const char *what = sv_rec_class_name(cls);
    if (n == 1 && cls == want)
        why[0] = '\0';
    else if (n == 1) /* "a string": the class name, singular */
        snprintf(why, len, "%s %.*s", strchr("aeiou", what[0]) ? "an" : "a",
                 (int)strlen(what) - 1, what);
    else if (n == 0)
        snprintf(why, len, "empty (no value)");
    else
        snprintf(why, len, "an array of %lld %s", (long long)n, what);
    if (t >= 0)
        H5Tclose(t);
    if (s >= 0)
        H5Sclose(s);
    return !why[0];
}

int sv_rec_int_attr(hid_t obj, const char *name, int64_t *value, char *why, size_t whylen)
{
    if (H5Aexists(obj, name) <= 0)
        return 0;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    snprintf(why, whylen, "unreadable");
    int ok = a >= 0 && one_value(a, H5T_INTEGER, why, whylen) &&
             H5Aread(a, H5T_NATIVE_INT64, value) >= 0;
    if (a >= 0)
        H5Aclose(a);
    return ok ? 1 : -1;
}

int sv_rec_string_attr(hid_t obj, const char *name, char *buf, size_t len, char *why,
                       size_t whylen)
{
    buf[0] = '\0';
    if (H5Aexists(obj, name) <= 0)
        return 0;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    snprintf(why, whylen, "unreadable");
    if (a < 0 || !one_value(a, H5T_STRING, why, whylen)) {
        if (a >= 0)
            H5Aclose(a);
        return -1;
    }
    hid_t t = H5Aget_type(a), mt = H5Tcopy(H5T_C_S1);
    H5Tset_cset(mt, H5Tget_cset(t)); /* h5py writes UTF-8: no conversion to ASCII */
    herr_t got = -1;
    if (H5Tis_variable_str(t) > 0) {
        char *s = NULL;
        H5Tset_size(mt, H5T_VARIABLE);
        if ((got = H5Aread(a, mt, &s)) >= 0 && s) {
            snprintf(buf, len, "%s", s);
            H5free_memory(s);
        }
    } else {
        size_t n = H5Tget_size(t);
        char *s = calloc(n + 1, 1);
        H5Tset_size(mt, n + 1);
        if (s && (got = H5Aread(a, mt, s)) >= 0)
            snprintf(buf, len, "%s", s);
        free(s);
    }
    H5Tclose(mt);
    H5Tclose(t);
    H5Aclose(a);
    if (got < 0)
        snprintf(why, whylen, "unreadable");
    return got >= 0 ? 1 : -1;
}

int sv_rec_dims_of(const sv_recorded *r, hid_t set, const char *name, int rank, hsize_t *dims,
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
        snprintf(err, errlen, "%s: rank %d, expected %d (%s)", sv_rec_where(r, name, w, sizeof w),
                 got, rank, rank == 3 ? "[steps][rows][V]" : "[steps][K]");
        return -1;
    }
    return 0;
}
