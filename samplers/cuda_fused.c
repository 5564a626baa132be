/* cuda_fused.c: the host side of cuda_fused and of its broken twin
 * cuda_fused_shared_uniform (kernels/cuda_fused.cu), and of cuda_fused's
 * logits input modes (kernels/cuda_fused_logits.cu).
 *
 * init sizes the per-sequence workspaces for the largest batch (and, for
 * cuda_fused, the per-row workspace of the logits modes); verify picks how
 * many blocks share a sequence's row (enough blocks to fill the GPU at any
 * B), launches, and waits only to read back the bad-input flag, because the
 * contract returns a status. The launch itself never synchronizes. A
 * version 3 batch's per-sequence arrays (device memory) are checked and
 * laid out for the kernels by a prep kernel first (cuda_seqs.h), into a
 * workspace init sized too.
 *
 * The environment's SV_FUSED_PRUNE, SV_FUSED_DEPTH, SV_FUSED_SPLITS and
 * SV_FUSED_EARLY (fused_tuning.h) change how fast the kernels are, not
 * their tokens: init reads them, and refuses a value it does not know. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>
#include "sv_registry.h"
#include "sv_cuda_kernels.h"
#include "cuda_flag.h"
#include "cuda_seqs.h"
#include "fused_tuning.h"
#include "sv_cuda_enqueue.h"

typedef struct fused_state {
    int32_t max_B, max_K, max_V, sm_count, blocks_per_sm;
    int early;              /* launch early: SV_FUSED_EARLY, and the GPU and code can */
    void *winners;
    unsigned *arrivals;
    uint32_t inputs;        /* the logits modes taken: cuda_fused's, 0 for the broken twin */
    sv_cuda_logits_ws lws;  /* their workspace; all NULL when inputs is 0 */
    sv_cuda_flag bad;
    sv_cuda_seqs_ws seqs;   /* a version 3 batch's per-sequence arrays */
    int shared_uniform;
    sv_fused_tuning tuning; /* from the environment */
    const char *name;       /* for messages */
} fused_state;

/* Blocks per sequence: as many as one wave of the GPU holds (all blocks
 * resident at once: a second, partial wave would double the time), each at
 * least SV_FUSED_MIN_CHUNK tokens, at least 1; or SV_FUSED_SPLITS. */
static int32_t splits_for(const fused_state *s, int32_t B, int32_t V)
{
    if (s->tuning.splits > 0)
        return s->tuning.splits;
    int32_t by_fill = s->blocks_per_sm * s->sm_count / B;
    int32_t by_size = (V + SV_FUSED_MIN_CHUNK - 1) / SV_FUSED_MIN_CHUNK;
    int32_t splits = by_fill < by_size ? by_fill : by_size;
    return splits < 1 ? 1 : splits;
}

static void fused_destroy(void *state)
{
    fused_state *s = state;
    if (!s)
        return;
    cudaFree(s->winners);
    cudaFree(s->arrivals);
    cudaFree(s->lws.stats);
    cudaFree(s->lws.partials);
    cudaFree(s->lws.row_arrivals);
    cudaFree(s->lws.winners);
    cudaFree(s->lws.arrivals);
    sv_cuda_flag_free(&s->bad);
    sv_cuda_seqs_free(&s->seqs);
    free(s);
}

/* cudaMalloc of `count` entries of `size` bytes, zeroed; `what` says which
 * on failure. */
static cudaError_t alloc_zeroed(void **p, size_t count, size_t size, const char *what,
                                char *msg, size_t msg_len)
{
    snprintf(msg, msg_len, "allocating %s, %zu bytes", what, count * size);
    cudaError_t e = cudaMalloc(p, count * size);
    return e == cudaSuccess ? cudaMemset(*p, 0, count * size) : e;
}

/* The logits modes' workspace: row stats and arrival counters for every row
 * of the largest batch (B (2K + 1) rows), the stats kernel's partial results
 * and the verify kernel's winners for one wave of blocks or one per row. */
static cudaError_t logits_init(fused_state *s, char *msg, size_t msg_len)
{
    int stats_per_sm = 0, verify_per_sm = 0;
    snprintf(msg, msg_len, "querying the logits kernels' occupancy");
    cudaError_t e = (cudaError_t)sv_cuda_logits_blocks_per_sm(&stats_per_sm, &verify_per_sm);
    if (e != cudaSuccess)
        return e;
    s->lws.stats_wave = stats_per_sm * s->sm_count;
    s->lws.verify_wave = verify_per_sm * s->sm_count;
    const size_t rows = (size_t)s->max_B * (2 * (size_t)s->max_K + 1);
    e = alloc_zeroed(&s->lws.stats, rows, sv_cuda_logits_stats_bytes(), "the logits row stats",
                     msg, msg_len);
    if (e == cudaSuccess)
        e = alloc_zeroed(&s->lws.partials, (size_t)s->lws.stats_wave + rows,
                         sv_cuda_logits_partial_bytes(), "the logits row partials", msg, msg_len);
    if (e == cudaSuccess)
        e = alloc_zeroed((void **)&s->lws.row_arrivals, rows, sizeof(unsigned),
                         "the logits row arrival counters", msg, msg_len);
    if (e == cudaSuccess)
        e = alloc_zeroed(&s->lws.winners, (size_t)s->lws.verify_wave + (size_t)s->max_B,
                         sv_cuda_logits_winner_bytes(), "the logits per-block winners", msg,
                         msg_len);
    if (e == cudaSuccess)
        e = alloc_zeroed((void **)&s->lws.arrivals, (size_t)s->max_B, sizeof(unsigned),
                         "the logits arrival counters", msg, msg_len);
    return e;
}

static int fused_init_common(void **state, const sv_limits *limits, int shared_uniform)
{
    fused_state *s = calloc(1, sizeof *s);
    if (!s)
        return SV_SAMPLER_ENOMEM;
    *state = s;
    s->max_B = limits->max_B;
    s->max_K = limits->max_K > 0 ? limits->max_K : SV_MAX_K;
    s->max_V = limits->max_V;
    s->inputs = shared_uniform ? 0u
                               : SV_INPUT_BIT(SV_INPUT_LOGITS_F32) |
                                     SV_INPUT_BIT(SV_INPUT_LOGITS_BF16);
    s->shared_uniform = shared_uniform;
    s->name = shared_uniform ? "cuda_fused_shared_uniform" : "cuda_fused";
    char bad_knob[160];
    if (sv_fused_tuning_read(&s->tuning, bad_knob, sizeof bad_knob) != 0) {
        fprintf(stderr, "%s: %s\n", s->name, bad_knob);
        free(s);
        *state = NULL;
        return SV_SAMPLER_EINVAL;
    }
    int device = 0;
    cudaError_t e = cudaGetDevice(&device);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&s->sm_count, cudaDevAttrMultiProcessorCount, device);
    /* programmatic dependent launch exists from compute capability 9.0, and
     * needs the kernels' code for the device to have the wait */
    int major = 0, fused_ok = 0, logits_ok = 1;
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
    s->early = s->tuning.early && major >= 9;
    if (e == cudaSuccess && s->early)
        e = (cudaError_t)sv_cuda_fused_early_ok(s->tuning.depth, &fused_ok);
    if (e == cudaSuccess && s->early && s->inputs)
        e = (cudaError_t)sv_cuda_logits_early_ok(&logits_ok);
    s->early = s->early && fused_ok && logits_ok;
    if (e == cudaSuccess)
        e = (cudaError_t)sv_cuda_fused_blocks_per_sm(s->tuning.depth, &s->blocks_per_sm);
    /* B * splits_for(B) <= max(one wave, B) for every B <= max_B, or
     * max_B * SV_FUSED_SPLITS */
    size_t winners = (size_t)s->blocks_per_sm * (size_t)s->sm_count + (size_t)s->max_B;
    if (s->tuning.splits > 0 && (size_t)s->max_B * (size_t)s->tuning.splits > winners)
        winners = (size_t)s->max_B * (size_t)s->tuning.splits;
    char what[96] = "querying the device";
    if (e == cudaSuccess) {
        snprintf(what, sizeof what, "allocating the per-block winners, %zu bytes",
                 winners * sv_cuda_fused_winner_bytes());
        e = cudaMalloc(&s->winners, winners * sv_cuda_fused_winner_bytes());
    }
    if (e == cudaSuccess) {
        snprintf(what, sizeof what, "allocating the arrival counters, %zu bytes",
                 (size_t)s->max_B * sizeof(unsigned));
        e = cudaMalloc((void **)&s->arrivals, (size_t)s->max_B * sizeof(unsigned));
    }
    if (e == cudaSuccess)
        e = cudaMemset(s->arrivals, 0, (size_t)s->max_B * sizeof(unsigned));
    if (e == cudaSuccess && s->inputs)
        e = logits_init(s, what, sizeof what);
    /* cudaMemset may return before it is done, and runs on the legacy
     * stream, which the non-blocking streams of verify's stage and bench do
     * not wait for: the zeroed counters must be in place before a launch */
    if (e == cudaSuccess) {
        snprintf(what, sizeof what, "waiting for the workspace to be zeroed");
        e = cudaDeviceSynchronize();
    }
    int rc = e == cudaSuccess ? sv_cuda_flag_alloc(s->name, &s->bad)
                              : sv_cuda_status(s->name, what, e);
    if (rc == SV_SAMPLER_OK)
        rc = sv_cuda_seqs_alloc(s->name, &s->seqs, s->max_B);
    if (rc != SV_SAMPLER_OK) {
        fused_destroy(s);
        *state = NULL;
    }
    return rc;
}

/* A logits batch this instance takes: its mode, sizes within init's limits,
 * the rows given, and, for a batch without per-sequence data (seqs->cu
 * NULL; the prep kernel checks each sequence's rule), T >= 0 and top_p > 0. */
static int logits_batch_ok(const fused_state *s, const sv_batch *bt, const sv_cuda_seqs *seqs)
{
    if ((bt->input != SV_INPUT_LOGITS_F32 && bt->input != SV_INPUT_LOGITS_BF16) ||
        !(s->inputs & SV_INPUT_BIT(bt->input)))
        return 0;
    return bt->K <= s->max_K && bt->target_logits &&
           (seqs->cu || (isfinite(bt->temperature) && bt->temperature >= 0.0 && bt->top_p > 0.0));
}

int sv_cuda_fused_enqueue(void *state, const sv_batch *bt, const uint64_t *rng)
{
    fused_state *s = state;
    if (bt->B > s->max_B || bt->V > s->max_V)
        return SV_SAMPLER_EINVAL; /* larger than init was told */
    const int logits = bt->input != SV_INPUT_PROBS;
    if (logits && bt->input != SV_INPUT_LOGITS_F32 && bt->input != SV_INPUT_LOGITS_BF16)
        return SV_SAMPLER_EINVAL; /* before staging reads its rules */
    sv_cuda_seqs seqs;
    int rc = sv_cuda_seqs_stage(s->name, &s->seqs, bt, logits, s->bad.device, s->early, &seqs);
    if (rc != SV_SAMPLER_OK)
        return rc;
    if (logits) {
        if (!logits_batch_ok(s, bt, &seqs))
            return SV_SAMPLER_EINVAL;
        int e = sv_cuda_fused_logits_launch(bt, &seqs, rng, &s->lws, s->bad.device,
                                            s->tuning.prune, s->early);
        return e == 0 ? SV_SAMPLER_OK
                      : sv_cuda_status(s->name, "launching the logits kernels", e);
    }
    int e = sv_cuda_fused_launch(bt, &seqs, rng, splits_for(s, bt->B, bt->V), s->winners,
                                 s->arrivals, s->bad.device, s->shared_uniform, s->tuning.prune,
                                 s->tuning.depth, s->early);
    return e == 0 ? SV_SAMPLER_OK : sv_cuda_status(s->name, "launching fused_kernel", e);
}

static int fused_verify(void *state, const sv_batch *bt)
{
    fused_state *s = state;
    int rc = sv_cuda_flag_clear(s->name, &s->bad, bt->stream);
    if (rc == SV_SAMPLER_OK)
        rc = sv_cuda_fused_enqueue(state, bt, NULL);
    if (rc != SV_SAMPLER_OK)
        return rc;
    return sv_cuda_flag_read(s->name, "fused_kernel", &s->bad, bt->stream);
}

static int fused_init(void **state, const sv_limits *limits)
{
    return fused_init_common(state, limits, 0);
}

static int shared_uniform_init(void **state, const sv_limits *limits)
{
    return fused_init_common(state, limits, 1);
}

const sv_sampler sv_sampler_cuda_fused = {
    "cuda_fused", "CUDA, fast: 2K gathered scalars, one row pair, exponential race (double)",
    SV_MEM_CUDA, fused_init, fused_verify, fused_destroy,
    SV_INPUT_BIT(SV_INPUT_LOGITS_F32) | SV_INPUT_BIT(SV_INPUT_LOGITS_BF16),
    SV_LAYOUT_BIT(SV_LAYOUT_PADDED) | SV_LAYOUT_BIT(SV_LAYOUT_PACKED), SV_RULE_CHAIN};

const sv_sampler sv_sampler_cuda_fused_shared_uniform = {
    "cuda_fused_shared_uniform",
    "broken (GPU): 32 consecutive sequences share their acceptance uniforms", SV_MEM_CUDA,
    shared_uniform_init, fused_verify, fused_destroy, 0,
    SV_LAYOUT_BIT(SV_LAYOUT_PADDED) | SV_LAYOUT_BIT(SV_LAYOUT_PACKED), SV_RULE_CHAIN};
