/* cuda_fused.c: the host side of cuda_fused and of its broken twin
 * cuda_fused_shared_uniform (kernels/cuda_fused.cu).
 *
 * init sizes the per-sequence workspaces for the largest batch; verify picks
 * how many blocks share a sequence's row (enough blocks to fill the GPU at
 * any B), launches, and waits only to read back the bad-input flag, because
 * the contract returns a status. The launch itself never synchronizes. */
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>
#include "sv_registry.h"
#include "sv_cuda_kernels.h"
#include "cuda_flag.h"
#include "sv_cuda_enqueue.h"

typedef struct fused_state {
    int32_t max_B, max_V, sm_count, blocks_per_sm;
    void *winners;
    unsigned *arrivals;
    sv_cuda_flag bad;
    int shared_uniform;
    const char *name; /* for messages */
} fused_state;

/* Blocks per sequence: as many as one wave of the GPU holds (all blocks
 * resident at once: a second, partial wave would double the time), each at
 * least SV_FUSED_MIN_CHUNK tokens, at least 1. */
static int32_t splits_for(const fused_state *s, int32_t B, int32_t V)
{
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
    sv_cuda_flag_free(&s->bad);
    free(s);
}

static int fused_init_common(void **state, const sv_limits *limits, int shared_uniform)
{
    fused_state *s = calloc(1, sizeof *s);
    if (!s)
        return SV_SAMPLER_ENOMEM;
    *state = s;
    s->max_B = limits->max_B;
    s->max_V = limits->max_V;
    s->shared_uniform = shared_uniform;
    s->name = shared_uniform ? "cuda_fused_shared_uniform" : "cuda_fused";
    int device = 0;
    cudaError_t e = cudaGetDevice(&device);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&s->sm_count, cudaDevAttrMultiProcessorCount, device);
    if (e == cudaSuccess)
        e = (cudaError_t)sv_cuda_fused_blocks_per_sm(&s->blocks_per_sm);
    /* B * splits_for(B) <= max(one wave, B) for every B <= max_B */
    const size_t winners =
        (size_t)s->blocks_per_sm * (size_t)s->sm_count + (size_t)s->max_B;
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
    int rc = e == cudaSuccess ? sv_cuda_flag_alloc(s->name, &s->bad)
                              : sv_cuda_status(s->name, what, e);
    if (rc != SV_SAMPLER_OK) {
        fused_destroy(s);
        *state = NULL;
    }
    return rc;
}

int sv_cuda_fused_enqueue(void *state, const sv_batch *bt, const uint64_t *rng)
{
    fused_state *s = state;
    if (bt->B > s->max_B || bt->V > s->max_V)
        return SV_SAMPLER_EINVAL; /* larger than init was told */
    int e = sv_cuda_fused_launch(bt, rng, splits_for(s, bt->B, bt->V), s->winners, s->arrivals,
                                 s->bad.device, s->shared_uniform);
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
    SV_MEM_CUDA, fused_init, fused_verify, fused_destroy};

const sv_sampler sv_sampler_cuda_fused_shared_uniform = {
    "cuda_fused_shared_uniform",
    "broken (GPU): 32 consecutive sequences share their acceptance uniforms", SV_MEM_CUDA,
    shared_uniform_init, fused_verify, fused_destroy};
