/* test_bench.c: the benchmark's inputs and arithmetic, on the host: rows
 * that sum to 1, drafts accepted with exactly the asked probability, the
 * byte floor and the acceptance rate on hand-counted examples. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "bench.h"
#include "sv_harness.h"
#include "sv_recorded.h"

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
    CHECK(sv_bench_input_recorded(&in, B, K, "recorded:file=bench_recorded.h5,T=0.8", 3) ==
          SV_OK);
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
    CHECK(sv_bench_input_recorded(&in, B, 3, "recorded:file=bench_recorded.h5", 3) == SV_EBAD);
    feature("recorded inputs: step b mod N's rows per sequence, drafts from q, K checked");
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
    recorded_inputs();
    return check_exit();
}
