/* test_gpu.c: the CUDA samplers on a real GPU (label gpu).
 *
 * Without a usable CUDA device it prints why and exits 77, which CTest
 * reports as skipped (SKIP_RETURN_CODE), never as passed. With one, a
 * correct CUDA sampler and its CPU twin (the CPU sampler with the same
 * method and random numbers: ref for cuda_naive, ref_race for cuda_fused):
 *   - the CUDA sampler passes the ci suite (family-wise false-alarm rate 1e-6, seed 1);
 *   - differential: given the same seed and drafts, the two emit the same
 *     tokens; mismatches (rounding ties only) must stay at or below 1e-6 of
 *     the sequences;
 *   - edge inputs are handled as the twin handles them: p = 0 never accepted,
 *     an empty residual, greedy rows, a draft token outside [0, V) and an
 *     all-zero target row refused with EINVAL;
 *   - a sampler that takes logits (cuda_fused): given logits (float32 and
 *     bf16; temperature, top-k, top-p, greedy; one-hot and logits drafters;
 *     shared and per-sequence rows), it emits ref_race's tokens on the rows
 *     the CPU twin sv_logits_to_probs makes of the same logits (mismatch rate
 *     <= 1e-6), and refuses a draft token outside [0, V) and an unknown mode.
 * A broken CUDA sampler (--broken) must FAIL the ci suite, caught by the
 * independence check. */
#include <gsl/gsl_randist.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "sv_bf16.h"
#include "sv_philox.h"
#include "cuda_stage.h"
#include "suite_config.h"
#include "sv_base.h"
#include "sv_cases.h"
#include "sv_check.h"
#include "sv_registry.h"
#include "sv_run.h"
#include "sv_stats.h"

#define SKIP 77

/* ---- one batch through ref and through the CUDA sampler ---------------------- */

typedef struct pair_run {
    int32_t *drafts, *out_ref, *out_gpu, *acc_ref, *acc_gpu;
} pair_run;

/* Runs `draws` sequences of case `spec` through both; returns the number of
 * sequences whose tokens or counts differ, or -1 on an error. */
static long differential(const sv_sampler *gpu, const sv_sampler *ref, const char *spec,
                         uint64_t draws, int32_t B)
{
    char err[256];
    sv_case *c = NULL;
    sv_drafter *d = NULL;
    if (sv_case_from_spec(spec, &c, err, sizeof err) != 0 || sv_drafter_alloc(c, &d) != SV_OK) {
        fprintf(stderr, "  %s: %s\n", spec, err);
        return -1;
    }
    const int32_t K = c->K;
    pair_run r = {malloc((size_t)B * K * sizeof(int32_t)),
                  malloc((size_t)B * (K + 1) * sizeof(int32_t)),
                  malloc((size_t)B * (K + 1) * sizeof(int32_t)), malloc((size_t)B * sizeof(int32_t)),
                  malloc((size_t)B * sizeof(int32_t))};
    gsl_rng *philox = gsl_rng_alloc(sv_gsl_rng_philox);
    sv_limits limits = {.max_B = B, .max_K = K, .max_V = c->V};
    void *ref_state = NULL;
    sv_cuda_stage *stage = NULL;
    long mismatches = -1;
    if (ref->init(&ref_state, &limits) != SV_SAMPLER_OK ||
        sv_cuda_stage_init(gpu, &limits, NULL, 0, &stage, err, sizeof err) != SV_SAMPLER_OK) {
        fprintf(stderr, "  %s: init failed: %s\n", spec, err);
        goto done;
    }
    mismatches = 0;
    for (uint64_t first = 0; first < draws; first += (uint64_t)B) {
        for (int32_t b = 0; b < B; b++)
            sv_drafter_draw(d, philox, 99, first + (uint64_t)b, r.drafts + (size_t)b * K);
        sv_batch bt = {.B = B, .K = K, .V = c->V, .target = c->target,
                       .draft = c->draft_probs_given ? c->draft : NULL, .draft_tokens = r.drafts,
                       .seed = 99, .first_index = first, .out_tokens = r.out_ref,
                       .out_accepted = r.acc_ref};
        int rc_ref = ref->verify(ref_state, &bt);
        bt.out_tokens = r.out_gpu;
        bt.out_accepted = r.acc_gpu;
        int rc_gpu = sv_cuda_stage_verify(stage, &bt);
        if (rc_ref != SV_SAMPLER_OK || rc_gpu != SV_SAMPLER_OK) {
            fprintf(stderr, "  %s: status %s %d, %s %d\n", spec, ref->name, rc_ref, gpu->name,
                    rc_gpu);
            mismatches = -1;
            break;
        }
        for (int32_t b = 0; b < B; b++)
            mismatches += r.acc_ref[b] != r.acc_gpu[b] ||
                          memcmp(r.out_ref + (size_t)b * (K + 1), r.out_gpu + (size_t)b * (K + 1),
                                 (size_t)(K + 1) * sizeof(int32_t)) != 0;
    }
    printf("  %-24s %s vs %s: %ld of %llu sequences differ\n", spec, gpu->name, ref->name,
           mismatches, (unsigned long long)draws);
done:
    if (ref_state)
        ref->destroy(ref_state);
    sv_cuda_stage_free(stage);
    gsl_rng_free(philox);
    free(r.drafts), free(r.out_ref), free(r.out_gpu), free(r.acc_ref), free(r.acc_gpu);
    sv_drafter_free(d);
    sv_case_free(c);
    return mismatches;
}

/* ---- edge inputs: V = 4, K = 2, one batch, ref and the GPU sampler side by side */

enum { EV = 4, EK = 2, EB = 256 };

typedef struct edge {
    const char *what;
    float target[(EK + 1) * EV], draft[EK * EV];
    int32_t x[EK];
} edge;

/* Both samplers on B copies of the edge; 1 if their statuses and outputs agree. */
static int same_as_ref(const sv_sampler *gpu, const sv_sampler *ref, const edge *e, int *status)
{
    static int32_t drafts[EB * EK], out[2][EB * (EK + 1)], acc[2][EB];
    for (int32_t b = 0; b < EB; b++)
        memcpy(drafts + b * EK, e->x, sizeof e->x);
    sv_limits limits = {.max_B = EB, .max_K = EK, .max_V = EV};
    void *ref_state = NULL;
    sv_cuda_stage *stage = NULL;
    char err[256] = "";
    if (ref->init(&ref_state, &limits) != SV_SAMPLER_OK ||
        sv_cuda_stage_init(gpu, &limits, NULL, 0, &stage, err, sizeof err) != SV_SAMPLER_OK) {
        fprintf(stderr, "  %s: init failed: %s\n", e->what, err);
        return 0;
    }
    sv_batch bt = {.B = EB, .K = EK, .V = EV, .target = e->target, .draft = e->draft,
                   .draft_tokens = drafts, .seed = 5, .out_tokens = out[0],
                   .out_accepted = acc[0]};
    int rc_ref = ref->verify(ref_state, &bt);
    bt.out_tokens = out[1];
    bt.out_accepted = acc[1];
    int rc_gpu = sv_cuda_stage_verify(stage, &bt);
    ref->destroy(ref_state);
    sv_cuda_stage_free(stage);
    *status = rc_gpu;
    if (rc_ref != rc_gpu) {
        fprintf(stderr, "  %s: status %s %d, %s %d\n", e->what, ref->name, rc_ref, gpu->name,
                rc_gpu);
        return 0;
    }
    if (rc_ref != SV_SAMPLER_OK)
        return 1; /* both refused: outputs are not defined */
    int same = memcmp(out[0], out[1], sizeof out[0]) == 0 && memcmp(acc[0], acc[1], sizeof acc[0]) == 0;
    if (!same)
        fprintf(stderr, "  %s: outputs differ from %s\n", e->what, ref->name);
    return same;
}

static void edge_cases(const sv_sampler *gpu, const sv_sampler *ref)
{
    static const edge edges[] = {
        /* x_1 = 3 has p = 0 and q = 1/4: never accepted; residual then draws */
        {"p = 0 at the draft", {.5f, .5f, 0, 0, .25f, .25f, .25f, .25f, 1, 0, 0, 0},
         {.25f, .25f, .25f, .25f, .25f, .25f, .25f, .25f}, {3, 0}},
        /* p == q: every draft accepted, the bonus from p_3 */
        {"p = q (empty residual)", {.1f, .2f, .3f, .4f, .1f, .2f, .3f, .4f, 0, 0, 0, 1},
         {.1f, .2f, .3f, .4f, .1f, .2f, .3f, .4f}, {2, 3}},
        /* greedy target: one-hot rows */
        {"greedy target", {0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1},
         {.25f, .25f, .25f, .25f, .25f, .25f, .25f, .25f}, {1, 0}},
        {"draft token outside [0, V)", {.25f, .25f, .25f, .25f, .25f, .25f, .25f, .25f, 1, 0, 0, 0},
         {.25f, .25f, .25f, .25f, .25f, .25f, .25f, .25f}, {0, 4}},
        {"all-zero target row", {0, 0, 0, 0, .25f, .25f, .25f, .25f, 1, 0, 0, 0},
         {.25f, .25f, .25f, .25f, .25f, .25f, .25f, .25f}, {1, 2}},
    };
    const int expect[] = {SV_SAMPLER_OK, SV_SAMPLER_OK, SV_SAMPLER_OK, SV_SAMPLER_EINVAL,
                          SV_SAMPLER_EINVAL};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        int status = -1;
        CHECK(same_as_ref(gpu, ref, &edges[i], &status));
        CHECK(status == expect[i]);
    }
}

/* ---- logits input: the GPU on logits, ref_race on the twin's rows ----------------- */

typedef struct logits_case {
    const char *what;
    int32_t V, K;
    double T;
    int32_t top_k;
    double top_p;
    int input;          /* SV_INPUT_LOGITS_F32 or _BF16 */
    int draft_logits;   /* 1: the drafter has logits (q from them); 0: one-hot */
    int32_t sets;       /* 1: one row set, stride 0; else B = sets distinct row sets */
    uint64_t draws;
} logits_case;

/* The rows of one case: logits as the sampler gets them (float or bf16 bits),
 * and the twin's float rows p, q made of the same (rounded) values. */
typedef struct logits_rows {
    void *target_logits, *draft_logits; /* [sets][K+1][V], [sets][K][V] */
    float *p, *q;                       /* the twin's rows, same layout */
    double *cdf;                        /* [sets][K][V]: what drafts are drawn from */
} logits_rows;

static void logits_rows_free(logits_rows *r)
{
    free(r->target_logits), free(r->draft_logits), free(r->p), free(r->q), free(r->cdf);
}

/* Gaussian logits (sd 3) with exact ties (every 7th token repeats its
 * neighbour), zeros of both signs, rounded to the input's type; the twin's
 * rows from them. 0 on success. */
static int logits_rows_make(const logits_case *c, logits_rows *r)
{
    const size_t V = (size_t)c->V, K = (size_t)c->K, S = (size_t)c->sets;
    const size_t value = c->input == SV_INPUT_LOGITS_BF16 ? 2 : 4;
    memset(r, 0, sizeof *r);
    r->target_logits = malloc(S * (K + 1) * V * value);
    r->draft_logits = malloc(S * K * V * value);
    r->p = malloc(S * (K + 1) * V * sizeof(float));
    r->q = malloc(S * K * V * sizeof(float));
    r->cdf = malloc(S * K * V * sizeof(double));
    double *l = malloc(V * sizeof *l);
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    if (!r->target_logits || !r->draft_logits || !r->p || !r->q || !r->cdf || !l || !g) {
        free(l);
        gsl_rng_free(g);
        logits_rows_free(r);
        return -1;
    }
    gsl_rng_set(g, 4099);
    const sv_sampling rule = {c->T, c->top_k, c->top_p};
    int rc = 0;
    for (size_t s = 0; s < S && rc == 0; s++)
        for (size_t row = 0; row < 2 * K + 1 && rc == 0; row++) {
            const int is_target = row <= K;
            const size_t at = is_target ? (s * (K + 1) + row) * V : (s * K + row - K - 1) * V;
            for (size_t i = 0; i < V; i++) {
                float x = (float)gsl_ran_gaussian(g, 3.0);
                if (i % 7 == 6)
                    x = (float)l[i - 1]; /* an exact tie with the token before */
                if (i % 97 == 5)
                    x = (i % 2) ? -0.0f : 0.0f;
                if (c->input == SV_INPUT_LOGITS_BF16) {
                    uint16_t b = sv_bf16_from_float(x);
                    ((uint16_t *)(is_target ? r->target_logits : r->draft_logits))[at + i] = b;
                    l[i] = sv_bf16_to_float(b);
                } else {
                    ((float *)(is_target ? r->target_logits : r->draft_logits))[at + i] = x;
                    l[i] = x;
                }
            }
            rc = sv_logits_to_probs(l, c->V, &rule, (is_target ? r->p : r->q) + at);
        }
    /* drafts: from q_k, or for a one-hot drafter from p_k */
    for (size_t s = 0; s < S; s++)
        for (size_t k = 0; k < K; k++) {
            const float *row = c->draft_logits ? r->q + (s * K + k) * V : r->p + (s * (K + 1) + k) * V;
            double *cdf = r->cdf + (s * K + k) * V, acc = 0.0;
            for (size_t i = 0; i < V; i++)
                cdf[i] = acc += row[i];
        }
    free(l);
    gsl_rng_free(g);
    if (rc != 0)
        logits_rows_free(r);
    return rc;
}

/* Draft k of sequence `index` from row set s: mostly from the cdf, one in 8
 * uniform over V (tokens that top-k or top-p cut: p = 0 there). */
static int32_t draw_draft(const logits_case *c, const logits_rows *r, size_t s, int32_t k,
                          uint64_t index)
{
    const double u = sv_philox_uniform(7, index, (uint32_t)k, SV_PURPOSE_DRAFT, 0);
    const double v = sv_philox_uniform(7, index, (uint32_t)k, SV_PURPOSE_DRAFT, 1);
    if (v < 0.125)
        return (int32_t)(u * c->V);
    const double *cdf = r->cdf + (s * (size_t)c->K + (size_t)k) * (size_t)c->V;
    const double want = u * cdf[c->V - 1];
    int32_t lo = 0, hi = c->V - 1; /* the first i with cdf[i] > want */
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (cdf[mid] > want)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* Runs a case through both; the number of differing sequences, or -1. */
static long logits_differential(const sv_sampler *gpu, const sv_sampler *ref,
                                const logits_case *c)
{
    logits_rows rows;
    if (logits_rows_make(c, &rows) != 0) {
        fprintf(stderr, "  %s: no memory for the rows, or the twin failed\n", c->what);
        return -1;
    }
    const int32_t K = c->K, V = c->V, B = c->sets > 1 ? c->sets : 8192;
    int32_t *drafts = malloc((size_t)B * K * sizeof(int32_t));
    int32_t *out[2] = {malloc((size_t)B * (K + 1) * sizeof(int32_t)),
                       malloc((size_t)B * (K + 1) * sizeof(int32_t))};
    int32_t *acc[2] = {malloc((size_t)B * sizeof(int32_t)), malloc((size_t)B * sizeof(int32_t))};
    sv_limits limits = {.max_B = B, .max_K = K, .max_V = V};
    void *ref_state = NULL;
    sv_cuda_stage *stage = NULL;
    char err[256] = "";
    long mismatches = -1;
    double accepted = 0.0;
    if (!drafts || !out[0] || !out[1] || !acc[0] || !acc[1]) {
        fprintf(stderr, "  %s: out of memory\n", c->what);
        goto done;
    }
    if (ref->init(&ref_state, &limits) != SV_SAMPLER_OK ||
        sv_cuda_stage_init(gpu, &limits, NULL, 0, &stage, err, sizeof err) != SV_SAMPLER_OK) {
        fprintf(stderr, "  %s: init failed: %s\n", c->what, err);
        goto done;
    }
    const int64_t tstride = c->sets > 1 ? (int64_t)(K + 1) * V : 0;
    const int64_t dstride = c->sets > 1 ? (int64_t)K * V : 0;
    mismatches = 0;
    for (uint64_t first = 0; first < c->draws; first += (uint64_t)B) {
        for (int32_t b = 0; b < B; b++)
            for (int32_t k = 0; k < K; k++)
                drafts[(size_t)b * K + k] =
                    draw_draft(c, &rows, c->sets > 1 ? (size_t)b : 0, k, first + (uint64_t)b);
        sv_batch host = {.B = B, .K = K, .V = V, .target = rows.p, .target_stride = tstride,
                         .draft = c->draft_logits ? rows.q : NULL, .draft_stride = dstride,
                         .draft_tokens = drafts, .seed = 2026, .first_index = first,
                         .out_tokens = out[0], .out_accepted = acc[0]};
        int rc_ref = ref->verify(ref_state, &host);
        sv_batch dev = host;
        dev.target = dev.draft = NULL;
        dev.input = c->input;
        dev.target_logits = rows.target_logits;
        dev.draft_logits = c->draft_logits ? rows.draft_logits : NULL;
        dev.temperature = c->T;
        dev.top_k = c->top_k;
        dev.top_p = c->top_p;
        dev.out_tokens = out[1];
        dev.out_accepted = acc[1];
        int rc_gpu = sv_cuda_stage_verify(stage, &dev);
        if (rc_ref != SV_SAMPLER_OK || rc_gpu != SV_SAMPLER_OK) {
            fprintf(stderr, "  %s: status %s %d, %s %d\n", c->what, ref->name, rc_ref,
                    gpu->name, rc_gpu);
            mismatches = -1;
            break;
        }
        for (int32_t b = 0; b < B; b++) {
            accepted += acc[0][b];
            mismatches += acc[0][b] != acc[1][b] ||
                          memcmp(out[0] + (size_t)b * (K + 1), out[1] + (size_t)b * (K + 1),
                                 (size_t)(K + 1) * sizeof(int32_t)) != 0;
        }
    }
    if (mismatches >= 0)
        printf("  %-44s %ld of %llu sequences differ (mean accepted %.2f of %d)\n", c->what,
               mismatches, (unsigned long long)c->draws, accepted / (double)c->draws, K);
done:
    if (ref_state)
        ref->destroy(ref_state);
    sv_cuda_stage_free(stage);
    free(drafts), free(out[0]), free(out[1]), free(acc[0]), free(acc[1]);
    logits_rows_free(&rows);
    return mismatches;
}

/* One batch of a small case in a logits mode with one draft token changed
 * (to V) or the mode itself changed: the status the GPU sampler returns. */
static int logits_edge_status(const sv_sampler *gpu, int input, int32_t bad_token)
{
    enum { LV = 64, LK = 2, LB = 32 };
    static float logits[(LK + 1) * LV];
    static int32_t drafts[LB * LK], out[LB * (LK + 1)], acc[LB];
    for (int i = 0; i < (LK + 1) * LV; i++)
        logits[i] = (float)(i % 13) * 0.25f;
    for (int i = 0; i < LB * LK; i++)
        drafts[i] = i % LV;
    drafts[LB * LK - 1] = bad_token;
    sv_limits limits = {.max_B = LB, .max_K = LK, .max_V = LV};
    sv_cuda_stage *stage = NULL;
    char err[256] = "";
    if (sv_cuda_stage_init(gpu, &limits, NULL, 0, &stage, err, sizeof err) != SV_SAMPLER_OK) {
        fprintf(stderr, "  logits edge: init failed: %s\n", err);
        return -1;
    }
    sv_batch bt = {.B = LB, .K = LK, .V = LV, .draft_tokens = drafts, .seed = 5,
                   .out_tokens = out, .out_accepted = acc, .input = input,
                   .target_logits = logits, .temperature = 1.0, .top_p = 1.0};
    int rc = sv_cuda_stage_verify(stage, &bt);
    sv_cuda_stage_free(stage);
    return rc;
}

static void test_logits(const sv_sampler *gpu)
{
    const sv_sampler *ref = sv_registry_find("ref_race");
    CHECK(ref != NULL);
    if (!ref)
        return;
    enum { F32 = SV_INPUT_LOGITS_F32, BF16 = SV_INPUT_LOGITS_BF16 };
    static const logits_case cases[] = {
        {"f32 V=1000 T=1, one-hot, shared rows", 1000, 4, 1.0, 0, 1.0, F32, 0, 1, 1u << 17},
        {"f32 V=4099 T=0.7 top-k 50, one-hot, own rows", 4099, 4, 0.7, 50, 1.0, F32, 0, 32,
         1u << 17},
        {"f32 V=4099 T=1 top-p 0.9, drafter logits", 4099, 4, 1.0, 0, 0.9, F32, 1, 1, 1u << 17},
        {"f32 V=1000 T=0 (greedy), drafter logits", 1000, 4, 0.0, 50, 0.9, F32, 1, 1, 1u << 17},
        {"bf16 V=1000 T=0.7 top-k 50 top-p 0.9, drafter", 1000, 4, 0.7, 50, 0.9, BF16, 1, 1,
         1u << 17},
        {"bf16 V=4099 T=1, one-hot, own rows", 4099, 4, 1.0, 0, 1.0, BF16, 0, 16, 1u << 17},
        {"bf16 V=4099 T=0 (greedy), one-hot", 4099, 4, 0.0, 0, 1.0, BF16, 0, 1, 1u << 17},
    };
    uint64_t total = 0;
    long total_mismatch = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        long m = logits_differential(gpu, ref, &cases[i]);
        CHECK(m >= 0);
        total += cases[i].draws;
        total_mismatch += m > 0 ? m : 0;
    }
    printf("  logits mismatch rate %.3g (%ld of %llu sequences)\n",
           (double)total_mismatch / (double)total, total_mismatch, (unsigned long long)total);
    CHECK((double)total_mismatch <= 1e-6 * (double)total);
    feature("logits input: same tokens as ref_race on the twin's rows (mismatch rate <= 1e-6)");

    CHECK(logits_edge_status(gpu, SV_INPUT_LOGITS_F32, 3) == SV_SAMPLER_OK);
    CHECK(logits_edge_status(gpu, SV_INPUT_LOGITS_F32, 64) == SV_SAMPLER_EINVAL);
    CHECK(logits_edge_status(gpu, SV_INPUT_LOGITS_F32, -1) == SV_SAMPLER_EINVAL);
    CHECK(logits_edge_status(gpu, 3, 3) == SV_SAMPLER_EINVAL); /* no such mode */
    feature("logits input: a draft token outside [0, V) and an unknown mode refused (EINVAL)");
}

/* A correct CUDA sampler: the ci suite (isolated, before this process
 * touches CUDA), the differential test and the edges (in this process). */
static void test_correct(const sv_sampler *gpu, const sv_sampler *ref)
{
    suite_config s;
    sv_report *r = NULL;
    suite_config_init(&s, "ci", gpu, 0);
    s.cfg.batch = 65536;
    s.cfg.threads = 4;
    CHECK(sv_verify(&s.cfg, &r) == SV_OK);
    CHECK(r && r->n_cases == s.cfg.n_cases && r->passed == r->n_cases);
    sv_report_free(r);
    feature("passes the ci suite (family-wise false-alarm rate 1e-6, seed 1)");

    /* at most 1e-6 of the sequences may differ: none here, with fewer than
     * 1e6 sequences in all. Sizes keep the CPU side (a log per token for
     * ref_race) to seconds. */
    /* B = 0: min(draws, 2^16). The small batches split each row across many
     * blocks (cuda_fused's per-block winners and their combination). */
    static const struct { const char *spec; uint64_t draws; int32_t B; } diff[] = {
        {"seedlab:V=1000,K=5", 1u << 18, 0}, {"onehot:V=1000,K=5", 1u << 17, 0},
        {"greedy:V=1000,K=5", 1u << 17, 0},  {"disjoint:V=1000,K=3", 1u << 16, 0},
        {"tail:V=32000,K=3", 1u << 14, 0},   {"logits:V=128256,K=2", 1u << 12, 0},
        {"tail:V=32000,K=3", 1u << 12, 16},  {"logits:V=128256,K=2", 1u << 9, 1},
        {"logits:V=151936,K=4,T=0.7", 1u << 9, 4}};
    uint64_t total = 0;
    long total_mismatch = 0;
    for (size_t i = 0; i < sizeof diff / sizeof diff[0]; i++) {
        int32_t B = diff[i].B ? diff[i].B
                  : diff[i].draws < (1u << 16) ? (int32_t)diff[i].draws : 1 << 16;
        long m = differential(gpu, ref, diff[i].spec, diff[i].draws, B);
        CHECK(m >= 0);
        total += diff[i].draws;
        total_mismatch += m > 0 ? m : 0;
    }
    printf("  mismatch rate %.3g (%ld of %llu sequences)\n", (double)total_mismatch / (double)total,
           total_mismatch, (unsigned long long)total);
    CHECK((double)total_mismatch <= 1e-6 * (double)total);
    feature("differential: same tokens as the CPU twin for the same seed (mismatch rate <= 1e-6)");

    edge_cases(gpu, ref);
    feature("edge inputs handled as the CPU twin handles them");

    if (gpu->inputs & (SV_INPUT_BIT(SV_INPUT_LOGITS_F32) | SV_INPUT_BIT(SV_INPUT_LOGITS_BF16)))
        test_logits(gpu);
}

/* A broken CUDA sampler: FAIL on the ci suite's fixed-row cases, and the
 * independence check among the checks that fail. */
static void test_broken(const sv_sampler *gpu)
{
    suite_config s;
    sv_report *r = NULL;
    suite_config_init(&s, "ci", gpu, 1);
    s.cfg.batch = 65536;
    s.cfg.threads = 4;
    s.cfg.rerun_suspects = 0;
    CHECK(sv_verify(&s.cfg, &r) == SV_OK);
    int independence = 0;
    for (size_t i = 0; r && i < r->n_cases; i++) {
        const sv_run_eval *ev = &r->cases[i].runs[r->cases[i].n_runs - 1];
        independence |= ev->indep_seq_verdict == SV_FAIL || ev->indep_pos_verdict == SV_FAIL;
    }
    CHECK(r && r->failed > 0);
    CHECK(independence);
    printf("  %zu of %zu cases failed; independence check %s\n", r ? r->failed : 0,
           r ? r->n_cases : 0, independence ? "failed" : "passed");
    sv_report_free(r);
    feature("broken GPU variant FAILs the ci suite, caught by the independence check");
}

/* argv: SAMPLER [REFERENCE | --broken]: test SAMPLER against its CPU twin
 * REFERENCE, or expect it to be caught; or --has-device: exit 0 if there is
 * a CUDA device, 77 with the reason if not. */
int main(int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : "cuda_naive";
    const char *twin = argc > 2 ? argv[2] : "ref";
    char why[256] = "";
    /* asked in a child: the ci suite runs the sampler isolated, in a child
     * that must be the first to touch CUDA */
    if (sv_cuda_device_count_isolated(why, sizeof why) == 0) {
        printf("SKIPPED: %s needs a CUDA device: %s\n",
               strcmp(name, "--has-device") == 0 ? "this test" : name, why);
        return SKIP;
    }
    if (strcmp(name, "--has-device") == 0) /* for the scripted gpu tests */
        return 0;
    const sv_sampler *gpu = sv_registry_find(name);
    if (!gpu || gpu->memspace != SV_MEM_CUDA) {
        fprintf(stderr, "test_gpu: no CUDA sampler named %s\n", name);
        return 2;
    }
    if (strcmp(twin, "--broken") == 0) {
        test_broken(gpu);
    } else {
        const sv_sampler *ref = sv_registry_find(twin);
        if (!ref || ref->memspace != SV_MEM_HOST) {
            fprintf(stderr, "test_gpu: no host sampler named %s\n", twin);
            return 2;
        }
        test_correct(gpu, ref);
    }
    return check_exit();
}
