/* forge_h5.c: hostile result files for the tests, as a forger would make
 * them:
 *   forge_h5 bench FILE DEVICE SAMPLER   a valid bench file (two points,
 *       B = 1 and 64, on one curve) whose device and sampler names are the
 *       given strings: quotes, newlines, gnuplot and shell syntax.
 * Exit 0 when written, 2 on bad usage, 1 when HDF5 refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"
#include "sv_harness.h"

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

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "bench") == 0)
        return write_bench(argv[2], argv[3], argv[4]);
    fprintf(stderr, "usage: forge_h5 bench FILE DEVICE SAMPLER\n");
    return 2;
}
