/* test_emu_kernels.c: the CUDA kernels, from their own sources, run on the
 * CPU by tests/emu (coroutines for GPU threads), against their CPU twins
 * through the sampler contract: ref for cuda_naive, ref_race for
 * cuda_fused's probability kernel, ref_logits for its logits kernels. With
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
 * broken variant's shared uniforms, and the logits kernels' statistics
 * (rows split over blocks too), top-k and top-p cuts. Each launcher's
 * `early` must reach every launch it makes (kernels/sv_early_launch.cuh):
 * the emulator counts early and ordinary launches. Deterministic. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "cuda_runtime_api.h" /* tests/emu's: sv_emu_launches */
#include "sv_bf16.h"
#include "sv_cuda_kernels.h"
#include "sv_softmax.h"
#include "sv_registry.h"

static uint64_t lcg_state = 0x2545f4914f6cdd1du;

static uint32_t lcg32(void)
{
    lcg_state = lcg_state * 6364136223846793005u + 1442695040888963407u;
    return (uint32_t)(lcg_state >> 32);
}

static double lcg_unit(void)
{
    return ((double)lcg32() + 0.5) / 4294967296.0;
}

/* One batch and both samplers' outputs. */
typedef struct fixture {
    sv_batch bt;
    float *target, *draft;
    float *target_logits, *draft_logits; /* logits modes: float, or bf16 bits below */
    uint16_t *target_bf16, *draft_bf16;
    int32_t *drafts;
    int32_t *ref_tokens, *ref_accepted, *emu_tokens, *emu_accepted;
} fixture;

static void fixture_alloc(fixture *f, int32_t B, int32_t K, int32_t V)
{
    memset(f, 0, sizeof *f);
    const size_t nt = (size_t)B * (size_t)(K + 1) * (size_t)V, nd = (size_t)B * (size_t)K * (size_t)V;
    f->target = calloc(nt, sizeof(float));
    f->draft = calloc(nd, sizeof(float));
    f->target_logits = calloc(nt, sizeof(float));
    f->draft_logits = calloc(nd, sizeof(float));
    f->target_bf16 = calloc(nt, sizeof(uint16_t));
    f->draft_bf16 = calloc(nd, sizeof(uint16_t));
    f->drafts = calloc((size_t)B * (size_t)K, sizeof(int32_t));
    f->ref_tokens = calloc((size_t)B * (size_t)(K + 1), sizeof(int32_t));
    f->emu_tokens = calloc((size_t)B * (size_t)(K + 1), sizeof(int32_t));
    f->ref_accepted = calloc((size_t)B, sizeof(int32_t));
    f->emu_accepted = calloc((size_t)B, sizeof(int32_t));
    f->bt.B = B, f->bt.K = K, f->bt.V = V;
    f->bt.target_stride = (int64_t)(K + 1) * V;
    f->bt.draft_stride = (int64_t)K * V;
    f->bt.draft_tokens = f->drafts;
    f->bt.seed = 20261123;
    f->bt.first_index = 1000;
}

static void fixture_free(fixture *f)
{
    free(f->target), free(f->draft), free(f->target_logits), free(f->draft_logits);
    free(f->target_bf16), free(f->draft_bf16), free(f->drafts);
    free(f->ref_tokens), free(f->emu_tokens), free(f->ref_accepted), free(f->emu_accepted);
}

/* A probability row: random weights, about one token in ten at 0. */
static void random_row(float *row, int32_t V)
{
    double sum = 0.0;
    for (int32_t i = 0; i < V; i++) {
        double w = lcg32() % 10u == 0 ? 0.0 : lcg_unit() * lcg_unit();
        row[i] = (float)w;
        sum += w;
    }
    for (int32_t i = 0; i < V; i++)
        row[i] = (float)(row[i] / sum);
}

/* A token drawn from row (inverse CDF); from 0 .. V-1 uniformly if it sums to 0. */
static int32_t draw(const float *row, int32_t V)
{
    double u = lcg_unit(), acc = 0.0;
    for (int32_t i = 0; i < V; i++) {
        acc += row[i];
        if (u < acc)
            return i;
    }
    return (int32_t)(lcg32() % (uint32_t)V);
}

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

/* The twin through the sampler contract, into ref_tokens / ref_accepted. */
static int run_twin(fixture *f, const char *name)
{
    const sv_sampler *s = sv_registry_find(name);
    void *state = NULL;
    sv_limits lim = {f->bt.B, f->bt.K, f->bt.V};
    sv_batch bt = f->bt;
    bt.out_tokens = f->ref_tokens;
    bt.out_accepted = f->ref_accepted;
    int rc = s->init(&state, &lim);
    if (rc == SV_SAMPLER_OK)
        rc = s->verify(state, &bt);
    s->destroy(state);
    return rc;
}

/* Sequences whose accepted count or any token differ. */
static int32_t mismatches(const fixture *f)
{
    int32_t bad = 0;
    for (int32_t b = 0; b < f->bt.B; b++) {
        int differ = f->ref_accepted[b] != f->emu_accepted[b];
        for (int32_t k = 0; k <= f->bt.K; k++)
            differ |= f->ref_tokens[(size_t)b * (size_t)(f->bt.K + 1) + (size_t)k] !=
                      f->emu_tokens[(size_t)b * (size_t)(f->bt.K + 1) + (size_t)k];
        bad += differ;
    }
    return bad;
}

/* Counts the twin's accepted counts into seen[0 .. K]. */
static void count_accepted(const fixture *f, int32_t *seen)
{
    for (int32_t b = 0; b < f->bt.B; b++)
        if (f->ref_accepted[b] >= 0 && f->ref_accepted[b] <= f->bt.K)
            seen[f->ref_accepted[b]]++;
}

/* 1 if every accepted count 0 .. K was seen. */
static int every_count(const int32_t *seen, int32_t K)
{
    int all = 1;
    for (int32_t n = 0; n <= K; n++)
        all &= seen[n] > 0;
    if (!all)
        for (int32_t n = 0; n <= K; n++)
            fprintf(stderr, "  %d sequences accepted %d drafts\n", seen[n], n);
    return all;
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

/* f's batch with the emulated kernel's outputs; with rng (a graph's
 * {seed, first index} in device memory) given, bt's own seed and first
 * index are made wrong, so that only rng can give the twin's tokens. */
static sv_batch emu_batch(const fixture *f, const uint64_t *rng)
{
    sv_batch bt = f->bt;
    bt.out_tokens = f->emu_tokens;
    bt.out_accepted = f->emu_accepted;
    if (rng)
        bt.seed = ~rng[0], bt.first_index = rng[1] + 12345;
    return bt;
}

/* Checks that the launches since the last call were `early` early ones
 * and `ordinary` ordinary ones. */
static void check_launches(long early, long ordinary)
{
    static long early_before, ordinary_before;
    const long e = sv_emu_launches(1) - early_before, o = sv_emu_launches(0) - ordinary_before;
    if (e != early || o != ordinary)
        fprintf(stderr, "  launches: %ld early and %ld ordinary, not %ld and %ld\n", e, o, early,
                ordinary);
    CHECK(e == early && o == ordinary);
    early_before += e, ordinary_before += o;
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
    check_launches(0, 0);
    CHECK(sv_cuda_fused_launch(&bt, rng, splits, winners, arrivals, &bad, 0, prune, depth, prune) ==
          0);
    check_launches(prune != 0, prune == 0);
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
    CHECK(sv_cuda_naive_launch(&bt, &bad) == 0);
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
    CHECK(sv_cuda_fused_launch(&bt, NULL, splits, winners, arrivals, &bad, 1, 1, 1, 0) == 0);
    check_launches(0, 1);
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
            check_launches(0, 0);
            CHECK(sv_cuda_fused_logits_launch(&bt, rng_or_null, &ws, &bad, 1, early) == 0);
            check_launches(early ? kernels : 0, early ? 0 : kernels);
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
    test_probs();
    test_depth();
    test_naive();
    test_shared_uniform();
    test_logits();
    return check_exit();
}
