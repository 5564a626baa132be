/* test_gpu_steps.c: a CUDA sampler's steps back to back on a GPU (label gpu).
 *
 * verify waits for every batch; a decode loop does not. Here STEPS steps are
 * enqueued on one stream with no wait between them, as `bench` and CUDA
 * graphs run them: each step reads its seed and first index from device
 * memory and writes outputs of its own, and every step shares the sampler's
 * workspace (per-sequence arrival counters, per-block winners, row stats).
 * cuda_fused launches its kernels early (kernels/sv_early_launch.cuh), so
 * that a step's blocks may be scheduled while the step before still runs; a
 * kernel that read its inputs or the shared counters before that step had
 * finished would emit other tokens. Every step's tokens must be the CPU
 * twin's (ref_race for cuda_fused, ref for cuda_naive) for the step's first
 * index. On compute capability 9.0 or later, cuda_fused's kernels must
 * also be able to launch early (this build's code has the wait), or none of
 * this would test it:
 *   - probability input at B = 1 (one row of V = 32000 split over a wave of
 *     blocks) and B = 64, enqueued back to back, then captured in a graph
 *     that is replayed twice (the counters re-armed across replays);
 *   - for a sampler that takes logits, logits-f32 input with top-k (three
 *     kernels a step: stats, cut, verify), the same, against the twin on
 *     the rows the CPU makes of the same logits.
 * The twin and the kernels may differ on rounding ties only (test_gpu
 * bounds that at 1e-6 of the sequences, and found none in 615424); with
 * 2 x 8 x (1 + 64) = 1040 sequences an input mode here (back to back, then
 * in the graph), none may differ. Without a GPU it prints why and exits 77
 * (skipped). argv: SAMPLER TWIN, a built-in CUDA sampler and its CPU twin.
 *
 * Built with SV_STEPS_EMULATED (test_emu_steps), the same test runs the
 * samplers' host sides and kernels on tests/emu, which runs launches in
 * order and records them in graphs: there it checks the test itself, the
 * twin's rows and the steps' plumbing (each step's seed and first index,
 * nothing but launches in a capture), on every machine, with 3 steps, B = 16
 * for 64 and V = 9001 for 32000. */
#include <cuda_runtime_api.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "cuda_stage.h"
#include "sv_cuda_enqueue.h"
#include "sv_cuda_kernels.h"
#include "sv_philox.h"
#include "sv_registry.h"
#include "sv_base.h"
#include "sv_cases.h"
#include "sv_run.h"

#define SKIP 77
#define SEED 4242u
#ifdef SV_STEPS_EMULATED /* tests/emu runs a GPU thread as a coroutine: fewer and smaller steps */
#define STEPS 3
#define SMALL_B 16
#define LONG_ROWS "tail:V=9001,K=3"
#else
#define STEPS 8
#define SMALL_B 64
#define LONG_ROWS "tail:V=32000,K=3"
#endif

/* One kind of step: a case's rows (as probabilities, or their logs as
 * float32 logits) and a batch size. */
typedef struct kind {
    const char *spec;
    int32_t B;
    int logits;       /* 0: probs; 1: logits-f32 with T and top_k below */
    double T;
    int32_t top_k;
} kind;

/* Host and device copies of every step's inputs and outputs. */
typedef struct steps {
    int32_t B, K, V;
    float *p, *q;                /* the twin's rows: [K+1][V], [K][V] (q NULL: one-hot) */
    int32_t *drafts;             /* [STEPS][B][K] */
    int32_t *out, *acc;          /* the GPU's, copied back: [STEPS][B][K+1], [STEPS][B] */
    void *d_target, *d_draft;    /* the sampler's rows (probs or logits), shared by all */
    int32_t *d_drafts, *d_out, *d_acc;
    uint64_t *d_rng;             /* [STEPS][2]: seed and first index of each step */
    cudaStream_t stream;         /* every copy, memset and step, in order */
} steps;

static uint64_t first_of(const steps *s, int step)
{
    return 1000003u + (uint64_t)step * (uint64_t)s->B;
}

/* The rows as the sampler gets them: the case's probabilities, or their
 * logs; the twin's rows: the case's, or those the CPU makes of the logs by
 * the kind's rule. 0, or -1. */
static int make_rows(const kind *k, const sv_case *c, steps *s, float **given_target,
                     float **given_draft)
{
    const size_t V = (size_t)c->V, K = (size_t)c->K;
    const int has_q = c->draft_probs_given;
    s->p = malloc((K + 1) * V * sizeof(float));
    s->q = has_q ? malloc(K * V * sizeof(float)) : NULL;
    *given_target = malloc((K + 1) * V * sizeof(float));
    *given_draft = has_q ? malloc(K * V * sizeof(float)) : NULL;
    double *l = malloc(V * sizeof *l);
    if (!s->p || (has_q && (!s->q || !*given_draft)) || !*given_target || !l) {
        free(l);
        return -1;
    }
    const sv_sampling rule = {k->T, k->top_k, 1.0};
    for (size_t row = 0; row < 2 * K + 1; row++) {
        const int is_target = row <= K;
        if (!is_target && !has_q)
            break;
        const size_t at = (is_target ? row : row - K - 1) * V;
        const float *from = (is_target ? c->target : c->draft) + at;
        float *given = (is_target ? *given_target : *given_draft) + at;
        float *twin = (is_target ? s->p : s->q) + at;
        if (!k->logits) {
            memcpy(given, from, V * sizeof(float));
            memcpy(twin, from, V * sizeof(float));
            continue;
        }
        for (size_t i = 0; i < V; i++) {
            given[i] = logf(from[i]); /* p = 0: -inf, weight 0 */
            l[i] = given[i];
        }
        if (sv_logits_to_probs(l, c->V, &rule, twin) != 0) {
            free(l);
            return -1;
        }
    }
    free(l);
    return 0;
}

/* Enqueues the STEPS steps on s->stream, no wait between them. */
static int enqueue_all(const kind *k, steps *s, sv_cuda_enqueue_fn enqueue, void *state)
{
    for (int step = 0; step < STEPS; step++) {
        const size_t seq = (size_t)step * (size_t)s->B;
        sv_batch bt = {.B = s->B, .K = s->K, .V = s->V,
                       .draft_tokens = s->d_drafts + seq * (size_t)s->K,
                       .out_tokens = s->d_out + seq * (size_t)(s->K + 1),
                       .out_accepted = s->d_acc + seq, .stream = s->stream,
                       /* also in rng, for the samplers that read it there */
                       .seed = SEED, .first_index = first_of(s, step)};
        if (k->logits) {
            bt.input = SV_INPUT_LOGITS_F32;
            bt.target_logits = s->d_target;
            bt.draft_logits = s->d_draft;
            bt.temperature = k->T;
            bt.top_k = k->top_k;
            bt.top_p = 1.0;
        } else {
            bt.target = s->d_target;
            bt.draft = s->d_draft;
        }
        int rc = enqueue(state, &bt, s->d_rng + 2 * step);
        if (rc != SV_SAMPLER_OK) {
            fprintf(stderr, "  step %d: enqueue returned %d\n", step, rc);
            return -1;
        }
    }
    return 0;
}

/* The GPU's outputs against ref_race's, step by step; differing sequences,
 * or -1. `how` names the run in messages. */
static long compare(const steps *s, const sv_sampler *ref, void *ref_state, const char *how)
{
    const size_t n = (size_t)STEPS * (size_t)s->B;
    if (cudaMemcpyAsync(s->out, s->d_out, n * (size_t)(s->K + 1) * sizeof(int32_t),
                        cudaMemcpyDeviceToHost, s->stream) != cudaSuccess ||
        cudaMemcpyAsync(s->acc, s->d_acc, n * sizeof(int32_t), cudaMemcpyDeviceToHost,
                        s->stream) != cudaSuccess ||
        cudaStreamSynchronize(s->stream) != cudaSuccess) {
        fprintf(stderr, "  %s: copying the outputs back failed\n", how);
        return -1;
    }
    int32_t *y = malloc((size_t)s->B * (size_t)(s->K + 1) * sizeof *y);
    int32_t *a = malloc((size_t)s->B * sizeof *a);
    long differ = y && a ? 0 : -1;
    for (int step = 0; step < STEPS && differ >= 0; step++) {
        const size_t seq = (size_t)step * (size_t)s->B;
        sv_batch bt = {.B = s->B, .K = s->K, .V = s->V, .target = s->p, .draft = s->q,
                       .draft_tokens = s->drafts + seq * (size_t)s->K, .seed = SEED,
                       .first_index = first_of(s, step), .out_tokens = y, .out_accepted = a};
        if (ref->verify(ref_state, &bt) != SV_SAMPLER_OK) {
            differ = -1;
            break;
        }
        long here = 0;
        for (int32_t b = 0; b < s->B; b++)
            here += a[b] != s->acc[seq + (size_t)b] ||
                    memcmp(y + (size_t)b * (size_t)(s->K + 1),
                           s->out + (seq + (size_t)b) * (size_t)(s->K + 1),
                           (size_t)(s->K + 1) * sizeof *y) != 0;
        if (here)
            fprintf(stderr, "  %s, step %d: %ld of %d sequences differ from %s\n", how, step,
                    here, s->B, ref->name);
        differ += here;
    }
    free(y);
    free(a);
    return differ;
}

/* One kind back to back, then in a graph replayed twice: the sequences
 * that differ from ref_race over both, or -1 on an error. */
static long run_kind(const sv_sampler *gpu, sv_cuda_enqueue_fn enqueue, const sv_sampler *ref,
                     const kind *k)
{
    char err[256] = "";
    sv_case *c = NULL;
    sv_drafter *d = NULL;
    if (sv_case_from_spec(k->spec, &c, err, sizeof err) != 0 || sv_drafter_alloc(c, &d) != SV_OK) {
        fprintf(stderr, "  %s: %s\n", k->spec, err);
        sv_case_free(c);
        return -1;
    }
    steps s = {.B = k->B, .K = c->K, .V = c->V};
    const size_t n = (size_t)STEPS * (size_t)s.B, V = (size_t)s.V, K = (size_t)s.K;
    float *given_target = NULL, *given_draft = NULL;
    void *state = NULL, *ref_state = NULL;
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    gsl_rng *philox = gsl_rng_alloc(sv_gsl_rng_philox);
    long differ = -1;
    const sv_limits limits = {.max_B = s.B, .max_K = s.K, .max_V = s.V};
    s.drafts = malloc(n * K * sizeof(int32_t));
    s.out = malloc(n * (K + 1) * sizeof(int32_t));
    s.acc = malloc(n * sizeof(int32_t));
    if (!philox || !s.drafts || !s.out || !s.acc ||
        make_rows(k, c, &s, &given_target, &given_draft) != 0) {
        fprintf(stderr, "  %s: out of memory, or the twin's rows failed\n", k->spec);
        goto done;
    }
    uint64_t rng[STEPS][2];
    for (int step = 0; step < STEPS; step++) {
        rng[step][0] = SEED, rng[step][1] = first_of(&s, step);
        for (int32_t b = 0; b < s.B; b++)
            sv_drafter_draw(d, philox, 77, rng[step][1] + (uint64_t)b,
                            s.drafts + ((size_t)step * (size_t)s.B + (size_t)b) * K);
    }
    const size_t out_bytes = n * (K + 1) * sizeof(int32_t), acc_bytes = n * sizeof(int32_t);
    const enum cudaMemcpyKind up = cudaMemcpyHostToDevice;
    if (cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking) != cudaSuccess ||
        cudaMalloc(&s.d_target, (K + 1) * V * sizeof(float)) != cudaSuccess ||
        (given_draft && cudaMalloc(&s.d_draft, K * V * sizeof(float)) != cudaSuccess) ||
        cudaMalloc((void **)&s.d_drafts, n * K * sizeof(int32_t)) != cudaSuccess ||
        cudaMalloc((void **)&s.d_out, out_bytes) != cudaSuccess ||
        cudaMalloc((void **)&s.d_acc, acc_bytes) != cudaSuccess ||
        cudaMalloc((void **)&s.d_rng, sizeof rng) != cudaSuccess ||
        cudaMemcpyAsync(s.d_target, given_target, (K + 1) * V * sizeof(float), up, s.stream) !=
            cudaSuccess ||
        (given_draft && cudaMemcpyAsync(s.d_draft, given_draft, K * V * sizeof(float), up,
                                        s.stream) != cudaSuccess) ||
        cudaMemcpyAsync(s.d_drafts, s.drafts, n * K * sizeof(int32_t), up, s.stream) !=
            cudaSuccess ||
        cudaMemcpyAsync(s.d_rng, rng, sizeof rng, up, s.stream) != cudaSuccess ||
        cudaStreamSynchronize(s.stream) != cudaSuccess) {
        fprintf(stderr, "  %s: device setup failed: %s\n", k->spec,
                cudaGetErrorString(cudaGetLastError()));
        goto done;
    }
    if (gpu->init(&state, &limits) != SV_SAMPLER_OK ||
        ref->init(&ref_state, &limits) != SV_SAMPLER_OK) {
        fprintf(stderr, "  %s: init failed\n", k->spec);
        goto done;
    }
    /* back to back on the stream, into cleared outputs */
    if (cudaMemsetAsync(s.d_out, 0xff, out_bytes, s.stream) != cudaSuccess ||
        cudaMemsetAsync(s.d_acc, 0xff, acc_bytes, s.stream) != cudaSuccess ||
        enqueue_all(k, &s, enqueue, state) != 0 ||
        cudaStreamSynchronize(s.stream) != cudaSuccess) {
        fprintf(stderr, "  %s: back to back: %s\n", k->spec,
                cudaGetErrorString(cudaGetLastError()));
        goto done;
    }
    long stream_differ = compare(&s, ref, ref_state, "back to back");

    /* the same steps as one graph, replayed twice into cleared outputs */
    if (cudaMemsetAsync(s.d_out, 0xff, out_bytes, s.stream) != cudaSuccess ||
        cudaMemsetAsync(s.d_acc, 0xff, acc_bytes, s.stream) != cudaSuccess ||
        cudaStreamBeginCapture(s.stream, cudaStreamCaptureModeThreadLocal) != cudaSuccess) {
        fprintf(stderr, "  %s: graph capture did not start\n", k->spec);
        goto done;
    }
    const int queued = enqueue_all(k, &s, enqueue, state);
    const cudaError_t captured = cudaStreamEndCapture(s.stream, &graph);
    if (queued != 0 || captured != cudaSuccess ||
        cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess ||
        cudaGraphLaunch(exec, s.stream) != cudaSuccess ||
        cudaGraphLaunch(exec, s.stream) != cudaSuccess ||
        cudaStreamSynchronize(s.stream) != cudaSuccess) {
        fprintf(stderr, "  %s: graph: %s\n", k->spec, cudaGetErrorString(cudaGetLastError()));
        goto done;
    }
    long graph_differ = compare(&s, ref, ref_state, "graph replayed twice");
    differ = stream_differ < 0 || graph_differ < 0 ? -1 : stream_differ + graph_differ;
    printf("  %-22s %s B = %d, %d steps back to back and in a graph: %ld of %zu sequences "
           "differ from %s\n",
           k->spec, k->logits ? "logits-f32" : "probs", s.B, STEPS, differ, 2 * n, ref->name);
done:
    if (exec)
        cudaGraphExecDestroy(exec);
    if (graph)
        cudaGraphDestroy(graph);
    if (state)
        gpu->destroy(state);
    if (ref_state)
        ref->destroy(ref_state);
    cudaFree(s.d_target), cudaFree(s.d_draft), cudaFree(s.d_drafts), cudaFree(s.d_out);
    cudaFree(s.d_acc), cudaFree(s.d_rng);
    if (s.stream)
        cudaStreamDestroy(s.stream);
    free(s.p), free(s.q), free(s.drafts), free(s.out), free(s.acc);
    free(given_target), free(given_draft);
    gsl_rng_free(philox);
    sv_drafter_free(d);
    sv_case_free(c);
    return differ;
}

int main(int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : "cuda_fused", *twin = argc > 2 ? argv[2] : "ref_race";
#ifndef SV_STEPS_EMULATED
    char why[256] = "";
    if (sv_cuda_device_count(why, sizeof why) == 0) {
        printf("SKIPPED: %s steps back to back need a CUDA device: %s\n", name, why);
        return SKIP;
    }
#endif
    /* by name, not from the registry: under SV_STEPS_EMULATED these are the
     * emulated samplers (renamed by the build) */
    static const struct {
        const char *name;
        const sv_sampler *sampler;
        sv_cuda_enqueue_fn enqueue;
    } cuda[] = {{"cuda_fused", &sv_sampler_cuda_fused, sv_cuda_fused_enqueue},
                {"cuda_naive", &sv_sampler_cuda_naive, sv_cuda_naive_enqueue}};
    const sv_sampler *gpu = NULL, *ref = sv_registry_find(twin);
    sv_cuda_enqueue_fn enqueue = NULL;
    for (size_t i = 0; i < sizeof cuda / sizeof cuda[0]; i++)
        if (strcmp(name, cuda[i].name) == 0)
            gpu = cuda[i].sampler, enqueue = cuda[i].enqueue;
    if (!gpu || !ref || ref->memspace != SV_MEM_HOST) {
        fprintf(stderr, "test_gpu_steps: %s is not a built-in CUDA sampler or %s not a host one\n",
                name, twin);
        return 2;
    }
    static const kind kinds[] = {
        {LONG_ROWS, 1, 0, 1.0, 0},
        {"seedlab:V=1000,K=5", SMALL_B, 0, 1.0, 0},
        {LONG_ROWS, 1, 1, 0.8, 100},
        {"seedlab:V=1000,K=5", SMALL_B, 1, 0.8, 100},
    };
    int device = 0, major = 0, fused_early = 0, logits_early = 0;
    if (gpu == &sv_sampler_cuda_fused && cudaGetDevice(&device) == cudaSuccess &&
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) ==
            cudaSuccess &&
        major >= 9) {
        CHECK(sv_cuda_fused_early_ok(1, &fused_early) == 0 && fused_early);
        CHECK(sv_cuda_fused_early_ok(2, &fused_early) == 0 && fused_early);
        CHECK(sv_cuda_logits_early_ok(&logits_early) == 0 && logits_early);
        feature("compute capability 9 or later: this build's cuda_fused kernels have the wait, so can launch early");
    }
    const int logits = (gpu->inputs & SV_INPUT_BIT(SV_INPUT_LOGITS_F32)) != 0;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (!kinds[i].logits || logits)
            CHECK(run_kind(gpu, enqueue, ref, &kinds[i]) == 0);
    feature(logits ? "steps back to back and in a graph replayed twice: every step's tokens are "
                     "the twin's (probs and logits-f32 with top-k, B = 1 and more)"
                   : "steps back to back and in a graph replayed twice: every step's tokens are "
                     "the twin's (probs, B = 1 and more)");
    return check_exit();
}
