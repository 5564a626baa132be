/* cuda_naive.c: the host side of the cuda_naive sampler (kernels/cuda_naive.cu).
 *
 * verify enqueues the kernel on the batch's stream and then waits for it, to
 * read back the flag that says whether any sequence had bad input: the plain
 * way, and the reason this sampler is not CUDA-graph friendly (cuda_fused's
 * launch is). A version 3 batch's per-sequence arrays are checked and laid
 * out for the kernel by a prep kernel first (cuda_seqs.h). */
#include <stdlib.h>
#include "sv_registry.h"
#include "sv_cuda_kernels.h"
#include "cuda_flag.h"
#include "cuda_seqs.h"
#include "sv_cuda_enqueue.h"

typedef struct naive_state {
    sv_cuda_flag flag;
    sv_cuda_seqs_ws seqs; /* sized by init's max_B */
} naive_state;

static void naive_destroy(void *state)
{
    naive_state *s = state;
    if (!s)
        return;
    sv_cuda_flag_free(&s->flag);
    sv_cuda_seqs_free(&s->seqs);
    free(s);
}

static int naive_init(void **state, const sv_limits *limits)
{
    naive_state *s = calloc(1, sizeof *s);
    if (!s)
        return SV_SAMPLER_ENOMEM;
    int rc = sv_cuda_flag_alloc("cuda_naive", &s->flag);
    if (rc == SV_SAMPLER_OK)
        rc = sv_cuda_seqs_alloc("cuda_naive", &s->seqs, limits->max_B);
    if (rc != SV_SAMPLER_OK) {
        naive_destroy(s);
        return rc;
    }
    *state = s;
    return SV_SAMPLER_OK;
}

int sv_cuda_naive_enqueue(void *state, const sv_batch *bt, const uint64_t *rng)
{
    (void)rng; /* the naive kernel takes seed and index by value only */
    naive_state *s = state;
    sv_cuda_seqs seqs;
    int rc = sv_cuda_seqs_stage("cuda_naive", &s->seqs, bt, 0, s->flag.device, 0, &seqs);
    if (rc != SV_SAMPLER_OK)
        return rc;
    int e = sv_cuda_naive_launch(bt, &seqs, s->flag.device);
    return e == 0 ? SV_SAMPLER_OK : sv_cuda_status("cuda_naive", "launching naive_kernel", e);
}

static int naive_verify(void *state, const sv_batch *bt)
{
    naive_state *s = state;
    int rc = sv_cuda_flag_clear("cuda_naive", &s->flag, bt->stream);
    if (rc == SV_SAMPLER_OK)
        rc = sv_cuda_naive_enqueue(state, bt, NULL);
    if (rc != SV_SAMPLER_OK)
        return rc;
    return sv_cuda_flag_read("cuda_naive", "naive_kernel", &s->flag, bt->stream);
}

const sv_sampler sv_sampler_cuda_naive = {
    "cuda_naive", "CUDA, one thread per sequence: the GPU twin of ref (inverse CDF, double)",
    SV_MEM_CUDA, naive_init, naive_verify, naive_destroy, 0,
    SV_LAYOUT_BIT(SV_LAYOUT_PADDED) | SV_LAYOUT_BIT(SV_LAYOUT_PACKED), SV_RULE_CHAIN};
