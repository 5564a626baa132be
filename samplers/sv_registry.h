/* sv_registry.h: the built-in samplers, the broken variants, and those loaded
 * from plugins. */
#ifndef SV_REGISTRY_H
#define SV_REGISTRY_H

#include <stddef.h>
#include "sv_sampler.h"

/* Built-in samplers, defined one per file. */
extern const sv_sampler sv_sampler_ref;
extern const sv_sampler sv_sampler_direct;
extern const sv_sampler sv_sampler_ref_race;
extern const sv_sampler sv_sampler_ref_float;
extern const sv_sampler sv_sampler_ref_torch_coin;
extern const sv_sampler sv_sampler_ref_layout;
extern const sv_sampler sv_sampler_ref_logits; /* takes logits input too */
/* contract version 5: the rules beyond the chain (rules.h) */
extern const sv_sampler sv_sampler_ref_exact;
extern const sv_sampler sv_sampler_ref_block;
extern const sv_sampler sv_sampler_ref_tree;
extern const sv_sampler sv_sampler_ref_tree_target_only;
extern const sv_sampler sv_sampler_ref_typical; /* lossy on purpose: verify --measure */
/* contract version 7: draws its own drafts (own_drafts.h) */
extern const sv_sampler sv_sampler_ref_own_drafts;
#ifdef SV_HAVE_CUDA
/* built only with CUDA */
extern const sv_sampler sv_sampler_cuda_naive;
extern const sv_sampler sv_sampler_cuda_fused;
extern const sv_sampler sv_sampler_cuda_tree_naive;
extern const sv_sampler sv_sampler_cuda_tree_target_only_naive;
#endif

/* Deliberately broken variants, one per file in broken/ (each says its bug). */
extern const sv_sampler sv_broken_resample_from_p;
extern const sv_sampler sv_broken_residual_unnormalized;
extern const sv_sampler sv_broken_residual_swapped;
extern const sv_sampler sv_broken_ratio_inverted;
extern const sv_sampler sv_broken_no_chain_stop;
extern const sv_sampler sv_broken_bonus_wrong_row;
extern const sv_sampler sv_broken_residual_epsilon_floor;
extern const sv_sampler sv_broken_uniform_reused;
extern const sv_sampler sv_broken_draft_temperature_mismatch;
extern const sv_sampler sv_broken_float16_ratio;
extern const sv_sampler sv_broken_accept_zero_target;
extern const sv_sampler sv_broken_counts_off_by_one;
extern const sv_sampler sv_broken_shared_stream;
extern const sv_sampler sv_broken_oov_float_rounding;
extern const sv_sampler sv_broken_race_float32_truncated;
/* issue 25: bugs that only batches of many cases, layouts and seeds show
 * (per-sequence views: broken/seq_view.h); the logits ones take logits input */
extern const sv_sampler sv_broken_packed_offset;
extern const sv_sampler sv_broken_draft_stride_from_target;
extern const sv_sampler sv_broken_outputs_swapped;
extern const sv_sampler sv_broken_argmax_when_mixed;
extern const sv_sampler sv_broken_top_p_from_first;
extern const sv_sampler sv_broken_seed_ignored;
extern const sv_sampler sv_broken_greedy_sampled_when_mixed;
/* issue 27: the rules beyond the chain, broken as they shipped */
extern const sv_sampler sv_broken_exact_match_argmax;
extern const sv_sampler sv_broken_exact_match_shared_sample;
extern const sv_sampler sv_broken_block_residual_tokenwise;
extern const sv_sampler sv_broken_tree_siblings_replaced;
extern const sv_sampler sv_broken_tree_cdf_boundary;
/* issue 38: drafting bugs, in samplers that draw their own drafts */
extern const sv_sampler sv_broken_drafts_bf16;
extern const sv_sampler sv_broken_drafts_argmax;
#ifdef SV_HAVE_CUDA
/* the GPU's, in cuda_fused.c beside the kernel it breaks; last of the list */
extern const sv_sampler sv_sampler_cuda_fused_shared_uniform;
#endif

/* Every sampler known now: the built-ins, the broken variants, then those of
 * loaded plugins. */
size_t sv_registry_count(void);
const sv_sampler *sv_registry_get(size_t i);
/* The broken variants alone, in their fixed order. */
size_t sv_registry_broken_count(void);
const sv_sampler *sv_registry_broken_get(size_t i);
/* Where sampler i comes from: "built-in", "broken" or the plugin's path. */
const char *sv_registry_origin(size_t i);
/* NULL if no sampler has that name. */
const sv_sampler *sv_registry_find(const char *name);

/* Loads a plugin and adds its samplers. Returns 0, or -1 with a message in
 * err that names the file and says what is wrong and what to do. */
int sv_plugin_load(const char *path, char *err, size_t errlen);
/* What confines a plugin's load probe (the harness's sandbox, set by
 * specverify's main): before_fork in this process, in_child in the probe
 * before the plugin's code runs. Either may be NULL. */
void sv_plugin_set_confine(void (*before_fork)(void), void (*in_child)(void));
/* The sampler to call for s: s itself for a built-in; for a plugin's (the
 * registry holds what its probe said, without functions), the plugin's own,
 * loading the library in this process first. NULL with err set when it
 * cannot be loaded. */
const sv_sampler *sv_sampler_resolve(const sv_sampler *s, char *err, size_t errlen);
/* Unloads every plugin; samplers from them are gone after this. */
void sv_plugin_unload_all(void);

/* Used by plugin.c to add samplers; -1 if the name is taken or on no memory. */
int sv_registry_add(const sv_sampler *s, const char *origin, char *err, size_t errlen);
/* Forgets every sampler added by sv_registry_add. */
void sv_registry_clear_added(void);

const char *sv_memspace_name(sv_memspace m);

/* The input modes by name, as --input reads them: "probs", "logits-f32",
 * "logits-bf16" (an sv_input). */
#define SV_N_INPUTS 3
/* The sv_input of a name, or -1. */
int32_t sv_input_find(const char *text);
/* The name of an sv_input ("unknown" for none). */
const char *sv_input_name(int32_t input);

#endif
