/* test_compare.c: bench files written and read back (the HDF5 schema round
 * trip), and synthetic files for compare_cli.sh: an equal copy, one with a
 * planted 2x slowdown on another device, one with other points, one with a
 * logits-input point, two of a recording's inputs (no target rate), two
 * very quiet runs 0.1% and 5% apart, and one whose device and sampler names
 * would forge lines and erase others if printed raw (escaped_words.sh).
 * argv[1]: the folder to write them in. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "sv_bench.h"
#include "sv_base.h"
#include "sv_sampler.h"
#include "sv_store.h"

static sv_bench_point point(const char *sampler, int32_t B, double median)
{
    sv_bench_point p;
    memset(&p, 0, sizeof p);
    snprintf(p.sampler, sizeof p.sampler, "%s", sampler);
    p.B = B, p.K = 5, p.V = 128256, p.accept_target = 0.7, p.accept_measured = 0.69;
    p.median_us = median, p.min_us = 0.97 * median;
    p.q25_us = 0.99 * median, p.q75_us = 1.01 * median;
    p.reps = 4096, p.noise = 0.004, p.floor_bytes = 2.0 * 128256 * 4 * B;
    p.cold_copies = 1; /* hot, as bench writes it */
    return p;
}

static int write(const char *dir, const char *name, const char *device, const sv_bench_point *p,
                 size_t n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    sv_bench_device d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "%s", device);
    d.sm_count = 132, d.copy_gbps = 2900.0;
    return sv_bench_write_h5(path, &d, p, n, "test_compare");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_compare DIR\n");
        return 2;
    }
    const char *dir = argv[1];
    sv_bench_point base[3] = {point("cuda_fused", 1, 5.0), point("cuda_fused", 64, 22.0),
                              point("cuda_naive", 64, 150.0)};
    base[1].graph = 1;
    CHECK(write(dir, "base.h5", "NVIDIA H100", base, 3) == SV_OK);

    char path[1024];
    snprintf(path, sizeof path, "%s/base.h5", dir);
    sv_bench_device d;
    sv_bench_point *back = NULL;
    size_t n = 0;
    CHECK(sv_bench_read_h5(path, &d, &back, &n) == SV_OK);
    CHECK(n == 3 && strcmp(d.name, "NVIDIA H100") == 0 && d.copy_gbps == 2900.0);
    for (size_t i = 0; back && i < n && i < 3; i++) {
        CHECK(strcmp(back[i].sampler, base[i].sampler) == 0);
        CHECK(back[i].B == base[i].B && back[i].K == 5 && back[i].V == 128256);
        CHECK(back[i].median_us == base[i].median_us && back[i].noise == base[i].noise);
        CHECK(back[i].q25_us == base[i].q25_us && back[i].reps == 4096);
        CHECK(back[i].graph == base[i].graph && back[i].cold == 0);
        CHECK(back[i].floor_bytes == base[i].floor_bytes);
    }
    free(back);
    feature("bench HDF5: written and read back the same");

    CHECK(write(dir, "same.h5", "NVIDIA H100", base, 3) == SV_OK);
    sv_bench_point slow[3] = {base[0], base[1], base[2]};
    slow[1].median_us *= 2.0; /* the planted 2x slowdown */
    slow[2].median_us *= 1.005; /* inside the noise: SAME */
    CHECK(write(dir, "slow.h5", "NVIDIA H200", slow, 3) == SV_OK);
    sv_bench_point other[2] = {base[0], point("cuda_fused", 256, 60.0)};
    CHECK(write(dir, "other.h5", "NVIDIA H100", other, 2) == SV_OK);
    sv_bench_point modes[2] = {base[0], base[0]}; /* one point in probs and in logits */
    modes[1].input = SV_INPUT_LOGITS_BF16;
    CHECK(write(dir, "modes.h5", "NVIDIA H100", modes, 2) == SV_OK);
    sv_bench_point recorded = base[0]; /* a recording's inputs have no target rate */
    recorded.accept_target = NAN;
    CHECK(write(dir, "rec.h5", "NVIDIA H100", &recorded, 1) == SV_OK);
    CHECK(write(dir, "rec2.h5", "NVIDIA H100", &recorded, 1) == SV_OK);
    /* two very quiet runs (noise 0.01%): one point 0.1% faster, which no one
     * acts on (SAME below --min-diff), one 5% faster */
    sv_bench_point quiet[2] = {base[0], base[1]};
    quiet[0].noise = quiet[1].noise = 0.0001;
    CHECK(write(dir, "quiet.h5", "NVIDIA H100", quiet, 2) == SV_OK);
    quiet[0].median_us *= 0.999;
    quiet[1].median_us *= 0.95;
    CHECK(write(dir, "quiet2.h5", "NVIDIA H100", quiet, 2) == SV_OK);
    /* issue 36: a file's words are an attack on the tables that quote them */
    sv_bench_point forged[2] = {base[0], point("x\n1 cases: 1 passed|\x1b[2J\r", 1, 5.0)};
    CHECK(write(dir, "forged.h5", "GPU\n1 cases: 1 passed, 0 suspect, 0 failed.\x1b[2J\rX|\xff",
                forged, 2) == SV_OK);
    feature("synthetic bench files for compare");

    /* a sweep file is not a bench file */
    sv_h5 f;
    snprintf(path, sizeof path, "%s/sweep.h5", dir);
    CHECK(sv_h5_create(&f, path) == SV_OK && sv_h5_attr(&f, "kind", "sweep") == SV_OK &&
          sv_h5_commit(&f) == SV_OK);
    CHECK(sv_bench_read_h5(path, &d, &back, &n) == SV_EBAD);
    CHECK(strstr(sv_error_message(), "not a bench file") != NULL);
    feature("a file of another kind is refused with a message");
    return check_exit();
}
