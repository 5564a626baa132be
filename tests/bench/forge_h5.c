/* forge_h5.c: hostile result files for the tests, as a damaged disk or a
 * forger would leave them:
 *   forge_h5 bench FILE DEVICE SAMPLER   a valid bench file (two points,
 *       B = 1 and 64, on one curve) whose device and sampler names are the
 *       given strings: quotes, newlines, gnuplot and shell syntax;
 *   forge_h5 set FILE DATASET INDEX VALUE  number INDEX (row-major) of a
 *       dataset of doubles overwritten with VALUE ("nan", "-1", "1.5"...);
 *   forge_h5 attr FILE NAME TEXT  a text attribute replaced by TEXT.
 * Exit 0 when written, 2 on bad usage, 1 when HDF5 refused. */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sv_bench.h"
#include "sv_base.h"

static int write_bench(const char *path, const char *device, const char *sampler)
{
    sv_bench_device d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "%s", device);
    d.sm_count = 132, d.copy_gbps = 2900.0;
    sv_bench_point p[2];
    memset(p, 0, sizeof p);
    for (int i = 0; i < 2; i++) {
        snprintf(p[i].sampler, sizeof p[i].sampler, "%s", sampler);
        p[i].B = i ? 64 : 1, p[i].K = 5, p[i].V = 128256, p[i].accept_target = 0.7;
        p[i].accept_measured = 0.69, p[i].median_us = i ? 22.0 : 5.0;
        p[i].min_us = 0.97 * p[i].median_us, p[i].q25_us = 0.99 * p[i].median_us;
        p[i].q75_us = 1.01 * p[i].median_us, p[i].reps = 4096, p[i].noise = 0.004;
        p[i].floor_bytes = 1e6, p[i].cold_copies = 1;
    }
    if (sv_bench_write_h5(path, &d, p, 2, "forge_h5") != SV_OK) {
        fprintf(stderr, "forge_h5: %s\n", sv_error_message());
        return 1;
    }
    return 0;
}

static int set_number(const char *path, const char *name, const char *index, const char *text)
{
    char *end;
    const double value = strtod(text, &end);
    const long long at = strtoll(index, NULL, 10);
    if (end == text || *end || at < 0) {
        fprintf(stderr, "forge_h5 set: bad INDEX '%s' or VALUE '%s'\n", index, text);
        return 2;
    }
    int rc = 1;
    hid_t file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t set = file >= 0 ? H5Dopen2(file, name, H5P_DEFAULT) : -1;
    hid_t space = set >= 0 ? H5Dget_space(set) : -1;
    if (space >= 0) {
        hssize_t count = H5Sget_simple_extent_npoints(space);
        double *all = count > at ? malloc((size_t)count * sizeof *all) : NULL;
        if (all && H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, all) >= 0) {
            all[at] = value;
            rc = H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, all) < 0;
        }
        free(all);
        H5Sclose(space);
    }
    if (set >= 0)
        H5Dclose(set);
    if (file >= 0)
        H5Fclose(file);
    if (rc)
        fprintf(stderr, "forge_h5 set: cannot set %s[%s] in %s\n", name, index, path);
    return rc;
}

static int set_attr(const char *path, const char *name, const char *text)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t t = H5Tcopy(H5T_C_S1), space = H5Screate(H5S_SCALAR);
    H5Tset_size(t, H5T_VARIABLE);
    if (file >= 0 && H5Aexists(file, name) > 0)
        H5Adelete(file, name);
    hid_t a = file >= 0 ? H5Acreate2(file, name, t, space, H5P_DEFAULT, H5P_DEFAULT) : -1;
    int rc = a < 0 || H5Awrite(a, t, &text) < 0;
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(space);
    H5Tclose(t);
    if (file >= 0)
        H5Fclose(file);
    if (rc)
        fprintf(stderr, "forge_h5 attr: cannot set %s in %s\n", name, path);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "bench") == 0)
        return write_bench(argv[2], argv[3], argv[4]);
    if (argc == 6 && strcmp(argv[1], "set") == 0)
        return set_number(argv[2], argv[3], argv[4], argv[5]);
    if (argc == 5 && strcmp(argv[1], "attr") == 0)
        return set_attr(argv[2], argv[3], argv[4]);
    fprintf(stderr, "usage: forge_h5 bench FILE DEVICE SAMPLER | forge_h5 set FILE DATASET "
                    "INDEX VALUE | forge_h5 attr FILE NAME TEXT\n");
    return 2;
}
