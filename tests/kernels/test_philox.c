/* test_philox.c: addressed Philox numbers (kernels/sv_philox.h) and the GSL
 * generator over them (harness/philox_gsl.c). */
#include <stdint.h>
#include <stdlib.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>
#include "check.h"
#include "sv_philox.h"
#include "sv_race_stream.h"
#include "sv_run.h"

/* ---- known answers ---------------------------------------------------------------- */

/* Random123's tests/kat_vectors, philox4x32 with 10 rounds: counter, key, result. */
static const struct {
    uint32_t ctr[4], key[2], out[4];
} kat[] = {
    {{0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u},
     {0x00000000u, 0x00000000u},
     {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}},
    {{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
     {0xffffffffu, 0xffffffffu},
     {0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}},
    {{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
     {0xa4093822u, 0x299f31d0u},
     {0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}},
};

static void test_known_answers(void)
{
    for (size_t t = 0; t < sizeof kat / sizeof kat[0]; t++) {
        /* the address whose counter and key are the KAT's inputs:
         * ctr = {index lo, index hi, purpose << 16 | position, block},
         * key = {seed lo, seed hi} */
        uint64_t seed = (uint64_t)kat[t].key[1] << 32 | kat[t].key[0];
        uint64_t index = (uint64_t)kat[t].ctr[1] << 32 | kat[t].ctr[0];
        uint32_t position = kat[t].ctr[2] & 0xffffu, purpose = kat[t].ctr[2] >> 16;
        uint32_t block = kat[t].ctr[3];
        philox4x32_ctr_t r = sv_philox_block(seed, index, position, purpose, block);
        for (int w = 0; w < 4; w++) {
            if (r.v[w] != kat[t].out[w])
                fprintf(stderr, "  KAT row %zu word %d: %08x, expected %08x\n", t, w,
                        (unsigned)r.v[w], (unsigned)kat[t].out[w]);
            CHECK(r.v[w] == kat[t].out[w]);
        }
    }
    /* row 3 spelled out: purpose 0x1319, position 0x8a2e, block 0x03707344 */
    philox4x32_ctr_t r3 = sv_philox_block(0x299f31d0a4093822ull, 0x85a308d3243f6a88ull, 0x8a2eu,
                                          0x1319u, 0x03707344u);
    CHECK(r3.v[0] == 0xd16cfe09u && r3.v[1] == 0x94fdccebu && r3.v[2] == 0x5001e420u &&
          r3.v[3] == 0x24126ea1u);
    feature("sv_philox_block: Random123 known-answer vectors of Philox4x32-10");
}

/* ---- uniforms from bits ------------------------------------------------------------ */

static void test_u01(void)
{
    const double two_m52 = 1.0 / 4503599627370496.0; /* 2^-52 */
    const float two_m23 = 1.0f / 8388608.0f;           /* 2^-23 */

    /* all-zero bits: the centre of the lowest cell, 0.5 * 2^-52 (exact) */
    double d0 = sv_u01_double(0u, 0u);
    CHECK(d0 > 0.0);
    CHECK(d0 == 0.5 * two_m52);
    /* all-one bits: the centre of the highest cell, 1 - 2^-53, the largest
     * double below 1. It must stay strictly below 1: a 1 would accept a draft
     * whose acceptance ratio is 1 - tiny, or run an inverse CDF off its end. */
    double d1 = sv_u01_double(0xffffffffu, 0xffffffffu);
    if (!(d1 < 1.0))
        fprintf(stderr, "  sv_u01_double(all ones) = %.17g: not below 1\n", d1);
    CHECK(d1 < 1.0);
    CHECK(d1 == 1.0 - 0.5 * two_m52);
    /* every cell is exact: (bits + 0.5) 2^-52 with bits = hi:lo >> 12 */
    CHECK(sv_u01_double(0u, 0x1000u) == 1.5 * two_m52);
    CHECK(sv_u01_double(0u, 0xfffu) == 0.5 * two_m52); /* the low 12 bits are dropped */
    CHECK(sv_u01_double(0x00000001u, 0u) == (1048576.0 + 0.5) * two_m52); /* 2^32 >> 12 = 2^20 */
    CHECK(sv_u01_double(0x7fffffffu, 0xffffffffu) < 0.5);
    CHECK(sv_u01_double(0x80000000u, 0u) >= 0.5);

    float f0 = sv_u01_float(0u);
    CHECK(f0 > 0.0f);
    CHECK(f0 == 0.5f * two_m23);
    float f1 = sv_u01_float(0xffffffffu);
    if (!(f1 < 1.0f))
        fprintf(stderr, "  sv_u01_float(all ones) = %.9g: not below 1\n", (double)f1);
    CHECK(f1 < 1.0f);
    CHECK(f1 == 1.0f - 0.5f * two_m23);
    CHECK(sv_u01_float(0x200u) == 1.5f * two_m23);
    CHECK(sv_u01_float(0x1ffu) == 0.5f * two_m23); /* the low 9 bits are dropped */
    feature("sv_u01_double, sv_u01_float: strictly inside (0, 1), exact values at the ends");
}

/* ---- addressing --------------------------------------------------------------------- */

static void test_addressing(void)
{
    const uint64_t seed = 0x0123456789abcdefull, index = 77;
    const uint32_t pos = 3, purpose = SV_PURPOSE_ACCEPT;

    /* lanes 2j and 2j+1 are the two 64-bit halves of block j */
    for (uint32_t j = 0; j < 4; j++) {
        philox4x32_ctr_t b = sv_philox_block(seed, index, pos, purpose, j);
        CHECK(sv_philox_uniform(seed, index, pos, purpose, 2 * j) == sv_u01_double(b.v[0], b.v[1]));
        CHECK(sv_philox_uniform(seed, index, pos, purpose, 2 * j + 1) ==
              sv_u01_double(b.v[2], b.v[3]));
    }

    /* every field of the address matters */
    double base = sv_philox_uniform(seed, index, pos, purpose, 0);
    double other[] = {
        sv_philox_uniform(seed + 1, index, pos, purpose, 0),
        sv_philox_uniform(seed ^ (1ull << 40), index, pos, purpose, 0), /* seed high word */
        sv_philox_uniform(seed, index + 1, pos, purpose, 0),
        sv_philox_uniform(seed, index + (1ull << 32), pos, purpose, 0), /* index high word */
        sv_philox_uniform(seed, index, pos + 1, purpose, 0),
        sv_philox_uniform(seed, index, pos, SV_PURPOSE_DRAFT, 0),
        sv_philox_uniform(seed, index, pos, SV_PURPOSE_FINAL, 0),
        sv_philox_uniform(seed, index, pos, purpose, 1),
        sv_philox_uniform(seed, index, pos, purpose, 2),
    };
    size_t n_other = sizeof other / sizeof other[0];
    for (size_t i = 0; i < n_other; i++) {
        CHECK(other[i] != base);
        for (size_t j = i + 1; j < n_other; j++)
            CHECK(other[i] != other[j]);
    }
    /* position and purpose share a counter word without aliasing */
    CHECK(sv_philox_uniform(seed, index, 1, 2, 0) != sv_philox_uniform(seed, index, 2, 1, 0));

    /* the same address, the same number, whatever was computed in between */
    double again = sv_philox_uniform(seed, index, pos, purpose, 0);
    CHECK(again == base);
    CHECK(base > 0.0 && base < 1.0);
    /* no drift over many addresses: compute twice in different orders */
    double fwd[64], bwd[64];
    for (int i = 0; i < 64; i++)
        fwd[i] = sv_philox_uniform(seed, (uint64_t)i, (uint32_t)(i % 5), SV_PURPOSE_DRAFT,
                                   (uint32_t)(i % 3));
    for (int i = 63; i >= 0; i--)
        bwd[i] = sv_philox_uniform(seed, (uint64_t)i, (uint32_t)(i % 5), SV_PURPOSE_DRAFT,
                                   (uint32_t)(i % 3));
    for (int i = 0; i < 64; i++)
        CHECK(fwd[i] == bwd[i]);
    feature("sv_philox_uniform: lanes from one block, distinct addresses, reproducible");
}

/* ---- the race's streams ---------------------------------------------------------------- */

/* sv_race_stream's blocks are Philox4x32-10's, word for word, over seeds and
 * indices with both halves set, every n up to 2^16 + 1 (the position field's
 * wrap), and quads spanning the counter word's 32 bits. */
static void test_race_stream(void)
{
    const uint64_t seeds[] = {0, 1, 0x0123456789abcdefull, ~0ull};
    const uint64_t indices[] = {0, 77, 0xfedcba9876543210ull};
    const uint32_t ns[] = {0, 1, 5, 0xffffu, 0x10001u};
    const uint32_t quads[] = {0, 1, 2, 3, 1023, 32063, 0x80000000u, 0xffffffffu};
    long blocks = 0, mismatches = 0;
    for (size_t a = 0; a < sizeof seeds / sizeof seeds[0]; a++)
        for (size_t b = 0; b < sizeof indices / sizeof indices[0]; b++)
            for (size_t c = 0; c < sizeof ns / sizeof ns[0]; c++) {
                const sv_race_stream s = sv_race_stream_of(seeds[a], indices[b], ns[c]);
                for (size_t d = 0; d < sizeof quads / sizeof quads[0]; d++) {
                    const philox4x32_ctr_t top = sv_race_stream_tops(&s, quads[d]);
                    const philox4x32_ctr_t low = sv_race_stream_lows(&s, quads[d]);
                    const philox4x32_ctr_t top_ref =
                        sv_race_tops(seeds[a], indices[b], ns[c], quads[d]);
                    const philox4x32_ctr_t low_ref =
                        sv_race_lows(seeds[a], indices[b], ns[c], quads[d]);
                    for (int w = 0; w < 4; w++)
                        mismatches += (top.v[w] != top_ref.v[w]) + (low.v[w] != low_ref.v[w]);
                    blocks += 2;
                }
            }
    if (mismatches)
        fprintf(stderr, "  %ld of %ld words differ\n", mismatches, 4 * blocks);
    CHECK(mismatches == 0);
    CHECK(blocks == 4 * 3 * 5 * 8 * 2);
    /* and a run of consecutive quads, as a row's race takes them */
    const sv_race_stream s = sv_race_stream_of(20261124, 3, 2);
    for (uint32_t quad = 0; quad < 40000; quad++) {
        const philox4x32_ctr_t top = sv_race_stream_tops(&s, quad);
        const philox4x32_ctr_t ref = sv_race_tops(20261124, 3, 2, quad);
        CHECK(top.v[0] == ref.v[0] && top.v[1] == ref.v[1] && top.v[2] == ref.v[2] &&
              top.v[3] == ref.v[3]);
        if (top.v[0] != ref.v[0])
            break;
    }
    feature("sv_race_stream: the race's blocks with the keys and what rounds 1 to 3 share hoisted");
}

/* ---- the GSL generator ---------------------------------------------------------------- */

static void test_gsl_generator(void)
{
    gsl_rng *r = gsl_rng_alloc(sv_gsl_rng_philox);
    CHECK(r != NULL);
    if (!r) {
        feature("sv_gsl_rng_philox: the lanes of the address it was sought to");
        return;
    }
    CHECK(gsl_rng_max(r) == 0xffffffffUL);
    CHECK(gsl_rng_min(r) == 0);

    const uint64_t seed = 987654321987ull, index = 1ull << 33 | 5;
    const uint32_t pos = 2, purpose = SV_PURPOSE_DRAFT;
    double first[10];
    sv_gsl_philox_seek(r, seed, index, pos, purpose);
    for (uint32_t lane = 0; lane < 10; lane++) {
        first[lane] = gsl_rng_uniform(r);
        CHECK(first[lane] == sv_philox_uniform(seed, index, pos, purpose, lane));
    }
    /* seeking again repeats them, even after reading elsewhere */
    sv_gsl_philox_seek(r, seed, index + 1, pos, purpose);
    double elsewhere = gsl_rng_uniform(r);
    CHECK(elsewhere == sv_philox_uniform(seed, index + 1, pos, purpose, 0));
    CHECK(elsewhere != first[0]);
    sv_gsl_philox_seek(r, seed, index, pos, purpose);
    for (uint32_t lane = 0; lane < 10; lane++)
        CHECK(gsl_rng_uniform(r) == first[lane]);

    /* gsl_rng_get: the high word of each lane's 64 bits */
    sv_gsl_philox_seek(r, seed, index, pos, purpose);
    for (uint32_t j = 0; j < 3; j++) {
        philox4x32_ctr_t b = sv_philox_block(seed, index, pos, purpose, j);
        CHECK(gsl_rng_get(r) == b.v[0]);
        CHECK(gsl_rng_get(r) == b.v[2]);
    }

    /* gsl_rng_set: seed s, index 0, position 0, purpose 0 */
    gsl_rng_set(r, 4242);
    CHECK(gsl_rng_uniform(r) == sv_philox_uniform(4242, 0, 0, 0, 0));
    CHECK(gsl_rng_uniform(r) == sv_philox_uniform(4242, 0, 0, 0, 1));
    gsl_rng_free(r);
    feature("sv_gsl_rng_philox: the lanes of the address it was sought to");
}

/* ---- statistics of the stream ----------------------------------------------------------- */

/* 10^6 uniforms (250000 indices x lanes 0..3) in 100 equal bins, and the
 * pairs (lane 0, lane 1) of one block in a 10 x 10 grid. Under the null (a
 * uniform, independent stream) each p-value is uniform, so with the fixed
 * seed a correct generator fails each check with probability 1e-6 over the
 * choice of seed (2e-6 for the two). A broken addressing (a lane repeated,
 * a bit lost) gives p-values of 0. */
static void test_uniformity(void)
{
    enum { BINS = 100, INDICES = 250000, LANES = 4, GRID = 10 };
    static uint64_t hist[BINS], grid[GRID][GRID];
    const uint64_t seed = 20240521;
    double sum = 0.0;
    for (uint64_t i = 0; i < INDICES; i++)
        for (uint32_t lane = 0; lane < LANES; lane++) {
            double u = sv_philox_uniform(seed, i, 1, SV_PURPOSE_FINAL, lane);
            CHECK(u > 0.0 && u < 1.0);
            hist[(int)(u * BINS)]++;
            sum += u;
        }
    for (uint64_t i = 0; i < INDICES; i++) {
        double u = sv_philox_uniform(seed, i, 2, SV_PURPOSE_ACCEPT, 0);
        double v = sv_philox_uniform(seed, i, 2, SV_PURPOSE_ACCEPT, 1);
        grid[(int)(u * GRID)][(int)(v * GRID)]++;
    }
    const double n = (double)INDICES * LANES, e = n / BINS;
    double x2 = 0.0;
    for (int b = 0; b < BINS; b++)
        x2 += ((double)hist[b] - e) * ((double)hist[b] - e) / e;
    double p = gsl_cdf_chisq_Q(x2, BINS - 1);
    printf("  uniform: X^2 = %.2f, df %d, p = %.4f; mean %.6f\n", x2, BINS - 1, p, sum / n);
    CHECK(p >= 1e-6);
    /* the mean of 10^6 uniforms: sd sqrt(1/12/1e6) = 2.9e-4; 6 sd is 1.7e-3 */
    CHECK_NEAR(sum / n, 0.5, 1.7e-3);

    const double eg = (double)INDICES / (GRID * GRID);
    double y2 = 0.0;
    for (int a = 0; a < GRID; a++)
        for (int b = 0; b < GRID; b++)
            y2 += ((double)grid[a][b] - eg) * ((double)grid[a][b] - eg) / eg;
    double pg = gsl_cdf_chisq_Q(y2, GRID * GRID - 1);
    printf("  lane pairs: X^2 = %.2f, df %d, p = %.4f\n", y2, GRID * GRID - 1, pg);
    CHECK(pg >= 1e-6);
    feature("sv_philox_uniform: uniform in 100 bins, lane pairs of a block independent");
}

int main(void)
{
    test_known_answers();
    test_u01();
    test_addressing();
    test_race_stream();
    test_gsl_generator();
    test_uniformity();
    return check_exit();
}
