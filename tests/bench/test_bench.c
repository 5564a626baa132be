/* test_bench.c: the benchmark's inputs and arithmetic, on the host: rows
 * that sum to 1, drafts accepted with exactly the asked probability, the
 * byte floor and the acceptance rate on hand-counted examples; logits
 * inputs that give the rows back at T = 1 (float32, and bf16 rounded). */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "sv_bench.h"
#include "sv_recorded.h"
#include "sv_base.h"
#include "sv_cases.h"
#include "sv_registry.h"
#include "sv_sampler.h"

/* Inputs from a recording: sequence b holds step b mod 3's rows, exactly as
 * the recorded case builds them, and drafts the draft row can produce. */
static void recorded_inputs(void)
{
    const int32_t K = 2, V = 16, B = 7;
    const char *path = "bench_recorded.h5";
    sv_recorded_meta m;
    memset(&m, 0, sizeof m);
    m.K = K, m.V = V;
    char err[2048];
    sv_recorded_writer *w = NULL;
    CHECK(sv_recorded_writer_open(path, NULL, &m, SV_REC_FLOAT32, 0, &w, err, sizeof err) == 0);
    float t[3 * 16], d[2 * 16];
    for (int s = 0; w && s < 3; s++) {
        for (int i = 0; i < 3 * V; i++)
            t[i] = (float)((i * 7 + s * 5) % 11) * 0.3f;
        for (int i = 0; i < 2 * V; i++)
            d[i] = (float)((i * 3 + s) % 13) * 0.2f;
        CHECK(sv_recorded_writer_append(w, t, d, NULL, NULL, err, sizeof err) == 0);
    }
    CHECK(w && sv_recorded_writer_commit(w, err, sizeof err) == 0);
    sv_bench_input in;
    CHECK(sv_bench_input_recorded(&in, B, K, "recorded:file=bench_recorded.h5,T=0.8", 3,
                                  SV_INPUT_PROBS) == SV_OK);
    CHECK(in.V == V && in.K == K && isnan(in.accept));
    for (int32_t b = 0; in.target && b < B; b++) {
        char spec[128];
        snprintf(spec, sizeof spec, "recorded:file=bench_recorded.h5,T=0.8,step=%d", b % 3);
        sv_case *c = NULL;
        CHECK(sv_case_from_spec(spec, &c, err, sizeof err) == 0);
        if (!c)
            continue;
        CHECK(memcmp(in.target + (size_t)b * (K + 1) * V, c->target,
                     (size_t)(K + 1) * V * sizeof(float)) == 0);
        CHECK(memcmp(in.draft + (size_t)b * K * V, c->draft, (size_t)K * V * sizeof(float)) == 0);
        for (int32_t k = 0; k < K; k++) {
            int32_t x = in.draft_tokens[(size_t)b * K + k];
            CHECK(x >= 0 && x < V && c->draft[(size_t)k * V + x] > 0.0f);
        }
        sv_case_free(c);
    }
    sv_bench_input_free(&in);
    CHECK(sv_bench_input_recorded(&in, B, 3, "recorded:file=bench_recorded.h5", 3,
                                  SV_INPUT_PROBS) == SV_EBAD);
    feature("recorded inputs: step b mod N's rows per sequence, drafts from q, K checked");

    /* logits modes: the step's logits rounded to the type, the spec's rule for
     * the sampler, drafts from the q that the rounded logits imply */
    const int modes[] = {SV_INPUT_LOGITS_F32, SV_INPUT_LOGITS_BF16};
    for (int m = 0; m < 2; m++) {
        const char *base = "recorded:file=bench_recorded.h5,T=0.8,top_k=5,top_p=0.9";
        CHECK(sv_bench_input_recorded(&in, B, K, base, 3, modes[m]) == SV_OK);
        CHECK(in.input == modes[m] && !in.target && !in.draft && in.target_logits &&
              in.draft_logits);
        CHECK(in.T == 0.8 && in.top_k == 5 && in.top_p == 0.9);
        const size_t value = (size_t)sv_bench_value_bytes(modes[m]);
        for (int32_t b = 0; in.target_logits && b < B; b++) {
            char spec[160];
            snprintf(spec, sizeof spec, "%s,step=%d", base, b % 3);
            sv_case *c = NULL;
            CHECK(sv_case_from_spec(spec, &c, err, sizeof err) == 0);
            CHECK(c && sv_case_use_logits(c, modes[m], err, sizeof err) == 0);
            if (!c)
                continue;
            const size_t tn = (size_t)(K + 1) * V * value, dn = (size_t)K * V * value;
            CHECK(memcmp((char *)in.target_logits + b * tn, c->input_logits, tn) == 0);
            CHECK(memcmp((char *)in.draft_logits + b * dn, (char *)c->input_logits + tn, dn) ==
                  0);
            for (int32_t k = 0; k < K; k++) {
                int32_t x = in.draft_tokens[(size_t)b * K + k];
                CHECK(x >= 0 && x < V && c->draft[(size_t)k * V + x] > 0.0f);
            }
            sv_case_free(c);
        }
        sv_bench_input_free(&in);
    }
    feature("recorded inputs in logits modes: the rounded logits, the rule, drafts from q");
}

/* Logits inputs: log p, so the twin's softmax at T = 1 gives p back (float32
 * to rounding, bf16 to its 8 bits) and the acceptance rate stays the asked
 * one; the modes' names, bytes and byte floor. */
static void logits_inputs(void)
{
    const int32_t B = 2, K = 2, V = 100;
    const double rate = 0.7;
    const int modes[] = {SV_INPUT_LOGITS_F32, SV_INPUT_LOGITS_BF16};
    for (size_t m = 0; m < 2; m++) {
        sv_bench_input in, ref;
        CHECK(sv_bench_input_make(&in, B, K, V, rate) == SV_OK);
        CHECK(sv_bench_input_make(&ref, B, K, V, rate) == SV_OK);
        CHECK(sv_bench_input_logits(&in, modes[m], 0.8, 20, 0.95) == SV_OK);
        CHECK(in.input == modes[m] && in.target == NULL && in.draft == NULL);
        CHECK(in.T == 0.8 && in.top_k == 20 && in.top_p == 0.95);
        const sv_sampling plain = {1.0, 0, 1.0};
        double l[100], worst_p = 0.0, worst_ratio = 0.0;
        float p[100], q[100];
        for (int32_t b = 0; b < B; b++)
            for (int32_t k = 0; k < K; k++) {
                const size_t tat = ((size_t)b * (K + 1) + k) * V, dat = ((size_t)b * K + k) * V;
                for (int pass = 0; pass < 2; pass++) {
                    const size_t at = pass ? dat : tat;
                    const void *src = pass ? in.draft_logits : in.target_logits;
                    for (int32_t i = 0; i < V; i++) {
                        if (modes[m] == SV_INPUT_LOGITS_F32) {
                            l[i] = ((const float *)src)[at + i];
                        } else {
                            uint32_t u = (uint32_t)((const uint16_t *)src)[at + i] << 16;
                            float f;
                            memcpy(&f, &u, sizeof f);
                            l[i] = f;
                        }
                    }
                    CHECK(sv_logits_to_probs(l, V, &plain, pass ? q : p) == 0);
                }
                for (int32_t i = 0; i < V; i++)
                    worst_p = fmax(worst_p, fabs(p[i] / ref.target[tat + i] - 1.0));
                const int32_t x = in.draft_tokens[(size_t)b * K + k];
                worst_ratio = fmax(worst_ratio, fabs((double)p[x] / q[x] - rate));
            }
        /* bf16 keeps 8 bits: a logit in [-8, -4) is off by up to 2^-6, p by a few % */
        const double tol = modes[m] == SV_INPUT_LOGITS_F32 ? 1e-5 : 0.05;
        printf("  %s: worst |p'/p - 1| %.3g, worst |p/q - rate| %.3g\n",
               sv_input_name(modes[m]), worst_p, worst_ratio);
        CHECK(worst_p <= tol);
        CHECK(worst_ratio <= 2 * tol);
        sv_bench_input_free(&in);
        sv_bench_input_free(&ref);
    }
    for (int mode = SV_INPUT_PROBS; mode <= SV_INPUT_LOGITS_BF16; mode++)
        CHECK(sv_input_find(sv_input_name(mode)) == mode);
    CHECK(sv_input_find("logits-f16") == -1);
    CHECK(sv_bench_value_bytes(SV_INPUT_LOGITS_BF16) == 2 && sv_bench_value_bytes(1) == 4);
    /* every row once: B (2K+1) V values, plus 4 drafts in, 5 tokens and a count out */
    CHECK_NEAR(sv_bench_floor_bytes_logits(3, 4, 1000, 2), 3.0 * 9 * 1000 * 2 + 3.0 * 40, 0.0);
    feature("logits inputs: log of the rows (f32, bf16), names, byte floor of every row once");

    /* the input mode survives the HDF5 file */
    sv_bench_device d = {.name = "test", .copy_gbps = 1000.0};
    sv_bench_point pts[3] = {{.sampler = "cuda_fused", .B = 1, .K = 5, .V = 1000,
                              .median_us = 10.0, .min_us = 9.0, .q25_us = 9.5,
                              .q75_us = 10.5, .reps = 10, .floor_bytes = 1e6,
                              .cold_copies = 1 /* hot, as bench writes it */,
                              .input = SV_INPUT_PROBS}};
    pts[1] = pts[0], pts[1].input = SV_INPUT_LOGITS_F32;
    pts[2] = pts[0], pts[2].input = SV_INPUT_LOGITS_BF16;
    pts[2].cold = 1, pts[2].cold_copies = 101;
    sv_bench_point *back = NULL;
    size_t n = 0;
    CHECK(sv_bench_write_h5("bench_inputs.h5", &d, pts, 3, "test_bench") == SV_OK);
    CHECK(sv_bench_read_h5("bench_inputs.h5", &d, &back, &n) == SV_OK);
    CHECK(n == 3 && back && back[0].input == SV_INPUT_PROBS &&
          back[1].input == SV_INPUT_LOGITS_F32 && back[2].input == SV_INPUT_LOGITS_BF16);
    CHECK(back && back[2].cold && back[2].cold_copies == 101 && back[0].cold_copies == 1);
    free(back);
    remove("bench_inputs.h5");
    feature("bench files: the input mode and cold copies of every point written and read back");
}

int main(void)
{
    const int32_t B = 3, K = 4, V = 1000;
    const double rates[] = {0.0, 0.35, 0.7, 1.0};
    for (size_t r = 0; r < sizeof rates / sizeof rates[0]; r++) {
        sv_bench_input in;
        CHECK(sv_bench_input_make(&in, B, K, V, rates[r]) == SV_OK);
        double worst_sum = 0.0, worst_ratio = 0.0;
        for (int32_t b = 0; b < B; b++) {
            const float *p = in.target + (size_t)b * (K + 1) * V, *q = in.draft + (size_t)b * K * V;
            for (int32_t k = 0; k <= K; k++) {
                double sp = 0.0, sq = 0.0;
                for (int32_t i = 0; i < V; i++) {
                    CHECK(p[(size_t)k * V + i] >= 0.0f);
                    sp += p[(size_t)k * V + i];
                    sq += k < K ? q[(size_t)k * V + i] : 1.0 / V;
                }
                worst_sum = fmax(worst_sum, fmax(fabs(sp - 1.0), fabs(sq - 1.0)));
            }
            for (int32_t k = 0; k < K; k++) {
                int32_t x = in.draft_tokens[(size_t)b * K + k];
                CHECK(x >= 0 && x < V);
                double ratio = (double)p[(size_t)k * V + x] / q[(size_t)k * V + x];
                worst_ratio = fmax(worst_ratio, fabs(ratio - rates[r]));
            }
        }
        CHECK_NEAR(worst_sum, 0.0, 1e-5);
        CHECK_NEAR(worst_ratio, 0.0, 1e-6);
        sv_bench_input_free(&in);
    }
    feature("inputs: rows sum to 1, p/q at every draft equals the asked acceptance rate");

    /* K = 4, V = 1000: n = 0 tests 1 draft, reads the pair; n = 2 tests 3; n = 4
     * tests 4 and reads the bonus row alone. Tokens: 4 in, 5 + 1 out. */
    const int32_t accepted[] = {0, 2, 4};
    const double io = 4.0 * 4 + 4.0 * 5 + 4.0;
    const double want = (8.0 * 1 + 8000.0 + io) + (8.0 * 3 + 8000.0 + io) + (8.0 * 4 + 4000.0 + io);
    CHECK_NEAR(sv_bench_floor_bytes(3, 4, 1000, accepted), want, 0.0);
    CHECK_NEAR(sv_bench_accept_rate(3, 4, accepted), 6.0 / 8.0, 1e-15);
    feature("byte floor and acceptance rate on a hand-counted batch");

    /* cold: 50 MiB of L2. B = 1 reads about 1 MiB a step: 100 others + the
     * one in use; a step reading 200 MiB still rotates 2; 1 byte, the cap */
    const double mib = 1048576.0;
    CHECK(sv_bench_cold_copies(1.0 * mib, 50.0 * mib) == 101);
    CHECK(sv_bench_cold_copies(1.5 * mib, 50.0 * mib) == 68);
    CHECK(sv_bench_cold_copies(200.0 * mib, 50.0 * mib) == 2);
    CHECK(sv_bench_cold_copies(100.0 * mib, 50.0 * mib) == 2);
    CHECK(sv_bench_cold_copies(99.0 * mib, 50.0 * mib) == 3);
    CHECK(sv_bench_cold_copies(1.0, 50.0 * mib) == SV_BENCH_MAX_COPIES);
    CHECK(sv_bench_cold_copies(0.0, 50.0 * mib) == SV_BENCH_MAX_COPIES);
    feature("cold: copies rotated so that twice the L2 is read between two uses of one");
    recorded_inputs();
    logits_inputs();
    return check_exit();
}
