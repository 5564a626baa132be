/* test_layouts.c: the host samplers on contract v3 batches (sv_sampler.h).
 *
 * A ragged batch (d_b from 0 to K, rows, seed and index of each sequence its
 * own) in the padded layout and in the packed layout must give every
 * sequence token for token what the sampler gives it alone, as a version 2
 * batch of one with seed = seeds[b] and first_index = indices[b]; padded
 * rows past d_b are NaN and draft tokens -1, so a sampler that reads them
 * differs, and the slots a sequence does not own must keep their canary
 * (ragged_batch.h). Shown to catch: a sampler that takes the bonus from the
 * batch's row K, one that pads with -1 up to K, one that takes every
 * sequence's rule from the first.
 * ref_logits: a batch mixing greedy, top-k and top-p sequences gives each
 * what its own rule gives alone, and a greedy sequence only argmax tokens. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "chain.h"
#include "check.h"
#include "ragged_batch.h"
#include "sv_registry.h"

static ragged r; /* large: static */

/* The shapes every sampler is tried on: B, K, V, seed. */
static const int32_t shapes[][4] = {{24, 4, 37, 1}, {13, 6, 64, 2}, {3, 1, 5, 3}, {6, 0, 9, 4}};
#define N_SHAPES (sizeof shapes / sizeof shapes[0])

/* 1 when s agrees on every shape, with draft rows and with a one-hot drafter. */
static int agrees_everywhere(const sv_sampler *s, int32_t input, int quiet)
{
    int ok = 1;
    for (size_t i = 0; i < N_SHAPES; i++)
        for (int one_hot = 0; one_hot <= 1; one_hot++) {
            ragged_random(&r, shapes[i][0], shapes[i][1], shapes[i][2], input, one_hot,
                          (uint64_t)shapes[i][3]);
            ok &= ragged_agrees(s, &r, quiet);
        }
    return ok;
}

/* ---- deliberately wrong samplers: the check must catch each ---- */

/* The bonus from the batch's row K in the padded layout (a version 2 habit):
 * NaN for every sequence with d_b < K. */
static int32_t bonus_row_K(const sv_step *s, double u)
{
    return sv_chain_draw_p(s, s->bt->layout == SV_LAYOUT_PADDED ? s->bt->K : s->K, u);
}
static const sv_chain_hooks reads_row_K_hooks = {.bonus = bonus_row_K};
static int reads_row_K_verify(void *state, const sv_batch *bt)
{
    return sv_chain_verify(state, bt, &reads_row_K_hooks);
}
static const sv_sampler reads_row_K = {"reads_row_K", "test: bonus from row K, not d_b",
                                       SV_MEM_HOST, sv_chain_init, reads_row_K_verify,
                                       sv_chain_destroy, 0, SV_CHAIN_LAYOUTS, SV_RULE_CHAIN};

/* ref, then -1 in every padded slot up to K (slots d_b+1..K are not its own). */
static int pads_to_K_verify(void *state, const sv_batch *bt)
{
    int rc = sv_chain_verify(state, bt, NULL);
    for (int32_t b = 0; bt->layout == SV_LAYOUT_PADDED && b < bt->B; b++)
        for (int32_t k = sv_batch_num_drafts(bt, b) + 1; k <= bt->K; k++)
            bt->out_tokens[b * (bt->K + 1) + k] = -1;
    return rc;
}
static const sv_sampler pads_to_K = {"pads_to_K", "test: pads with -1 up to K", SV_MEM_HOST,
                                     sv_chain_init, pads_to_K_verify, sv_chain_destroy, 0,
                                     SV_CHAIN_LAYOUTS, SV_RULE_CHAIN};

/* ref_logits with every sequence given the first sequence's rule. */
static int first_rule_init(void **state, const sv_limits *limits)
{
    return sv_sampler_ref_logits.init(state, limits);
}
static void first_rule_destroy(void *state)
{
    sv_sampler_ref_logits.destroy(state);
}
static int first_rule_verify(void *state, const sv_batch *bt)
{
    double T[RB_MAXB], top_p[RB_MAXB];
    int32_t top_k[RB_MAXB];
    sv_batch first = *bt;
    for (int32_t b = 0; b < bt->B && b < RB_MAXB; b++) {
        T[b] = sv_batch_temperature(bt, 0);
        top_k[b] = sv_batch_top_k(bt, 0);
        top_p[b] = sv_batch_top_p(bt, 0);
    }
    first.temperatures = T;
    first.top_ks = top_k;
    first.top_ps = top_p;
    return sv_sampler_ref_logits.verify(state, &first);
}
static const sv_sampler first_rule = {"first_rule", "test: ref_logits, rule of sequence 0",
                                      SV_MEM_HOST, first_rule_init, first_rule_verify,
                                      first_rule_destroy,
                                      SV_INPUT_BIT(SV_INPUT_LOGITS_F32), SV_CHAIN_LAYOUTS,
                                      SV_RULE_CHAIN};

/* ---- ref_logits: greedy sequences emit argmax tokens ---- */

/* The first index of the largest value of row[0..V). */
static int32_t argmax(const float *row, int32_t V)
{
    int32_t best = 0;
    for (int32_t i = 1; i < V; i++)
        if (row[i] > row[best])
            best = i;
    return best;
}

/* In both layouts, every token a greedy (T = 0) sequence emits is the argmax
 * of its target row there; returns how many greedy sequences were seen. */
static int32_t greedy_is_argmax(void)
{
    static ragged_run run;
    int32_t seen = 0;
    for (int32_t layout = SV_LAYOUT_PADDED; layout <= SV_LAYOUT_PACKED; layout++) {
        ragged_lay_out(&r, layout, &run);
        CHECK(ragged_call(&sv_sampler_ref_logits, &run) == SV_SAMPLER_OK);
        for (int32_t b = 0; b < r.B; b++) {
            if (r.T[b] != 0.0)
                continue;
            seen++;
            const int32_t *y = ragged_out(&r, &run, b);
            for (int32_t k = 0; k <= run.accepted[b]; k++)
                CHECK(y[k] == argmax(r.p[b][k], r.V));
        }
    }
    return seen;
}

int main(void)
{
    const sv_sampler *controls[] = {&sv_sampler_ref,        &sv_sampler_ref_race,
                                    &sv_sampler_ref_float,  &sv_sampler_ref_layout,
                                    &sv_sampler_direct,     &sv_sampler_ref_logits};
    for (size_t i = 0; i < sizeof controls / sizeof controls[0]; i++)
        CHECK(agrees_everywhere(controls[i], SV_INPUT_PROBS, 0));
    feature("ref, ref_race, ref_float, ref_layout, direct, ref_logits: padded = packed = "
            "each sequence alone, nothing written outside its slots");

    /* the variants whose bug lives inside one sequence (not the new batch-composition ones) */
    const sv_sampler *broken[] = {
        &sv_broken_resample_from_p,        &sv_broken_residual_unnormalized,
        &sv_broken_residual_swapped,       &sv_broken_ratio_inverted,
        &sv_broken_no_chain_stop,          &sv_broken_bonus_wrong_row,
        &sv_broken_residual_epsilon_floor, &sv_broken_uniform_reused,
        &sv_broken_draft_temperature_mismatch, &sv_broken_float16_ratio,
        &sv_broken_accept_zero_target,     &sv_broken_counts_off_by_one,
        &sv_broken_shared_stream,          &sv_broken_oov_float_rounding,
        &sv_broken_race_float32_truncated};
    for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++)
        CHECK(agrees_everywhere(broken[i], SV_INPUT_PROBS, 0));
    feature("the chain-based broken variants: padded = packed = each sequence alone");

    for (int32_t input = SV_INPUT_LOGITS_F32; input <= SV_INPUT_LOGITS_BF16; input++)
        CHECK(agrees_everywhere(&sv_sampler_ref_logits, input, 0));
    int32_t greedy = 0;
    for (int one_hot = 0; one_hot <= 1; one_hot++) {
        ragged_random(&r, 24, 4, 37, SV_INPUT_LOGITS_F32, one_hot, 5);
        greedy += greedy_is_argmax();
    }
    CHECK(greedy == 2 * 2 * 5); /* sequences 0, 5, .., 20 in two layouts, two drafters */
    feature("ref_logits, greedy, top-k, top-p mixed (f32 and bf16): each sequence its own "
            "rule, greedy ones argmax");

    CHECK(!agrees_everywhere(&reads_row_K, SV_INPUT_PROBS, 1));
    CHECK(!agrees_everywhere(&pads_to_K, SV_INPUT_PROBS, 1));
    ragged_random(&r, 24, 4, 37, SV_INPUT_LOGITS_F32, 0, 6);
    CHECK(!ragged_agrees(&first_rule, &r, 1));
    feature("caught: a bonus from row K, -1 written up to K, the first sequence's rule for all");
    return check_exit();
}
