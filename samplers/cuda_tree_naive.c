/* cuda_tree_naive.c: the host sides of the naive CUDA tree samplers
 * (kernels/cuda_tree.cu): cuda_tree_naive (recursive rejection, the twin
 * of ref_tree) and cuda_tree_target_only_naive (SGLang's target-only rule,
 * the twin of ref_tree_target_only). As cuda_naive's: verify stages a
 * version 3 batch's per-sequence arrays (cuda_seqs.h), enqueues the kernel
 * on the batch's stream and waits for it to read back the bad-input flag.
 * A batch without parents or out_path (one not a tree) is refused. */
#include <stdlib.h>
#include "sv_registry.h"
#include "sv_cuda_kernels.h"
#include "cuda_flag.h"
#include "cuda_seqs.h"

typedef struct tree_naive_state {
    sv_cuda_flag flag;
    sv_cuda_seqs_ws seqs; /* sized by init's max_B */
} tree_naive_state;

static void tree_naive_destroy(void *state)
{
    tree_naive_state *s = state;
    if (!s)
        return;
    sv_cuda_flag_free(&s->flag);
    sv_cuda_seqs_free(&s->seqs);
    free(s);
}

static int tree_naive_init(void **state, const sv_limits *limits)
{
    tree_naive_state *s = calloc(1, sizeof *s);
    if (!s)
        return SV_SAMPLER_ENOMEM;
    int rc = sv_cuda_flag_alloc("cuda_tree_naive", &s->flag);
    if (rc == SV_SAMPLER_OK)
        rc = sv_cuda_seqs_alloc("cuda_tree_naive", &s->seqs, limits->max_B);
    if (rc != SV_SAMPLER_OK) {
        tree_naive_destroy(s);
        return rc;
    }
    *state = s;
    return SV_SAMPLER_OK;
}

static int tree_naive_run(void *state, const sv_batch *bt, int target_only)
{
    const char *name = target_only ? "cuda_tree_target_only_naive" : "cuda_tree_naive";
    tree_naive_state *s = state;
    if (!bt->target || !bt->parents || !bt->out_path || bt->K > SV_MAX_K ||
        (!target_only && !bt->draft))
        return SV_SAMPLER_EINVAL;
    int rc = sv_cuda_flag_clear(name, &s->flag, bt->stream);
    sv_cuda_seqs seqs;
    if (rc == SV_SAMPLER_OK)
        rc = sv_cuda_seqs_stage(name, &s->seqs, bt, 0, s->flag.device, 0, &seqs);
    if (rc != SV_SAMPLER_OK)
        return rc;
    int e = sv_cuda_tree_launch(bt, &seqs, target_only, s->flag.device);
    if (e != 0)
        return sv_cuda_status(name, "launching tree_kernel", e);
    return sv_cuda_flag_read(name, "tree_kernel", &s->flag, bt->stream);
}

static int tree_naive_verify(void *state, const sv_batch *bt)
{
    return tree_naive_run(state, bt, 0);
}

static int tree_target_only_naive_verify(void *state, const sv_batch *bt)
{
    return tree_naive_run(state, bt, 1);
}

const sv_sampler sv_sampler_cuda_tree_naive = {
    "cuda_tree_naive",
    "CUDA tree verification, one thread per sequence: the GPU twin of ref_tree",
    SV_MEM_CUDA, tree_naive_init, tree_naive_verify, tree_naive_destroy, 0,
    SV_LAYOUT_BIT(SV_LAYOUT_PADDED) | SV_LAYOUT_BIT(SV_LAYOUT_PACKED), SV_RULE_TREE};

const sv_sampler sv_sampler_cuda_tree_target_only_naive = {
    "cuda_tree_target_only_naive",
    "CUDA target-only tree verification, one thread per sequence: the GPU twin of "
    "ref_tree_target_only",
    SV_MEM_CUDA, tree_naive_init, tree_target_only_naive_verify, tree_naive_destroy, 0,
    SV_LAYOUT_BIT(SV_LAYOUT_PADDED) | SV_LAYOUT_BIT(SV_LAYOUT_PACKED), SV_RULE_TREE_TARGET_ONLY};
