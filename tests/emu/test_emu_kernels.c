/* test_emu_kernels.c: the CUDA kernels, from their own sources, run on the
 * CPU by tests/emu (coroutines for GPU threads), against their CPU twins
 * through the sampler contract: ref for cuda_naive, ref_race for
 * cuda_fused's probability kernel (its logits kernels: test_emu_logits.c). With
 * the same seed every token must be the same: each kernel and its twin share
 * the Philox addresses and the arithmetic, and here even log and exp are the
 * same (the host's), so one mismatch fails. (cuda_naive sums its CDF in
 * another order than ref; on this fixed data no draw falls on a rounding tie.)
 *
 * This is no substitute for the GPU (its memory model, scheduling and
 * arithmetic are not emulated; test_gpu is the test there), but it runs the
 * kernels' logic on every machine: the accept chain by ballot, the pruned
 * race, tails and unaligned rows, the split and combine of a row over
 * blocks, the one-hot drafter, empty residuals, all-zero rows, bad draft
 * tokens, seed and first index read from device memory (graphs), the
 * broken variant's shared uniforms. Each launcher's
 * `early` must reach every launch it makes (kernels/sv_early_launch.cuh):
 * the emulator counts early and ordinary launches. Deterministic. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "emu_fixture.h"
#include "cuda_runtime_api.h" /* tests/emu's: sv_emu_launches */
#include "sv_bf16.h"
#include "sv_cuda_kernels.h"
#include "sv_softmax.h"
#include "sv_registry.h"

/* Probability rows: q is p mixed with noise by a per-sequence amount (0:
 * q = p, every draft accepted, but for one position where q(x) = 2 p(x)
 * leaves no residual weight at all; 1: unrelated), and drafts drawn from q. */
static void make_probs(fixture *f)
{
    const int32_t B = f->bt.B, K = f->bt.K, V = f->bt.V;
    float *noise = malloc((size_t)V * sizeof *noise);
    for (int32_t b = 0; b < B; b++) {
        const double mix = b % 4 == 0 ? 0.0 : b % 4 == 1 ? 0.2 : b % 4 == 2 ? 0.6 : 1.0;
        float *P = f->target + (size_t)b * (size_t)f->bt.target_stride;
        float *Q = f->draft + (size_t)b * (size_t)f->bt.draft_stride;
        for (int32_t k = 0; k <= K; k++)
            random_row(P + (size_t)k * (size_t)V, V);
        for (int32_t k = 0; k < K; k++) {
            random_row(noise, V);
            double sum = 0.0;
            for (int32_t i = 0; i < V; i++)
                sum += (1.0 - mix) * P[(size_t)k * (size_t)V + (size_t)i] + mix * noise[i];
            for (int32_t i = 0; i < V; i++)
                Q[(size_t)k * (size_t)V + (size_t)i] =
                    mix == 0.0 ? P[(size_t)k * (size_t)V + (size_t)i]
                               : (float)(((1.0 - mix) * P[(size_t)k * (size_t)V + (size_t)i] +
                                          mix * noise[i]) / sum);
            const int32_t x = draw(Q + (size_t)k * (size_t)V, V);
            f->drafts[(size_t)b * (size_t)K + (size_t)k] = x;
            if (mix == 0.0 && k == b % K) /* q = p but q(x) = 2 p(x): rejected half the */
                Q[(size_t)k * (size_t)V + (size_t)x] *= 2.0f; /* time, an empty residual */
        }
    }
    free(noise);
}

/* A probability fixture (make_probs) and the twin's outputs on it, which
 * must reach every accepted count: the residual at every position, and the
 * bonus. */
static void probs_fixture(fixture *f, int32_t B, int32_t K, int32_t V, const char *twin)
{
    fixture_alloc(f, B, K, V);
    make_probs(f);
    f->bt.target = f->target;
    f->bt.draft = f->draft;
    CHECK(run_twin(f, twin) == SV_SAMPLER_OK);
    int32_t seen[SV_MAX_K + 1] = {0};
    count_accepted(f, seen);
    CHECK(every_count(seen, K));
}

/* cuda_fused's probability kernel, emulated, into emu_tokens / emu_accepted;
 * returns the bad-input flag. rng as for emu_batch; depth: rounds of rows in
 * flight (SV_FUSED_DEPTH). Launched early when pruned, the ordinary way when
 * not (the same tokens either way). */
static int run_fused_depth(fixture *f, int32_t splits, int prune, int depth, const uint64_t *rng)
{
    sv_batch bt = emu_batch(f, rng);
    void *winners = calloc((size_t)bt.B * (size_t)splits, sv_cuda_fused_winner_bytes());
    unsigned *arrivals = calloc((size_t)bt.B, sizeof *arrivals);
    int bad = 0;
    CHECK(launches_were(0, 0));
    CHECK(sv_cuda_fused_launch(&bt, &no_seqs, rng, splits, winners, arrivals, &bad, 0, prune, depth, prune) ==
          0);
    CHECK(launches_were(prune != 0, prune == 0));
    for (int32_t b = 0; b < bt.B; b++)
        CHECK(arrivals[b] == 0); /* re-armed for the next launch */
    free(winners);
    free(arrivals);
    return bad;
}

static int run_fused(fixture *f, int32_t splits, int prune, const uint64_t *rng)
{
    return run_fused_depth(f, splits, prune, 1, rng);
}

/* The emulated kernel against the twin's tokens at each of 3 splits, pruned
 * and not, at a depth. */
static void check_splits(fixture *f, const int32_t splits_list[3], int depth)
{
    for (int prune = 0; prune <= 1; prune++)
        for (size_t s = 0; s < 3; s++) {
            CHECK(run_fused_depth(f, splits_list[s], prune, depth, NULL) == 0);
            int32_t m = mismatches(f);
            if (m)
                fprintf(stderr, "  depth %d, splits %d, prune %d: %d of %d sequences differ\n",
                        depth, splits_list[s], prune, m, f->bt.B);
            CHECK(m == 0);
        }
}

/* cuda_naive's kernel, emulated, into emu_tokens / emu_accepted; returns
 * the bad-input flag. */
static int run_naive(fixture *f)
{
    sv_batch bt = emu_batch(f, NULL);
    int bad = 0;
    CHECK(sv_cuda_naive_launch(&bt, &no_seqs, &bad) == 0);
    return bad;
}

/* 1 if sequence b's outputs are the bad-input ones: -1 everywhere. */
static int all_minus_one(const fixture *f, int32_t b)
{
    int all = f->emu_accepted[b] == -1;
    for (int32_t k = 0; k <= f->bt.K; k++)
        all &= f->emu_tokens[(size_t)b * (size_t)(f->bt.K + 1) + (size_t)k] == -1;
    return all;
}

/* Sequence b's target rows all 0: its first draft (p = 0) is rejected, the
 * residual is empty, and so is p: no token can be drawn. */
static void zero_target(fixture *f, int32_t b)
{
    memset(f->target + (size_t)b * (size_t)f->bt.target_stride, 0,
           (size_t)f->bt.target_stride * sizeof(float));
}

static void test_probs(void)
{
    /* V odd: unaligned rows (scalar path) at odd positions, a tail of 3 */
    const int32_t B = 40, K = 3, V = 1027;
    fixture f;
    probs_fixture(&f, B, K, V, "ref_race");
    int32_t empty_residuals = 0; /* q = p sequences rejected: at their q(x) = 2 p(x) */
    for (int32_t b = 0; b < B; b += 4)
        empty_residuals += f.ref_accepted[b] < K;
    CHECK(empty_residuals > 0);
    const int32_t splits_list[] = {1, 3, 8};
    check_splits(&f, splits_list, 1);
    feature("cuda_fused (emulated) = ref_race, token for token: draft rows, 1/3/8 splits, pruned or not");
    const uint64_t rng[2] = {f.bt.seed, f.bt.first_index};
    CHECK(run_fused(&f, 3, 1, rng) == 0);
    CHECK(mismatches(&f) == 0);
    feature("cuda_fused (emulated) reads seed and first index from device memory, as graphs do");

    /* the one-hot drafter: no draft rows, q = e_x; p(x) = 1/2, so x is
     * rejected half the time and must then weigh nothing in the residual */
    for (int32_t b = 0; b < B; b++)
        for (int32_t k = 0; k < K; k++) {
            float *row = f.target + (size_t)b * (size_t)f.bt.target_stride + (size_t)k * (size_t)V;
            const int32_t x = f.drafts[(size_t)b * (size_t)K + (size_t)k];
            double rest = 0.0;
            for (int32_t i = 0; i < V; i++)
                rest += i == x ? 0.0 : row[i];
            for (int32_t i = 0; i < V; i++)
                row[i] = i == x ? 0.5f : (float)(0.5 * row[i] / rest);
        }
    f.bt.draft = NULL;
    CHECK(run_twin(&f, "ref_race") == SV_SAMPLER_OK);
    CHECK(run_fused(&f, 3, 1, NULL) == 0);
    CHECK(mismatches(&f) == 0);
    feature("cuda_fused (emulated) = ref_race with a one-hot drafter");

    /* a draft outside [0, V): that sequence writes -1 and raises the flag */
    f.bt.draft = f.draft;
    f.drafts[5 * K + 0] = V;
    CHECK(run_fused(&f, 3, 1, NULL) == 1);
    CHECK(all_minus_one(&f, 5));
    CHECK(f.emu_accepted[4] >= 0 && f.emu_accepted[6] >= 0);
    feature("cuda_fused (emulated): a draft outside [0, V) gives -1 and the bad flag");

    f.drafts[5 * K + 0] = 0;
    zero_target(&f, 7);
    CHECK(run_fused(&f, 3, 1, NULL) == 1);
    CHECK(all_minus_one(&f, 7));
    CHECK(f.emu_accepted[6] >= 0 && f.emu_accepted[8] >= 0);
    feature("cuda_fused (emulated): an all-zero target row gives -1 and the bad flag");
    fixture_free(&f);
}

/* SV_FUSED_DEPTH=2: two rounds of rows in flight. Slices of 2 to 6 rounds,
 * so that the ring of loads ahead fills, shifts and drains past the body. */
static void test_depth(void)
{
    const int32_t B = 12, K = 2, V = 6147;
    fixture f;
    probs_fixture(&f, B, K, V, "ref_race");
    const int32_t splits_list[] = {1, 2, 3};
    check_splits(&f, splits_list, 2);
    feature("cuda_fused (emulated), 2 rounds of rows in flight = ref_race: 1/2/3 splits, pruned or not");
    fixture_free(&f);

    /* V = 6148: every row 16-byte aligned, so all of it takes the float4
     * body, and slices end in a part-full round (one lane of 256 in the
     * whole row, in the first of 2 slices and in the first two of 3; 255
     * in the last of 3): the lanes past the body hold the rows of their
     * round before, which must weigh nothing. Its own LCG stream, so that
     * the tests after it draw what they drew before it was added. */
    const uint64_t lcg_after = lcg_state;
    lcg_state = 6148;
    probs_fixture(&f, 16, K, 6148, "ref_race");
    for (int depth = 1; depth <= 2; depth++)
        check_splits(&f, splits_list, depth);
    feature("cuda_fused (emulated) = ref_race on aligned rows whose last round is part-full");
    fixture_free(&f);
    lcg_state = lcg_after;

    /* SV_FUSED_SPLITS past V / 4: slices of 4 tokens, the last 3 blocks empty */
    probs_fixture(&f, 8, 1, 1027, "ref_race");
    for (int depth = 1; depth <= 2; depth++) {
        CHECK(run_fused_depth(&f, 260, 1, depth, NULL) == 0);
        CHECK(mismatches(&f) == 0);
    }
    feature("cuda_fused (emulated) = ref_race with 260 splits of a 1027-token row, 3 of them empty");
    fixture_free(&f);
}

/* cuda_naive: one thread per sequence, the straight loops of ref; B > 128
 * so that it takes two blocks, the second part-full. */
static void test_naive(void)
{
    const int32_t B = 150, K = 3, V = 1027;
    fixture f;
    probs_fixture(&f, B, K, V, "ref");
    CHECK(run_naive(&f) == 0);
    CHECK(mismatches(&f) == 0);
    feature("cuda_naive (emulated) = ref, token for token: draft rows, empty residuals, two blocks");

    f.bt.draft = NULL; /* the one-hot drafter: q = e_x */
    CHECK(run_twin(&f, "ref") == SV_SAMPLER_OK);
    CHECK(run_naive(&f) == 0);
    CHECK(mismatches(&f) == 0);
    feature("cuda_naive (emulated) = ref with a one-hot drafter");

    f.bt.draft = f.draft;
    f.drafts[5 * K + 1] = -3;
    zero_target(&f, 140);
    CHECK(run_naive(&f) == 1);
    CHECK(all_minus_one(&f, 5) && all_minus_one(&f, 140));
    CHECK(f.emu_accepted[4] >= 0 && f.emu_accepted[141] >= 0);
    feature("cuda_naive (emulated): a draft outside [0, V) or an all-zero row gives -1 and the bad flag");
    fixture_free(&f);
}

/* cuda_fused_shared_uniform, the broken variant, on B = 64 copies of one
 * sequence: the acceptance uniforms of each group of 32 are its first
 * sequence's, so the whole group accepts the same count, where ref_race
 * (the exact kernel's twin: a uniform per sequence) does not; the group's
 * first sequence is ref_race's. This is the mechanism; `mutants` shows the
 * harness catches it on a GPU. */
static void test_shared_uniform(void)
{
    const int32_t B = 64, K = 4, V = 1000;
    fixture f;
    fixture_alloc(&f, B, K, V);
    make_probs(&f);
    for (int32_t b = 0; b < B; b++) { /* sequence 1's rows (q mixed 0.2 from p) everywhere */
        if (b == 1)
            continue;
        memcpy(f.target + (size_t)b * (size_t)f.bt.target_stride,
               f.target + (size_t)f.bt.target_stride, (size_t)f.bt.target_stride * sizeof(float));
        memcpy(f.draft + (size_t)b * (size_t)f.bt.draft_stride,
               f.draft + (size_t)f.bt.draft_stride, (size_t)f.bt.draft_stride * sizeof(float));
        memcpy(f.drafts + (size_t)b * (size_t)K, f.drafts + (size_t)K, (size_t)K * sizeof(int32_t));
    }
    f.bt.target = f.target;
    f.bt.draft = f.draft;
    CHECK(run_twin(&f, "ref_race") == SV_SAMPLER_OK);

    sv_batch bt = emu_batch(&f, NULL);
    const int32_t splits = 2;
    void *winners = calloc((size_t)B * (size_t)splits, sv_cuda_fused_winner_bytes());
    unsigned *arrivals = calloc((size_t)B, sizeof *arrivals);
    int bad = 0;
    CHECK(sv_cuda_fused_launch(&bt, &no_seqs, NULL, splits, winners, arrivals, &bad, 1, 1, 1, 0) == 0);
    CHECK(launches_were(0, 1));
    CHECK(bad == 0);
    int32_t exact_differ = 0, broken_differ = 0;
    for (int32_t b = 0; b < B; b++) {
        exact_differ += f.ref_accepted[b] != f.ref_accepted[b - b % 32];
        broken_differ += f.emu_accepted[b] != f.emu_accepted[b - b % 32];
    }
    if (exact_differ == 0)
        fprintf(stderr, "  every exact sequence accepted %d: no contrast\n", f.ref_accepted[0]);
    CHECK(exact_differ > 0);
    CHECK(broken_differ == 0);
    for (int32_t b = 0; b < B; b += 32)
        for (int32_t k = 0; k <= K; k++)
            CHECK(f.emu_tokens[(size_t)b * (size_t)(K + 1) + (size_t)k] ==
                  f.ref_tokens[(size_t)b * (size_t)(K + 1) + (size_t)k]);
    feature("cuda_fused_shared_uniform (emulated): a group of 32 shares its accept decisions");
    free(winners);
    free(arrivals);
    fixture_free(&f);
}

int main(void)
{
    test_probs();
    test_depth();
    test_naive();
    test_shared_uniform();
    return check_exit();
}
