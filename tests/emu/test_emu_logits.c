/* test_emu_logits.c: cuda_fused's logits kernels (kernels/logits_*.cu), from
 * their own sources, run on the CPU by tests/emu against ref_logits through
 * the sampler contract: the same tokens for the same seed, f32 and bf16, T,
 * top-k, top-p, greedy, a one-hot drafter, long rows split over blocks, and
 * the stats kernel's row summaries (N, 1/S, argmax) checked row by row.
 * Each launch must be early where the launcher says (the emulator counts
 * them). Deterministic. (The probability kernels: test_emu_kernels.c.) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "emu_fixture.h"
#include "sv_bf16.h"
#include "sv_cuda_kernels.h"
#include "sv_registry.h"
#include "sv_softmax.h"

/* Logits: target logits random, draft logits the target's plus noise (of a
 * size that varies over the sequences), and
 * drafts drawn from softmax(draft logits / T) by the Gumbel-max trick
 * (ignoring top-k and top-p; T = 0: argmax). */
static void make_logits(fixture *f, double T)
{
    const int32_t B = f->bt.B, K = f->bt.K, V = f->bt.V;
    for (int32_t b = 0; b < B; b++) {
        float *P = f->target_logits + (size_t)b * (size_t)f->bt.target_stride;
        float *Q = f->draft_logits + (size_t)b * (size_t)f->bt.draft_stride;
        const double amp = 0.5 + 2.0 * (b % 3); /* the drafter's noise: acceptance varies */
        for (int32_t k = 0; k <= K; k++)
            for (int32_t i = 0; i < V; i++)
                P[(size_t)k * (size_t)V + (size_t)i] = (float)(8.0 * lcg_unit() - 4.0);
        for (int32_t k = 0; k < K; k++) {
            int32_t best = 0;
            double best_key = -INFINITY;
            for (int32_t i = 0; i < V; i++) {
                float *q = &Q[(size_t)k * (size_t)V + (size_t)i];
                *q = P[(size_t)k * (size_t)V + (size_t)i] + (float)(amp * (lcg_unit() - 0.5));
                double key = T > 0.0 ? *q / T - log(-log(lcg_unit())) : *q;
                if (key > best_key)
                    best_key = key, best = i;
            }
            f->drafts[(size_t)b * (size_t)K + (size_t)k] = best;
        }
    }
    const size_t nt = (size_t)B * (size_t)(K + 1) * (size_t)V, nd = (size_t)B * (size_t)K * (size_t)V;
    for (size_t i = 0; i < nt; i++)
        f->target_bf16[i] = sv_bf16_from_float(f->target_logits[i]);
    for (size_t i = 0; i < nd; i++)
        f->draft_bf16[i] = sv_bf16_from_float(f->draft_logits[i]);
}

/* 1 if any of the n bytes at p is not 0. */
static int any_nonzero(const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        if (c[i])
            return 1;
    return 0;
}

/* Rows whose summary the stats kernel got wrong, in the launch just made
 * (rows: the target rows, sequence-major, then the draft rows): the largest
 * exponent N (T > 0), 1 / S of the row's sum S when nothing is cut (within
 * the rounding of two double sums of V terms in different orders), the
 * first-ranked token (T = 0). A piece of a row summed twice or not at all
 * moves S by far more. */
static int32_t stats_wrong(const fixture *f, const sv_cuda_logits_ws *ws, int bf16, int cut)
{
    const int32_t B = f->bt.B, K = f->bt.K, V = f->bt.V, n_target = B * (K + 1);
    const int32_t n_rows = n_target + (f->bt.draft_logits ? B * K : 0);
    const double T = f->bt.temperature;
    const sv_softmax_scale sc = T > 0.0 ? sv_softmax_scale_of(T) : (sv_softmax_scale){0};
    int32_t wrong = 0;
    float *l = malloc((size_t)V * sizeof *l);
    for (int32_t r = 0; r < n_rows; r++) {
        const size_t at = (size_t)(r < n_target ? r : r - n_target) * (size_t)V;
        for (int32_t i = 0; i < V; i++) {
            const uint16_t *b16 = r < n_target ? f->target_bf16 : f->draft_bf16;
            const float *f32 = r < n_target ? f->target_logits : f->draft_logits;
            l[i] = bf16 ? sv_bf16_to_float(b16[at + i]) : f32[at + i];
        }
        double R;
        int32_t N, argmax, best = 0, top = SV_SOFTMAX_NO_EXPONENT;
        sv_cuda_logits_stats_of(ws->stats, r, &R, &N, &argmax);
        for (int32_t i = 0; i < V; i++) {
            best = l[i] > l[best] ? i : best;
            const int32_t n = T > 0.0 ? sv_softmax_exponent(l[i], sc) : 0;
            top = n > top ? n : top;
        }
        double S = 0.0;
        for (int32_t i = 0; T > 0.0 && i < V; i++)
            S += (double)sv_softmax_weight(l[i], sc, top);
        const int bad = T > 0.0 ? N != top || (!cut && !(fabs(R * S - 1.0) <= V * 0x1p-52))
                                : argmax != best;
        if (bad && wrong++ < 3)
            fprintf(stderr,
                    "  row %d: stats N %d R %.17g argmax %d, want N %d 1/S %.17g argmax %d\n", r,
                    N, R, argmax, top, 1.0 / S, best);
    }
    free(l);
    return wrong;
}

/* The logits kernels against ref_logits on B x K x V logits, f32 and bf16,
 * under several sampling rules; counts the twin's accepted counts into
 * seen and returns the sequences that differ over all runs. stats_blocks:
 * the stats kernel's blocks that these sizes must give (checked from the
 * partial results it wrote: one a piece, a block's meeting with a row, at
 * block + row, the last at stats_blocks + rows - 2). onehot: no draft
 * logits (the one-hot drafter), and each draft's target logit raised to 9
 * (about half the target's mass at T = 1), so that the residual's race,
 * which must skip the draft, would often pick it if it did not. */
static int32_t logits_runs(int32_t B, int32_t K, int32_t V, int32_t stats_blocks, int onehot,
                           int32_t *seen)
{
    fixture f;
    fixture_alloc(&f, B, K, V);
    /* the launcher's workspace, as cuda_fused.c sizes it (one "wave" of 32 blocks) */
    const size_t rows = (size_t)B * ((onehot ? 1 : 2) * (size_t)K + 1);
    int stats_per_sm = 0, verify_per_sm = 0;
    CHECK(sv_cuda_logits_blocks_per_sm(&stats_per_sm, &verify_per_sm) == 0);
    sv_cuda_logits_ws ws = {0};
    ws.stats_wave = stats_per_sm * 8;
    ws.verify_wave = verify_per_sm * 8;
    const size_t n_partials = (size_t)ws.stats_wave + rows;
    ws.stats = calloc(rows, sv_cuda_logits_stats_bytes());
    ws.partials = calloc(n_partials, sv_cuda_logits_partial_bytes());
    ws.row_arrivals = calloc(rows, sizeof(unsigned));
    ws.winners = calloc((size_t)ws.verify_wave + (size_t)B, sv_cuda_logits_winner_bytes());
    ws.arrivals = calloc((size_t)B, sizeof(unsigned));

    static const struct {
        double T;
        int32_t top_k;
        double top_p;
    } rules[] = {{1.0, 0, 1.0}, {0.7, 50, 1.0}, {1.3, 0, 0.9}, {0.8, 200, 0.8}, {0.0, 0, 1.0}};
    int32_t differ = 0;
    for (int mode = SV_INPUT_LOGITS_F32; mode <= SV_INPUT_LOGITS_BF16; mode++)
        for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++) {
            if (onehot && (rules[r].T == 0.0 || rules[r].top_p < 1.0))
                continue; /* greedy: nothing to race; top-p: the plain and cut paths suffice */
            make_logits(&f, rules[r].T);
            for (int32_t b = 0; onehot && b < B; b++)
                for (int32_t k = 0; k < K; k++) {
                    const size_t at = ((size_t)b * (size_t)(K + 1) + (size_t)k) * (size_t)V +
                                      (size_t)f.drafts[(size_t)b * (size_t)K + (size_t)k];
                    f.target_logits[at] = 9.0f;
                    f.target_bf16[at] = sv_bf16_from_float(9.0f);
                }
            f.bt.input = mode;
            f.bt.target = f.bt.draft = NULL;
            f.bt.target_logits = mode == SV_INPUT_LOGITS_F32 ? (const void *)f.target_logits
                                                             : (const void *)f.target_bf16;
            f.bt.draft_logits = onehot                        ? NULL
                                : mode == SV_INPUT_LOGITS_F32 ? (const void *)f.draft_logits
                                                              : (const void *)f.draft_bf16;
            f.bt.temperature = rules[r].T;
            f.bt.top_k = rules[r].top_k;
            f.bt.top_p = rules[r].top_p;
            CHECK(run_twin(&f, "ref_logits") == SV_SAMPLER_OK);
            count_accepted(&f, seen);
            /* bf16 runs take seed and first index from "device memory", as graphs do */
            const uint64_t rng[2] = {f.bt.seed, f.bt.first_index};
            const uint64_t *rng_or_null = mode == SV_INPUT_LOGITS_BF16 ? rng : NULL;
            sv_batch bt = emu_batch(&f, rng_or_null);
            int bad = 0;
            /* bf16 runs launch early, f32 runs the ordinary way */
            const int early = mode == SV_INPUT_LOGITS_BF16;
            const int cut = rules[r].top_k > 0 || rules[r].top_p < 1.0;
            const long kernels = 2 + (rules[r].T > 0.0 && cut); /* stats, [cut], verify */
            CHECK(launches_were(0, 0));
            CHECK(sv_cuda_fused_logits_launch(&bt, &no_seqs, rng_or_null, &ws, &bad, 1, early) == 0);
            CHECK(launches_were(early ? kernels : 0, early ? 0 : kernels));
            CHECK(bad == 0);
            CHECK(stats_wrong(&f, &ws, mode == SV_INPUT_LOGITS_BF16, cut) == 0);
            int32_t m = mismatches(&f);
            if (m)
                fprintf(stderr,
                        "  V %d, %s, T %g, top-k %d, top-p %g%s: %d of %d sequences differ\n", V,
                        mode == SV_INPUT_LOGITS_F32 ? "f32" : "bf16", rules[r].T, rules[r].top_k,
                        rules[r].top_p, onehot ? ", one-hot" : "", m, B);
            differ += m;
        }
    /* entries [stats_blocks + rows - 1, n_partials) stay unwritten; the one before is written */
    CHECK(sv_cuda_logits_stats_blocks(ws.stats_wave, (int32_t)rows, V) == stats_blocks);
    const size_t one = sv_cuda_logits_partial_bytes(), used = (size_t)stats_blocks + rows - 1;
    CHECK(used <= n_partials);
    CHECK(any_nonzero((const char *)ws.partials + (used - 1) * one, one));
    CHECK(!any_nonzero((const char *)ws.partials + used * one, (n_partials - used) * one));
    free(ws.stats), free(ws.partials), free(ws.row_arrivals), free(ws.winners), free(ws.arrivals);
    fixture_free(&f);
    return differ;
}

static void test_logits(void)
{
    int32_t seen[SV_MAX_K + 1] = {0};
    /* 60 rows of V = 999 (odd: rows unaligned) in 14 blocks of about 4280
     * logits (59940 / SV_LOGITS_MIN_CHUNK): a block sums 5 or 6 rows, whole
     * or in part, and every row but a few is whole in one block */
    CHECK(logits_runs(12, 2, 999, 14, 0, seen) == 0);
    CHECK(every_count(seen, 2)); /* over the runs: the residual at every position, the bonus */
    feature("cuda_fused logits kernels (emulated) = ref_logits: f32 and bf16, T, top-k, top-p, greedy, seed from device memory");

    /* the one-hot drafter on aligned rows (V = 1000), where the vector
     * rounds must leave the draft out of the residual's race */
    int32_t seen_onehot[SV_MAX_K + 1] = {0};
    CHECK(logits_runs(24, 2, 1000, 17, 1, seen_onehot) == 0);
    CHECK(every_count(seen_onehot, 2));
    feature("cuda_fused logits kernels (emulated) = ref_logits with a one-hot drafter");

    /* 2 sequences, 10 rows of V = 3 x 4096 + 37 (odd: unaligned rows too):
     * the stats kernel cuts the 123250 logits into 30 blocks (by size; one
     * emulated wave holds more), 3 or 4 pieces a row, and merges their
     * partial sums; the verify kernel, over 12 (V / SV_FUSED_MIN_CHUNK) */
    int32_t seen_long[SV_MAX_K + 1] = {0};
    CHECK(logits_runs(2, 2, 3 * SV_LOGITS_MIN_CHUNK + 37, 30, 0, seen_long) == 0);
    feature("cuda_fused logits kernels (emulated) = ref_logits on long rows split over blocks");
}

int main(void)
{
    test_logits();
    return check_exit();
}
