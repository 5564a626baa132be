/* test_broken_batches.c: the broken variants of issue 25 on hand-built
 * contract v3 batches (hand_batch.h): for each, a batch of sequences with
 * their own rows, drafts, d_b and rule on which it differs from the correct
 * chain exactly where its bug is (rows chosen so that every token in
 * question is certain), and a uniform batch on which it agrees, which is why
 * the uniform batches of contract v2 never caught it.
 *
 * Everything runs at fixed seeds, so the program is deterministic; the one
 * frequency comparison (seed_ignored's bonus law) allows 6 binomial standard
 * deviations. */
#include <string.h>
#include "check.h"
#include "hand_batch.h"
#include "row_fixture.h"
#include "sv_registry.h"

static const int32_t layouts[2] = {SV_LAYOUT_PADDED, SV_LAYOUT_PACKED};

/* The variant on the logits batch r (f32) in `layout` equals the correct
 * chain on r's rows made by `bug` (the rows its bug makes) and, unless
 * same_as_own, differs from the correct chain on r's rows made by each
 * sequence's own rule. */
static void check_logits_variant(const sv_sampler *variant, const ragged *r, int32_t layout,
                                 hb_rule_fn *bug, int same_as_own)
{
    static ragged made;
    static ragged_run v, w;
    CHECK(hb_run(variant, r, layout, &v) == SV_SAMPLER_OK);
    made = *r;
    hb_probs_from_logits(&made, bug);
    CHECK(hb_run(&hb_correct, &made, layout, &w) == SV_SAMPLER_OK);
    CHECK(hb_same_outputs(&v, &w));
    made = *r;
    hb_probs_from_logits(&made, hb_own_rule);
    CHECK(hb_run(&hb_correct, &made, layout, &w) == SV_SAMPLER_OK);
    CHECK(hb_same_outputs(&v, &w) == same_as_own);
}

/* ---- packed_offset, draft_stride_from_target, outputs_swapped ---------------- */

/* Three sequences with d = 2, 0, 1 and one-hot target rows e_1 e_2 e_3 | e_4
 * | e_5 e_6, uniform draft rows, drafts its own rows accept: the correct
 * chain emits (1 2 3) n = 2 | (4) n = 0 | (5 6) n = 1, whatever its numbers. */
static void one_hot_batch(ragged *r)
{
    static const int32_t d[3] = {2, 0, 1};
    hb_hand(r, 3, 8);
    int32_t t = 1;
    for (int32_t b = 0; b < 3; b++) {
        r->d[b] = d[b];
        for (int32_t k = 0; k <= d[b]; k++)
            hb_one_hot(r->p[b][k], 8, t + k);
        for (int32_t k = 0; k < d[b]; k++) {
            hb_uniform(r->q[b][k], 8);
            r->x[b][k] = t + k;
        }
        t += d[b] + 1;
    }
    hb_done(r);
}

static void check_one_hot_correct(const ragged *r, const ragged_run *run)
{
    CHECK(hb_record_is(r, run, 0, 2, (const int32_t[]){1, 2, 3}));
    CHECK(hb_record_is(r, run, 1, 0, (const int32_t[]){4}));
    CHECK(hb_record_is(r, run, 2, 1, (const int32_t[]){5, 6}));
}

static void test_packed_offset(void)
{
    static ragged r;
    static ragged_run v, w;
    one_hot_batch(&r);
    CHECK(hb_run(&hb_correct, &r, SV_LAYOUT_PACKED, &w) == SV_SAMPLER_OK);
    check_one_hot_correct(&r, &w);
    CHECK(hb_run(&sv_broken_packed_offset, &r, SV_LAYOUT_PACKED, &v) == SV_SAMPLER_OK);
    /* sequence 0 reads from row cu[1] + 0 = 2, its bonus row e_3: draft 1 rejected, 3 emitted */
    CHECK(hb_record_is(&r, &v, 0, 0, (const int32_t[]){3}));
    /* d = 0: its own bonus row, right */
    CHECK(hb_same_record(&r, &v, 1, &w, 1));
    /* sequence 2 reads its bonus row e_6, then past the buffer its last row, e_6 again */
    CHECK(hb_record_is(&r, &v, 2, 0, (const int32_t[]){6}));
    feature("packed_offset: packed rows from cu[b+1] + b: the bonus row first, then the next "
            "sequence's");

    /* the same ragged batch padded: no prefix sums, exactly the correct chain */
    CHECK(hb_run(&sv_broken_packed_offset, &r, SV_LAYOUT_PADDED, &v) == SV_SAMPLER_OK);
    CHECK(hb_run(&hb_correct, &r, SV_LAYOUT_PADDED, &w) == SV_SAMPLER_OK);
    CHECK(hb_same_outputs(&v, &w));
    check_one_hot_correct(&r, &v);
    feature("packed_offset: a padded batch (every uniform batch was) is verified right");
}

/* Rows for draft_stride_from_target (padded, K = 3): sequence 1's draft 1
 * and sequence 2's have p = 0 and are rejected; the residual max(p_1 - q, 0)
 * then names the draft row read. Own rows give 2 and 4; the rows at
 * b * (K+1) V (sequence 1's row 2; past the buffer for sequence 2, which
 * then reads the last row, its own row 3) give 1 and 3. */
static void stride_batch(ragged *r)
{
    hb_hand(r, 3, 8);
    r->d[0] = 1;
    hb_one_hot(r->p[0][0], 8, 5);
    hb_one_hot(r->p[0][1], 8, 6);
    hb_uniform(r->q[0][0], 8);
    r->x[0][0] = 5;
    r->d[1] = 2;
    hb_set_row(r->p[1][0], (const float[]){0, 1, 1, 0, 0, 0, 0, 0});
    hb_uniform(r->p[1][1], 8);
    hb_uniform(r->p[1][2], 8);
    hb_set_row(r->q[1][0], (const float[]){1, 1, 0, 0, 0, 0, 0, 0});
    hb_set_row(r->q[1][1], (const float[]){1, 0, 1, 0, 0, 0, 0, 0});
    r->d[2] = 3;
    hb_set_row(r->p[2][0], (const float[]){0, 0, 0, 1, 1, 0, 0, 0});
    for (int32_t k = 1; k <= 3; k++)
        hb_uniform(r->p[2][k], 8);
    hb_set_row(r->q[2][0], (const float[]){1, 0, 0, 1, 0, 0, 0, 0});
    hb_uniform(r->q[2][1], 8);
    hb_set_row(r->q[2][2], (const float[]){1, 0, 0, 0, 1, 0, 0, 0});
    hb_done(r);
}

static void test_draft_stride(void)
{
    static ragged r;
    static ragged_run v, w;
    stride_batch(&r);
    CHECK(hb_run(&hb_correct, &r, SV_LAYOUT_PADDED, &w) == SV_SAMPLER_OK);
    CHECK(hb_record_is(&r, &w, 0, 1, (const int32_t[]){5, 6}));
    CHECK(hb_record_is(&r, &w, 1, 0, (const int32_t[]){2}));
    CHECK(hb_record_is(&r, &w, 2, 0, (const int32_t[]){4}));
    CHECK(hb_run(&sv_broken_draft_stride_from_target, &r, SV_LAYOUT_PADDED, &v) ==
          SV_SAMPLER_OK);
    CHECK(hb_same_record(&r, &v, 0, &w, 0)); /* sequence 0: offset 0 either way */
    CHECK(hb_record_is(&r, &v, 1, 0, (const int32_t[]){1}));
    CHECK(hb_record_is(&r, &v, 2, 0, (const int32_t[]){3}));
    feature("draft_stride_from_target: draft rows at b (K+1) V give another residual");

    /* packed: no strides, right */
    CHECK(hb_run(&sv_broken_draft_stride_from_target, &r, SV_LAYOUT_PACKED, &v) ==
          SV_SAMPLER_OK);
    CHECK(hb_run(&hb_correct, &r, SV_LAYOUT_PACKED, &w) == SV_SAMPLER_OK);
    CHECK(hb_same_outputs(&v, &w));
    /* the version 2 shape, one row set for all with stride 0 for target and
     * draft: the wrong stride is 0 too */
    r.d[0] = r.d[1] = r.d[2];
    memcpy(r.p[0], r.p[2], sizeof r.p[0]);
    memcpy(r.q[0], r.q[2], sizeof r.q[0]);
    memcpy(r.x[1], r.x[2], sizeof r.x[1]);
    ragged_lay_out(&r, SV_LAYOUT_PADDED, &v);
    v.bt.target_stride = v.bt.draft_stride = 0;
    CHECK(ragged_call(&sv_broken_draft_stride_from_target, &v) == SV_SAMPLER_OK);
    ragged_lay_out(&r, SV_LAYOUT_PADDED, &w);
    w.bt.target_stride = w.bt.draft_stride = 0;
    CHECK(ragged_call(&hb_correct, &w) == SV_SAMPLER_OK);
    CHECK(hb_same_outputs(&v, &w) && hb_record_is(&r, &v, 1, 0, (const int32_t[]){4}));
    feature("draft_stride_from_target: right in the packed layout and on broadcast rows");
}

static void test_outputs_swapped(void)
{
    static ragged r;
    static ragged_run v, w;
    enum { U = RB_CANARY };
    /* padded, K = 2: slot 0 gets sequence 1's record (4), sequence 0's own
     * later slots are left as they were; sequence 1's slots get (1 2 3),
     * two past its d = 0; sequence 2 has no partner */
    static const int32_t padded[9] = {4, U, U, 1, 2, 3, 5, 6, U};
    /* packed: sequence 0's record written at sequence 1's slot 3 runs over
     * sequence 2's, which then writes its own there */
    static const int32_t packed[6] = {4, U, U, 1, 5, 6};
    one_hot_batch(&r);
    for (int l = 0; l < 2; l++) {
        CHECK(hb_run(&hb_correct, &r, layouts[l], &w) == SV_SAMPLER_OK);
        check_one_hot_correct(&r, &w);
        CHECK(hb_run(&sv_broken_outputs_swapped, &r, layouts[l], &v) == SV_SAMPLER_OK);
        CHECK(memcmp(v.out, l ? packed : padded, (l ? 6 : 9) * sizeof *v.out) == 0);
        CHECK(v.accepted[0] == 0 && v.accepted[1] == 2 && v.accepted[2] == 1);
    }
    feature("outputs_swapped: records land in the partner's slots, in both layouts");

    /* one case, the same drafts for all: slot b holds what the correct
     * chain gives sequence b ^ 1, so the tally is the same, permuted */
    static const float p[8] = {0.3f, 0.2f, 0.1f, 0.1f, 0.1f, 0.1f, 0.05f, 0.05f};
    hb_hand(&r, 8, 8);
    for (int32_t b = 0; b < 8; b++) {
        r.d[b] = 2;
        for (int32_t k = 0; k <= 2; k++)
            hb_set_row(r.p[b][k], p);
        for (int32_t k = 0; k < 2; k++) {
            hb_uniform(r.q[b][k], 8);
            r.x[b][k] = k;
        }
    }
    hb_done(&r);
    CHECK(hb_run(&sv_broken_outputs_swapped, &r, SV_LAYOUT_PADDED, &v) == SV_SAMPLER_OK);
    CHECK(hb_run(&hb_correct, &r, SV_LAYOUT_PADDED, &w) == SV_SAMPLER_OK);
    for (int32_t b = 0; b < 8; b++)
        CHECK(hb_same_record(&r, &v, b, &w, b ^ 1));
    CHECK(!hb_same_outputs(&v, &w)); /* and it did move something */
    feature("outputs_swapped: on a uniform batch a permutation of the correct outputs");
}

/* ---- seed_ignored ------------------------------------------------------------ */

static void test_seed_ignored(void)
{
    static ragged r1, r2;
    static ragged_run v1, v2, w1, w2;
    static const int32_t d[6] = {2, 1, 0, 2, 1, 2};
    static const float p[8] = {0.3f, 0.2f, 0.1f, 0.1f, 0.1f, 0.1f, 0.05f, 0.05f};
    hb_hand(&r1, 6, 8);
    for (int32_t b = 0; b < 6; b++) {
        r1.d[b] = d[b];
        for (int32_t k = 0; k <= d[b]; k++)
            hb_set_row(r1.p[b][k], p);
        for (int32_t k = 0; k < d[b]; k++) {
            hb_uniform(r1.q[b][k], 8);
            r1.x[b][k] = k;
        }
    }
    hb_done(&r1);
    r2 = r1;
    for (int32_t b = 0; b < 6; b++) {
        r1.seeds[b] = 11 + (uint64_t)b;
        r2.seeds[b] = 1000 + (uint64_t)b;
    }
    for (int l = 0; l < 2; l++) {
        CHECK(hb_run(&sv_broken_seed_ignored, &r1, layouts[l], &v1) == SV_SAMPLER_OK);
        CHECK(hb_run(&sv_broken_seed_ignored, &r2, layouts[l], &v2) == SV_SAMPLER_OK);
        CHECK(hb_same_outputs(&v1, &v2));
        CHECK(hb_run(&hb_correct, &r1, layouts[l], &w1) == SV_SAMPLER_OK);
        CHECK(hb_run(&hb_correct, &r2, layouts[l], &w2) == SV_SAMPLER_OK);
        CHECK(!hb_same_outputs(&w1, &w2));
    }
    feature("seed_ignored: two seeds, the same drafts, the same tokens (the chain's differ)");

    /* a version 2 batch of 20000 sequences: x always accepted, so the bonus
     * follows p_2 = .5 .3 .2, as it should; another seed, the same tokens */
    int32_t x[1] = {0};
    setup(1, 3, x);
    const float p1[3] = {0.6f, 0.2f, 0.2f}, p2[3] = {0.5f, 0.3f, 0.2f}, q[3] = {0.4f, 0.3f, 0.3f};
    set_p(0, p1);
    set_p(1, p2);
    set_q(0, q);
    CHECK(run(&sv_broken_seed_ignored, 0) == SV_SAMPLER_OK);
    CHECK(frac_accepted(1) == 1.0);
    for (int32_t i = 0; i < 3; i++)
        CHECK_NEAR(frac_token(1, i, -1), p2[i], tol(p2[i], NSEQ));
    static int32_t out7[NSEQ * 2];
    memcpy(out7, fx.out, sizeof out7);
    fx.seed = 8;
    CHECK(run(&sv_broken_seed_ignored, 0) == SV_SAMPLER_OK);
    CHECK(memcmp(out7, fx.out, sizeof out7) == 0);
    CHECK(run(&sv_sampler_ref, 0) == SV_SAMPLER_OK);
    CHECK(memcmp(out7, fx.out, sizeof out7) != 0);
    feature("seed_ignored: the right law on a uniform batch, whatever the seed");
}

/* ---- the logits variants -------------------------------------------------------- */

/* Sequence 0 greedy (d = 1), 1 sampled at T = 1 (d = 2), 2 at T = 0.7 with
 * top-k 3 (d = 1). The sampled ones draft token 1, which their own rows
 * accept for certain (q(1) = 1/3 < p(1), about .48 and .5), while the argmax
 * of their target rows is token 0. */
static void mixed_greedy_batch(ragged *r)
{
    hb_hand(r, 3, 8);
    r->input = SV_INPUT_LOGITS_F32;
    r->d[0] = 1;
    r->T[0] = 0.0;
    hb_set_logits(r->p[0][0], (const float[]){1.0f, 0.9f}, 2, -20.0f);
    hb_set_logits(r->p[0][1], (const float[]){0.0f, 2.0f}, 2, -20.0f);
    hb_set_logits(r->q[0][0], (const float[]){3.0f}, 1, 0.0f);
    r->x[0][0] = 0; /* the draft's argmax */
    r->d[1] = 2;
    for (int32_t k = 0; k <= 2; k++)
        hb_set_logits(r->p[1][k], (const float[]){1.0f, 0.9f}, 2, -20.0f);
    for (int32_t k = 0; k < 2; k++) {
        hb_set_logits(r->q[1][k], (const float[]){-20.0f, 0.0f, 0.0f, 0.0f}, 4, -20.0f);
        r->x[1][k] = 1;
    }
    r->d[2] = 1;
    r->T[2] = 0.7;
    r->top_k[2] = 3;
    hb_set_logits(r->p[2][0], (const float[]){1.0f, 1.0f}, 2, -20.0f);
    hb_set_logits(r->p[2][1], (const float[]){1.0f, 1.0f}, 2, -20.0f);
    hb_set_logits(r->q[2][0], (const float[]){-20.0f, 0.0f, 0.0f, 0.0f}, 4, -20.0f);
    r->x[2][0] = 1;
    hb_done(r);
}

/* argmax_when_mixed's rows: greedy target rows before the bonus, when the batch has a greedy one */
static hb_rule argmax_rule(const ragged *r, int32_t b, int draft, int32_t k)
{
    hb_rule u = hb_own_rule(r, b, draft, k);
    int any_greedy = 0;
    for (int32_t c = 0; c < r->B; c++)
        any_greedy |= r->T[c] == 0.0;
    if (any_greedy && !draft && k < r->d[b])
        u.T = 0.0;
    return u;
}

static void test_argmax_when_mixed(void)
{
    static ragged r, made;
    static ragged_run v;
    mixed_greedy_batch(&r);
    for (int l = 0; l < 2; l++) {
        check_logits_variant(&sv_broken_argmax_when_mixed, &r, layouts[l], argmax_rule, 0);
        CHECK(hb_run(&sv_broken_argmax_when_mixed, &r, layouts[l], &v) == SV_SAMPLER_OK);
        CHECK(hb_record_is(&r, &v, 0, 1, (const int32_t[]){0, 1})); /* greedy: right */
        CHECK(hb_record_is(&r, &v, 1, 0, (const int32_t[]){0}));    /* draft 1 != argmax 0 */
        CHECK(hb_record_is(&r, &v, 2, 0, (const int32_t[]){0}));
        made = r; /* what the correct chain does with them: both drafts of 1 accepted */
        hb_probs_from_logits(&made, hb_own_rule);
        CHECK(hb_run(&hb_correct, &made, layouts[l], &v) == SV_SAMPLER_OK);
        CHECK(v.accepted[1] == 2 && hb_y(&r, &v, 1, 0) == 1 && hb_y(&r, &v, 1, 1) == 1);
        CHECK(v.accepted[2] == 1 && hb_y(&r, &v, 2, 0) == 1);
    }
    feature("argmax_when_mixed: with a greedy sequence, sampled drafts judged by argmax");

    for (int l = 0; l < 2; l++) { /* uniform: none greedy, or all greedy */
        made = r;
        made.T[0] = 1.0;
        check_logits_variant(&sv_broken_argmax_when_mixed, &made, layouts[l], hb_own_rule, 1);
        made = r;
        made.T[1] = made.T[2] = 0.0;
        check_logits_variant(&sv_broken_argmax_when_mixed, &made, layouts[l], hb_own_rule, 1);
    }
    feature("argmax_when_mixed: all-sampled and all-greedy batches are right");
}

/* Sequence 0 has no top-p; sequence 1 top-p .5, which keeps tokens 0 and 1
 * of its target row 1 (about .37 .33 .30 over tokens 0 1 2) and 2 and 3 of
 * its draft row; its draft 2 then has p = 0 and is always rejected, but
 * with sequence 0's top-p (none) p(2) = .30 > q(2) = .27: always accepted.
 * Sequence 2 (T = .8, top-p .9) is there to be cut wrong too. */
static void top_p_batch(ragged *r)
{
    hb_hand(r, 3, 8);
    r->input = SV_INPUT_LOGITS_F32;
    r->d[0] = 1;
    hb_set_logits(r->p[0][0], (const float[]){0.5f, 0.2f, 0.1f}, 3, 0.0f);
    hb_set_logits(r->p[0][1], (const float[]){0.5f, 0.2f, 0.1f}, 3, 0.0f);
    hb_set_logits(r->q[0][0], (const float[]){0.5f, 0.2f, 0.1f}, 3, 0.0f);
    r->x[0][0] = 0;
    r->d[1] = 1;
    r->top_p[1] = 0.5;
    hb_set_logits(r->p[1][0], (const float[]){2.0f, 1.9f, 1.8f}, 3, -20.0f);
    hb_set_logits(r->p[1][1], (const float[]){0.0f}, 1, 0.0f);
    hb_set_logits(r->q[1][0], (const float[]){-20.0f, -20.0f, 1.0f, 0.9f, 0.9f, 0.9f}, 6, -20.0f);
    r->x[1][0] = 2;
    r->d[2] = 2;
    r->T[2] = 0.8;
    r->top_p[2] = 0.9;
    for (int32_t k = 0; k <= 2; k++)
        hb_set_logits(r->p[2][k], (const float[]){1.0f, 0.5f, 0.2f, 0.1f}, 4, -1.0f);
    for (int32_t k = 0; k < 2; k++) {
        hb_set_logits(r->q[2][k], (const float[]){0.2f, 1.0f, 0.5f}, 3, -1.0f);
        r->x[2][k] = 1;
    }
    hb_done(r);
}

static hb_rule top_p_rule(const ragged *r, int32_t b, int draft, int32_t k)
{
    hb_rule u = hb_own_rule(r, b, draft, k);
    u.top_p = r->top_p[0];
    return u;
}

static void test_top_p_from_first(void)
{
    static ragged r, made;
    static ragged_run v;
    top_p_batch(&r);
    for (int l = 0; l < 2; l++) {
        check_logits_variant(&sv_broken_top_p_from_first, &r, layouts[l], top_p_rule, 0);
        CHECK(hb_run(&sv_broken_top_p_from_first, &r, layouts[l], &v) == SV_SAMPLER_OK);
        CHECK(v.accepted[1] == 1 && hb_y(&r, &v, 1, 0) == 2); /* outside its own nucleus */
        made = r;
        hb_probs_from_logits(&made, hb_own_rule);
        CHECK(hb_run(&hb_correct, &made, layouts[l], &v) == SV_SAMPLER_OK);
        CHECK(v.accepted[1] == 0 && (hb_y(&r, &v, 1, 0) == 0 || hb_y(&r, &v, 1, 0) == 1));
    }
    feature("top_p_from_first: sequence 1 cut with sequence 0's top-p accepts a token outside "
            "its nucleus");

    for (int l = 0; l < 2; l++) { /* uniform: one top-p for all */
        made = r;
        made.top_p[0] = made.top_p[2] = 0.5;
        check_logits_variant(&sv_broken_top_p_from_first, &made, layouts[l], hb_own_rule, 1);
    }
    feature("top_p_from_first: one top-p for the batch is right");
}

/* Sequences 0-4 greedy (d = 1 2 0 1 2), drafting token 0, the argmax of
 * both their rows; at T = 1 their target rows give token 0 about .14 and
 * their draft rows .51, so a draft of 0 passes with about .27. Sequence 5
 * samples at T = 1. */
static void greedy_batch(ragged *r)
{
    static const int32_t d[6] = {1, 2, 0, 1, 2, 1};
    hb_hand(r, 6, 8);
    r->input = SV_INPUT_LOGITS_F32;
    for (int32_t b = 0; b < 6; b++) {
        r->d[b] = d[b];
        r->T[b] = b < 5 ? 0.0 : 1.0;
        for (int32_t k = 0; k <= d[b]; k++)
            hb_set_logits(r->p[b][k], (const float[]){0.1f}, 1, 0.0f);
        for (int32_t k = 0; k < d[b]; k++) {
            hb_set_logits(r->q[b][k], (const float[]){2.0f}, 1, 0.0f);
            r->x[b][k] = 0;
        }
    }
    hb_done(r);
}

static hb_rule greedy_rule(const ragged *r, int32_t b, int draft, int32_t k)
{
    hb_rule u = hb_own_rule(r, b, draft, k);
    int any_random = 0;
    for (int32_t c = 0; c < r->B; c++)
        any_random |= r->T[c] > 0.0;
    if (any_random && u.T == 0.0)
        u.T = 1.0;
    return u;
}

/* 1 if every greedy sequence emitted `token` at every slot up to its n. */
static int greedy_kept(const ragged *r, const ragged_run *run, int32_t token)
{
    int kept = 1;
    for (int32_t b = 0; b < r->B; b++)
        for (int32_t k = 0; r->T[b] == 0.0 && k <= run->accepted[b]; k++)
            kept &= hb_y(r, run, b, k) == token;
    return kept;
}

static void test_greedy_sampled_when_mixed(void)
{
    static ragged r;
    static ragged_run v;
    greedy_batch(&r);
    for (int l = 0; l < 2; l++) {
        check_logits_variant(&sv_broken_greedy_sampled_when_mixed, &r, layouts[l], greedy_rule,
                             0);
        CHECK(hb_run(&sv_broken_greedy_sampled_when_mixed, &r, layouts[l], &v) ==
              SV_SAMPLER_OK);
        CHECK(!greedy_kept(&r, &v, 0));
    }
    feature("greedy_sampled_when_mixed: beside a random sequence, greedy ones leave the argmax");

    r.T[5] = 0.0; /* uniform: all greedy */
    for (int l = 0; l < 2; l++) {
        check_logits_variant(&sv_broken_greedy_sampled_when_mixed, &r, layouts[l], hb_own_rule, 1);
        CHECK(hb_run(&sv_broken_greedy_sampled_when_mixed, &r, layouts[l], &v) ==
              SV_SAMPLER_OK);
        CHECK(greedy_kept(&r, &v, 0));
        for (int32_t b = 0; b < 6; b++)
            CHECK(v.accepted[b] == r.d[b]);
    }
    feature("greedy_sampled_when_mixed: an all-greedy batch is exactly greedy");
}

/* ---- what each declares; the logits variants on probs input --------------------- */

static void test_declarations(void)
{
    const sv_sampler *probs_variants[] = {&sv_broken_packed_offset, &sv_broken_outputs_swapped,
                                          &sv_broken_seed_ignored};
    const sv_sampler *logits_variants[] = {&sv_broken_argmax_when_mixed,
                                           &sv_broken_top_p_from_first,
                                           &sv_broken_greedy_sampled_when_mixed};
    const uint32_t both = SV_LAYOUT_BIT(SV_LAYOUT_PADDED) | SV_LAYOUT_BIT(SV_LAYOUT_PACKED);
    const uint32_t logits = SV_INPUT_BIT(SV_INPUT_LOGITS_F32) | SV_INPUT_BIT(SV_INPUT_LOGITS_BF16);
    for (int i = 0; i < 3; i++) {
        CHECK(probs_variants[i]->layouts == both && probs_variants[i]->inputs == 0);
        CHECK(logits_variants[i]->layouts == both && logits_variants[i]->inputs == logits);
    }
    CHECK(sv_broken_draft_stride_from_target.layouts == SV_LAYOUT_BIT(SV_LAYOUT_PADDED));
    feature("the variants' layouts and inputs: the packed-only bug still takes both layouts");

    /* probabilities from ragged_random, with a greedy sequence and a top-p
     * that mean nothing to probs input */
    static ragged r;
    static ragged_run v, w;
    ragged_random(&r, 12, 4, 32, SV_INPUT_PROBS, 0, 5);
    r.T[0] = 0.0;
    r.top_p[1] = 0.3;
    for (int l = 0; l < 2; l++) {
        CHECK(hb_run(&hb_correct, &r, layouts[l], &w) == SV_SAMPLER_OK);
        for (int i = 0; i < 3; i++) {
            CHECK(hb_run(logits_variants[i], &r, layouts[l], &v) == SV_SAMPLER_OK);
            CHECK(hb_same_outputs(&v, &w));
        }
    }
    feature("the logits variants on probs input are the correct chain");
}

/* The logits variants make a row once per verify call where sequences share
 * it (stride 0); the next call, on the same buffers rewritten, makes it again. */
static void test_rows_made_per_call(void)
{
    static ragged r;
    static ragged_run v, w;
    void *state = NULL;
    sv_limits limits = {.max_B = RB_MAXB, .max_K = RB_MAXK, .max_V = RB_MAXV};
    const sv_sampler *s = &sv_broken_greedy_sampled_when_mixed;
    CHECK(s->init(&state, &limits) == SV_SAMPLER_OK);
    greedy_batch(&r);
    for (int32_t b = 0; b < r.B; b++) { /* all greedy, d = 2: argmax 0 everywhere */
        r.d[b] = 2;
        r.T[b] = 0.0;
        memcpy(r.p[b], r.p[1], sizeof r.p[b]);
        memcpy(r.q[b], r.q[1], sizeof r.q[b]);
        memcpy(r.x[b], r.x[1], sizeof r.x[b]);
    }
    hb_done(&r);
    ragged_lay_out(&r, SV_LAYOUT_PADDED, &v);
    v.bt.target_stride = v.bt.draft_stride = 0; /* sequence 0's rows for all */
    CHECK(s->verify(state, &v.bt) == SV_SAMPLER_OK);
    CHECK(greedy_kept(&r, &v, 0));
    for (int32_t b = 0; b < r.B; b++) { /* now the argmax is 1, and so are the drafts */
        for (int32_t k = 0; k <= 2; k++)
            hb_set_logits(r.p[b][k], (const float[]){0.0f, 0.1f}, 2, 0.0f);
        for (int32_t k = 0; k < 2; k++) {
            hb_set_logits(r.q[b][k], (const float[]){0.0f, 2.0f}, 2, 0.0f);
            r.x[b][k] = 1;
        }
    }
    ragged_lay_out(&r, SV_LAYOUT_PADDED, &v); /* the same buffers, rewritten */
    v.bt.target_stride = v.bt.draft_stride = 0;
    CHECK(s->verify(state, &v.bt) == SV_SAMPLER_OK);
    s->destroy(state);
    ragged_lay_out(&r, SV_LAYOUT_PADDED, &w);
    w.bt.target_stride = w.bt.draft_stride = 0;
    CHECK(ragged_call(s, &w) == SV_SAMPLER_OK); /* a fresh state */
    CHECK(hb_same_outputs(&v, &w));
    CHECK(greedy_kept(&r, &v, 1));
    for (int32_t b = 0; b < r.B; b++)
        CHECK(v.accepted[b] == 2);
    feature("logits variants: rows made once per call are made again in the next");
}

int main(void)
{
    test_packed_offset();
    test_draft_stride();
    test_outputs_swapped();
    test_seed_ignored();
    test_argmax_when_mixed();
    test_top_p_from_first();
    test_greedy_sampled_when_mixed();
    test_declarations();
    test_rows_made_per_call();
    return check_exit();
}
