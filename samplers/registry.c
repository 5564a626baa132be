/* registry.c: look samplers up by name; built-ins first, then the broken
 * variants, then plugins. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sv_registry.h"

static const sv_sampler *const builtins[] = {
    &sv_sampler_ref,
    &sv_sampler_direct,
    &sv_sampler_ref_race,
    &sv_sampler_ref_float,
    &sv_sampler_ref_torch_coin,
    &sv_sampler_ref_layout,
    &sv_sampler_ref_logits,
    &sv_sampler_ref_exact,
    &sv_sampler_ref_block,
    &sv_sampler_ref_typical,
    &sv_sampler_ref_tree,
    &sv_sampler_ref_tree_target_only,
    &sv_sampler_ref_own_drafts,
#ifdef SV_HAVE_CUDA
    &sv_sampler_cuda_naive,
    &sv_sampler_cuda_fused,
    &sv_sampler_cuda_tree_naive,
    &sv_sampler_cuda_tree_target_only_naive,
#endif
};
#define N_BUILTINS (sizeof builtins / sizeof builtins[0])

static const sv_sampler *const broken[] = {
    &sv_broken_resample_from_p,
    &sv_broken_residual_unnormalized,
    &sv_broken_residual_swapped,
    &sv_broken_ratio_inverted,
    &sv_broken_no_chain_stop,
    &sv_broken_bonus_wrong_row,
    &sv_broken_residual_epsilon_floor,
    &sv_broken_uniform_reused,
    &sv_broken_draft_temperature_mismatch,
    &sv_broken_float16_ratio,
    &sv_broken_accept_zero_target,
    &sv_broken_counts_off_by_one,
    &sv_broken_shared_stream,
    &sv_broken_oov_float_rounding,
    &sv_broken_race_float32_truncated,
    /* issue 25: the bug classes of batches shaped as serving stacks give them */
    &sv_broken_packed_offset,
    &sv_broken_draft_stride_from_target,
    &sv_broken_outputs_swapped,
    &sv_broken_argmax_when_mixed,
    &sv_broken_top_p_from_first,
    &sv_broken_seed_ignored,
    &sv_broken_greedy_sampled_when_mixed,
    /* issue 27: exact match and block verification, broken as they shipped */
    &sv_broken_exact_match_argmax,
    &sv_broken_exact_match_shared_sample,
    &sv_broken_block_residual_tokenwise,
    &sv_broken_tree_siblings_replaced,
    &sv_broken_tree_cdf_boundary,
    /* issue 38: drafting bugs (samplers that draw their own drafts) */
    &sv_broken_drafts_bf16,
    &sv_broken_drafts_argmax,
#ifdef SV_HAVE_CUDA
    &sv_sampler_cuda_fused_shared_uniform, /* the GPU's: mutants runs it where a device is */
#endif
};
#define N_BROKEN (sizeof broken / sizeof broken[0])
#define N_FIXED (N_BUILTINS + N_BROKEN)

typedef struct added_sampler {
    const sv_sampler *sampler;
    char *origin;
} added_sampler;

static added_sampler *added;
static size_t n_added, cap_added;

size_t sv_registry_count(void)
{
    return N_FIXED + n_added;
}

const sv_sampler *sv_registry_get(size_t i)
{
    if (i < N_BUILTINS)
        return builtins[i];
    if (i < N_FIXED)
        return broken[i - N_BUILTINS];
    i -= N_FIXED;
    return i < n_added ? added[i].sampler : NULL;
}

size_t sv_registry_broken_count(void)
{
    return N_BROKEN;
}

const sv_sampler *sv_registry_broken_get(size_t i)
{
    return i < N_BROKEN ? broken[i] : NULL;
}

const char *sv_registry_origin(size_t i)
{
    if (i < N_BUILTINS)
        return "built-in";
    if (i < N_FIXED)
        return "broken";
    i -= N_FIXED;
    return i < n_added ? added[i].origin : NULL;
}

const sv_sampler *sv_registry_find(const char *name)
{
    for (size_t i = 0; i < sv_registry_count(); i++)
        if (strcmp(sv_registry_get(i)->name, name) == 0)
            return sv_registry_get(i);
    return NULL;
}

int sv_registry_add(const sv_sampler *s, const char *origin, char *err, size_t errlen)
{
    const sv_sampler *same = sv_registry_find(s->name);
    if (same) {
        snprintf(err, errlen, "%s: sampler name '%s' is already taken by another sampler", origin,
                 s->name);
        return -1;
    }
    if (n_added == cap_added) {
        size_t cap = cap_added ? 2 * cap_added : 8;
        added_sampler *grown = realloc(added, cap * sizeof *grown);
        if (!grown) {
            snprintf(err, errlen, "%s: out of memory adding sampler '%s'", origin, s->name);
            return -1;
        }
        added = grown;
        cap_added = cap;
    }
    const size_t len = strlen(origin) + 1;
    char *copy = malloc(len);
    if (!copy) {
        snprintf(err, errlen, "%s: out of memory adding sampler '%s'", origin, s->name);
        return -1;
    }
    memcpy(copy, origin, len);
    added[n_added].sampler = s;
    added[n_added].origin = copy;
    n_added++;
    return 0;
}

void sv_registry_clear_added(void)
{
    for (size_t i = 0; i < n_added; i++)
        free(added[i].origin);
    free(added);
    added = NULL;
    n_added = cap_added = 0;
}

const char *sv_memspace_name(sv_memspace m)
{
    switch (m) {
    case SV_MEM_HOST: return "host";
    case SV_MEM_CUDA: return "cuda";
    }
    return "unknown";
}

static const char *const input_names[] = {"probs", "logits-f32", "logits-bf16"};

int32_t sv_input_find(const char *text)
{
    for (int32_t i = 0; i < SV_N_INPUTS; i++)
        if (strcmp(text, input_names[i]) == 0)
            return i;
    return -1;
}

const char *sv_input_name(int32_t input)
{
    return input >= 0 && input < SV_N_INPUTS ? input_names[input] : "unknown";
}
