/* test_broken_batches.c: the broken variants of issue 25 on hand-built
 * contract v3 batches (batch_fixture.h): for each, a batch of sequences with
 * their own rows, drafts, d_b and rule on which it differs from the correct
 * chain exactly where its bug is (rows chosen so that every token in
 * question is certain), and a uniform batch on which it agrees, which is why
 * the uniform batches of contract v2 never caught it.
 *
 * Everything runs at fixed seeds, so the program is deterministic; the one
 * frequency comparison (seed_ignored's bonus law) allows 6 binomial standard
 * deviations. */
#include <string.h>
#include "batch_fixture.h"
#include "check.h"
#include "row_fixture.h"
#include "sv_registry.h"

static const int layouts[2] = {SV_LAYOUT_PADDED, SV_LAYOUT_PACKED};

/* 1 if sequence b emitted y[0..n] and then -1 up to its slot d_b, with count n. */
static int record_is(const bf_batch *f, int32_t b, int32_t n, const int32_t *y)
{
    if (bf_n(f, b) != n)
        return 0;
    for (int32_t k = 0; k <= f->s[b].d; k++)
        if (bf_y(f, b, k) != (k <= n ? y[k] : -1))
            return 0;
    return 1;
}

/* Three sequences with d = 2, 0, 1 and one-hot target rows e_1 e_2 e_3 | e_4
 * | e_5 e_6, uniform draft rows, drafts its own rows accept: the correct
 * chain emits (1 2 3) n = 2 | (4) n = 0 | (5 6) n = 1, whatever its numbers. */
static void one_hot_batch(bf_batch *f)
{
    static const int32_t d[3] = {2, 0, 1};
    bf_clear(f, 3, 8);
    int32_t t = 1;
    for (int32_t b = 0; b < 3; b++) {
        bf_seq *s = &f->s[b];
        s->d = d[b];
        for (int32_t k = 0; k <= s->d; k++)
            bf_one_hot(s->p[k], 8, t + k);
        for (int32_t k = 0; k < s->d; k++) {
            bf_uniform(s->q[k], 8);
            s->x[k] = t + k;
        }
        t += s->d + 1;
    }
}

static void check_one_hot_correct(const bf_batch *g)
{
    CHECK(record_is(g, 0, 2, (const int32_t[]){1, 2, 3}));
    CHECK(record_is(g, 1, 0, (const int32_t[]){4}));
    CHECK(record_is(g, 2, 1, (const int32_t[]){5, 6}));
}

/* A row of weights w over 8 tokens, normalized. */
static void set_row(float *row, const float *w)
{
    float sum = 0.0f;
    for (int32_t i = 0; i < 8; i++)
        sum += w[i];
    for (int32_t i = 0; i < 8; i++)
        row[i] = w[i] / sum;
}

/* B sequences of 8 tokens whose outputs are random: target rows
 * .3 .2 .1 .1 .1 .1 .05 .05, uniform draft rows, drafts 0 1 ..., d[b] drafts. */
static void random_batch(bf_batch *f, int32_t B, const int32_t *d)
{
    static const float p[8] = {0.3f, 0.2f, 0.1f, 0.1f, 0.1f, 0.1f, 0.05f, 0.05f};
    bf_clear(f, B, 8);
    for (int32_t b = 0; b < B; b++) {
        bf_seq *s = &f->s[b];
        s->d = d[b];
        for (int32_t k = 0; k <= s->d; k++)
            set_row(s->p[k], p);
        for (int32_t k = 0; k < s->d; k++) {
            bf_uniform(s->q[k], 8);
            s->x[k] = k % 8;
        }
    }
}

/* A logits row: logits l[0..n) then `rest` for the other tokens of 8. */
static void set_logits(float *row, const float *l, int32_t n, float rest)
{
    for (int32_t i = 0; i < 8; i++)
        row[i] = i < n ? l[i] : rest;
}

/* The variant on the logits batch f equals the correct chain on f's rows
 * made by `rule` (the rows its bug makes) and, unless same_as_own, differs
 * from the correct chain on f's rows made by each sequence's own rule. */
static void check_logits_variant(const sv_sampler *variant, const bf_batch *f, bf_rule_fn *rule,
                                 int same_as_own)
{
    static bf_batch v, bug, own;
    v = bug = own = *f;
    CHECK(bf_run(variant, &v) == SV_SAMPLER_OK);
    bf_probs_from_logits(&bug, rule);
    CHECK(bf_run(&bf_correct_chain, &bug) == SV_SAMPLER_OK);
    CHECK(bf_same_outputs(&v, &bug));
    bf_probs_from_logits(&own, bf_own_rule);
    CHECK(bf_run(&bf_correct_chain, &own) == SV_SAMPLER_OK);
    CHECK(bf_same_outputs(&v, &own) == same_as_own);
}

/* ---- packed_offset, draft_stride_from_target, outputs_swapped ---------------- */

static void test_packed_offset(void)
{
    static bf_batch f, g;
    one_hot_batch(&f);
    f.layout = SV_LAYOUT_PACKED;
    g = f;
    CHECK(bf_run(&bf_correct_chain, &g) == SV_SAMPLER_OK);
    check_one_hot_correct(&g);
    CHECK(bf_run(&sv_broken_packed_offset, &f) == SV_SAMPLER_OK);
    /* sequence 0 reads from row cu[1] + 0 = 2, its bonus row e_3: draft 1 rejected, 3 emitted */
    CHECK(record_is(&f, 0, 0, (const int32_t[]){3}));
    /* d = 0: its own bonus row, right */
    CHECK(bf_same_record(&f, 1, &g, 1));
    /* sequence 2 reads its bonus row e_6, then past the buffer its last row, e_6 again */
    CHECK(record_is(&f, 2, 0, (const int32_t[]){6}));
    feature("packed_offset: packed rows from cu[b+1] + b: the bonus row first, then the next "
            "sequence's");

    /* the same ragged batch padded: no prefix sums, exactly the correct chain */
    one_hot_batch(&f);
    g = f;
    CHECK(bf_run(&sv_broken_packed_offset, &f) == SV_SAMPLER_OK);
    CHECK(bf_run(&bf_correct_chain, &g) == SV_SAMPLER_OK);
    CHECK(bf_same_outputs(&f, &g));
    check_one_hot_correct(&f);
    feature("packed_offset: a padded batch (every uniform batch was) is verified right");
}

/* Rows for draft_stride_from_target (padded, K = 3): sequence 1's draft 1
 * and sequence 2's have p = 0 and are rejected; the residual max(p_1 - q, 0)
 * then names the draft row read. Own rows give 2 and 4; the rows at
 * b * (K+1) V (sequence 1's row 2; past the buffer for sequence 2, which
 * then reads the last row, its own row 3) give 1 and 3. */
static void stride_batch(bf_batch *f)
{
    bf_clear(f, 3, 8);
    bf_seq *s = f->s;
    s[0].d = 1;
    bf_one_hot(s[0].p[0], 8, 5);
    bf_one_hot(s[0].p[1], 8, 6);
    bf_uniform(s[0].q[0], 8);
    s[0].x[0] = 5;
    s[1].d = 2;
    set_row(s[1].p[0], (const float[]){0, 1, 1, 0, 0, 0, 0, 0});
    bf_uniform(s[1].p[1], 8);
    bf_uniform(s[1].p[2], 8);
    set_row(s[1].q[0], (const float[]){1, 1, 0, 0, 0, 0, 0, 0});
    set_row(s[1].q[1], (const float[]){1, 0, 1, 0, 0, 0, 0, 0});
    s[2].d = 3;
    set_row(s[2].p[0], (const float[]){0, 0, 0, 1, 1, 0, 0, 0});
    for (int32_t k = 1; k <= 3; k++)
        bf_uniform(s[2].p[k], 8);
    set_row(s[2].q[0], (const float[]){1, 0, 0, 1, 0, 0, 0, 0});
    bf_uniform(s[2].q[1], 8);
    set_row(s[2].q[2], (const float[]){1, 0, 0, 0, 1, 0, 0, 0});
}

static void test_draft_stride(void)
{
    static bf_batch f, g;
    stride_batch(&f);
    g = f;
    CHECK(bf_run(&bf_correct_chain, &g) == SV_SAMPLER_OK);
    CHECK(record_is(&g, 0, 1, (const int32_t[]){5, 6}));
    CHECK(record_is(&g, 1, 0, (const int32_t[]){2}));
    CHECK(record_is(&g, 2, 0, (const int32_t[]){4}));
    CHECK(bf_run(&sv_broken_draft_stride_from_target, &f) == SV_SAMPLER_OK);
    CHECK(bf_same_record(&f, 0, &g, 0)); /* sequence 0: offset 0 either way */
    CHECK(record_is(&f, 1, 0, (const int32_t[]){1}));
    CHECK(record_is(&f, 2, 0, (const int32_t[]){3}));
    feature("draft_stride_from_target: draft rows at b (K+1) V give another residual");

    /* packed: no strides, right; the version 2 shape (stride 0 for target
     * and draft, one row set for all): the wrong stride is 0 too */
    stride_batch(&f);
    f.layout = SV_LAYOUT_PACKED;
    g = f;
    CHECK(bf_run(&sv_broken_draft_stride_from_target, &f) == SV_SAMPLER_OK);
    CHECK(bf_run(&bf_correct_chain, &g) == SV_SAMPLER_OK);
    CHECK(bf_same_outputs(&f, &g));
    stride_batch(&f);
    f.s[0] = f.s[1] = f.s[2];
    f.broadcast = 1;
    g = f;
    CHECK(bf_run(&sv_broken_draft_stride_from_target, &f) == SV_SAMPLER_OK);
    CHECK(bf_run(&bf_correct_chain, &g) == SV_SAMPLER_OK);
    CHECK(bf_same_outputs(&f, &g) && record_is(&f, 1, 0, (const int32_t[]){4}));
    feature("draft_stride_from_target: right in the packed layout and on broadcast rows");
}

static void test_outputs_swapped(void)
{
    static bf_batch f, g;
    enum { U = BF_UNTOUCHED };
    /* padded, K = 2: slot 0 gets sequence 1's record (4), sequence 0's own
     * later slots are left as they were; sequence 1's slots get (1 2 3),
     * two past its d = 0; sequence 2 has no partner */
    static const int32_t padded[9] = {4, U, U, 1, 2, 3, 5, 6, U};
    /* packed: sequence 0's record written at sequence 1's slot 3 runs over
     * sequence 2's, which then writes its own there */
    static const int32_t packed[6] = {4, U, U, 1, 5, 6};
    for (int l = 0; l < 2; l++) {
        one_hot_batch(&f);
        f.layout = layouts[l];
        g = f;
        CHECK(bf_run(&bf_correct_chain, &g) == SV_SAMPLER_OK);
        check_one_hot_correct(&g);
        CHECK(bf_run(&sv_broken_outputs_swapped, &f) == SV_SAMPLER_OK);
        CHECK(memcmp(f.out, l ? packed : padded, (l ? 6 : 9) * sizeof *f.out) == 0);
        CHECK(f.accepted[0] == 0 && f.accepted[1] == 2 && f.accepted[2] == 1);
    }
    feature("outputs_swapped: records land in the partner's slots, in both layouts");

    /* one case, the same drafts for all: slot b holds what the correct
     * chain gives sequence b ^ 1, so the tally is the same, permuted */
    static const int32_t d[8] = {2, 2, 2, 2, 2, 2, 2, 2};
    random_batch(&f, 8, d);
    g = f;
    CHECK(bf_run(&sv_broken_outputs_swapped, &f) == SV_SAMPLER_OK);
    CHECK(bf_run(&bf_correct_chain, &g) == SV_SAMPLER_OK);
    for (int32_t b = 0; b < 8; b++)
        CHECK(bf_same_record(&f, b, &g, b ^ 1));
    CHECK(!bf_same_outputs(&f, &g)); /* and it did move something */
    feature("outputs_swapped: on a uniform batch a permutation of the correct outputs");
}

/* ---- seed_ignored ------------------------------------------------------------ */

static void test_seed_ignored(void)
{
    static bf_batch f1, f2, g1, g2;
    static const int32_t d[6] = {2, 1, 0, 2, 1, 2};
    for (int l = 0; l < 2; l++) {
        random_batch(&f1, 6, d);
        f1.layout = layouts[l];
        f2 = f1;
        for (int32_t b = 0; b < 6; b++) {
            f1.s[b].seed = 11 + (uint64_t)b;
            f2.s[b].seed = 1000 + (uint64_t)b;
        }
        g1 = f1;
        g2 = f2;
        CHECK(bf_run(&sv_broken_seed_ignored, &f1) == SV_SAMPLER_OK);
        CHECK(bf_run(&sv_broken_seed_ignored, &f2) == SV_SAMPLER_OK);
        CHECK(bf_same_outputs(&f1, &f2));
        CHECK(bf_run(&bf_correct_chain, &g1) == SV_SAMPLER_OK);
        CHECK(bf_run(&bf_correct_chain, &g2) == SV_SAMPLER_OK);
        CHECK(!bf_same_outputs(&g1, &g2));
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
static void mixed_greedy_batch(bf_batch *f, int layout)
{
    bf_clear(f, 3, 8);
    f->layout = layout;
    f->logits = 1;
    bf_seq *s = f->s;
    s[0].d = 1;
    s[0].T = 0.0;
    set_logits(s[0].p[0], (const float[]){1.0f, 0.9f}, 2, -20.0f);
    set_logits(s[0].p[1], (const float[]){0.0f, 2.0f}, 2, -20.0f);
    set_logits(s[0].q[0], (const float[]){3.0f}, 1, 0.0f);
    s[0].x[0] = 0; /* the draft's argmax */
    s[1].d = 2;
    for (int32_t k = 0; k <= 2; k++)
        set_logits(s[1].p[k], (const float[]){1.0f, 0.9f}, 2, -20.0f);
    for (int32_t k = 0; k < 2; k++) {
        set_logits(s[1].q[k], (const float[]){-20.0f, 0.0f, 0.0f, 0.0f}, 4, -20.0f);
        s[1].x[k] = 1;
    }
    s[2].d = 1;
    s[2].T = 0.7;
    s[2].top_k = 3;
    set_logits(s[2].p[0], (const float[]){1.0f, 1.0f}, 2, -20.0f);
    set_logits(s[2].p[1], (const float[]){1.0f, 1.0f}, 2, -20.0f);
    set_logits(s[2].q[0], (const float[]){-20.0f, 0.0f, 0.0f, 0.0f}, 4, -20.0f);
    s[2].x[0] = 1;
}

/* argmax_when_mixed's rows: greedy target rows before the bonus, when the batch has a greedy one */
static bf_rule argmax_rule(const bf_batch *f, int32_t b, int draft, int32_t k)
{
    bf_rule r = bf_own_rule(f, b, draft, k);
    int any_greedy = 0;
    for (int32_t c = 0; c < f->B; c++)
        any_greedy |= f->s[c].T == 0.0;
    if (any_greedy && !draft && k < f->s[b].d)
        r.T = 0.0;
    return r;
}

static void test_argmax_when_mixed(void)
{
    static bf_batch f, v;
    for (int l = 0; l < 2; l++) {
        mixed_greedy_batch(&f, layouts[l]);
        check_logits_variant(&sv_broken_argmax_when_mixed, &f, argmax_rule, 0);
        v = f;
        CHECK(bf_run(&sv_broken_argmax_when_mixed, &v) == SV_SAMPLER_OK);
        CHECK(record_is(&v, 0, 1, (const int32_t[]){0, 1})); /* greedy: right */
        CHECK(record_is(&v, 1, 0, (const int32_t[]){0}));    /* draft 1 != argmax 0 */
        CHECK(record_is(&v, 2, 0, (const int32_t[]){0}));
        v = f; /* what the correct chain does with them: both drafts of 1 accepted */
        bf_probs_from_logits(&v, bf_own_rule);
        CHECK(bf_run(&bf_correct_chain, &v) == SV_SAMPLER_OK);
        CHECK(bf_n(&v, 1) == 2 && bf_y(&v, 1, 0) == 1 && bf_y(&v, 1, 1) == 1);
        CHECK(bf_n(&v, 2) == 1 && bf_y(&v, 2, 0) == 1);
    }
    feature("argmax_when_mixed: with a greedy sequence, sampled drafts judged by argmax");

    for (int l = 0; l < 2; l++) { /* uniform: none greedy, or all greedy */
        mixed_greedy_batch(&f, layouts[l]);
        f.s[0].T = 1.0;
        check_logits_variant(&sv_broken_argmax_when_mixed, &f, bf_own_rule, 1);
        mixed_greedy_batch(&f, layouts[l]);
        f.s[1].T = f.s[2].T = 0.0;
        check_logits_variant(&sv_broken_argmax_when_mixed, &f, bf_own_rule, 1);
    }
    feature("argmax_when_mixed: all-sampled and all-greedy batches are right");
}

/* Sequence 0 has no top-p; sequence 1 top-p .5, which keeps tokens 0 and 1
 * of its target row 1 (about .37 .33 .30 over tokens 0 1 2) and 2 and 3 of
 * its draft row; its draft 2 then has p = 0 and is always rejected, but
 * with sequence 0's top-p (none) p(2) = .30 > q(2) = .27: always accepted.
 * Sequence 2 (T = .8, top-p .9) is there to be cut wrong too. */
static void top_p_batch(bf_batch *f, int layout)
{
    bf_clear(f, 3, 8);
    f->layout = layout;
    f->logits = 1;
    bf_seq *s = f->s;
    s[0].d = 1;
    set_logits(s[0].p[0], (const float[]){0.5f, 0.2f, 0.1f}, 3, 0.0f);
    set_logits(s[0].p[1], (const float[]){0.5f, 0.2f, 0.1f}, 3, 0.0f);
    set_logits(s[0].q[0], (const float[]){0.5f, 0.2f, 0.1f}, 3, 0.0f);
    s[0].x[0] = 0;
    s[1].d = 1;
    s[1].top_p = 0.5;
    set_logits(s[1].p[0], (const float[]){2.0f, 1.9f, 1.8f}, 3, -20.0f);
    set_logits(s[1].p[1], (const float[]){0.0f}, 1, 0.0f);
    set_logits(s[1].q[0], (const float[]){-20.0f, -20.0f, 1.0f, 0.9f, 0.9f, 0.9f}, 6, -20.0f);
    s[1].x[0] = 2;
    s[2].d = 2;
    s[2].T = 0.8;
    s[2].top_p = 0.9;
    for (int32_t k = 0; k <= 2; k++)
        set_logits(s[2].p[k], (const float[]){1.0f, 0.5f, 0.2f, 0.1f}, 4, -1.0f);
    for (int32_t k = 0; k < 2; k++) {
        set_logits(s[2].q[k], (const float[]){0.2f, 1.0f, 0.5f}, 3, -1.0f);
        s[2].x[k] = 1;
    }
}

static bf_rule top_p_rule(const bf_batch *f, int32_t b, int draft, int32_t k)
{
    bf_rule r = bf_own_rule(f, b, draft, k);
    r.top_p = f->s[0].top_p;
    return r;
}

static void test_top_p_from_first(void)
{
    static bf_batch f, v;
    for (int l = 0; l < 2; l++) {
        top_p_batch(&f, layouts[l]);
        check_logits_variant(&sv_broken_top_p_from_first, &f, top_p_rule, 0);
        v = f;
        CHECK(bf_run(&sv_broken_top_p_from_first, &v) == SV_SAMPLER_OK);
        CHECK(bf_n(&v, 1) == 1 && bf_y(&v, 1, 0) == 2); /* outside its own nucleus */
        v = f;
        bf_probs_from_logits(&v, bf_own_rule);
        CHECK(bf_run(&bf_correct_chain, &v) == SV_SAMPLER_OK);
        CHECK(bf_n(&v, 1) == 0 && (bf_y(&v, 1, 0) == 0 || bf_y(&v, 1, 0) == 1));
    }
    feature("top_p_from_first: sequence 1 cut with sequence 0's top-p accepts a token outside "
            "its nucleus");

    for (int l = 0; l < 2; l++) { /* uniform: one top-p for all */
        top_p_batch(&f, layouts[l]);
        f.s[0].top_p = f.s[2].top_p = 0.5;
        check_logits_variant(&sv_broken_top_p_from_first, &f, bf_own_rule, 1);
    }
    feature("top_p_from_first: one top-p for the batch is right");
}

/* Sequences 0-4 greedy (d = 1 2 0 1 2), drafting token 0, the argmax of
 * both their rows; at T = 1 their target rows give token 0 about .14 and
 * their draft rows .51, so a draft of 0 passes with about .27. Sequence 5
 * samples at T = 1. */
static void greedy_batch(bf_batch *f, int layout)
{
    static const int32_t d[6] = {1, 2, 0, 1, 2, 1};
    bf_clear(f, 6, 8);
    f->layout = layout;
    f->logits = 1;
    for (int32_t b = 0; b < 6; b++) {
        bf_seq *s = &f->s[b];
        s->d = d[b];
        s->T = b < 5 ? 0.0 : 1.0;
        for (int32_t k = 0; k <= s->d; k++)
            set_logits(s->p[k], (const float[]){0.1f}, 1, 0.0f);
        for (int32_t k = 0; k < s->d; k++) {
            set_logits(s->q[k], (const float[]){2.0f}, 1, 0.0f);
            s->x[k] = 0;
        }
    }
}

static bf_rule greedy_rule(const bf_batch *f, int32_t b, int draft, int32_t k)
{
    bf_rule r = bf_own_rule(f, b, draft, k);
    int any_random = 0;
    for (int32_t c = 0; c < f->B; c++)
        any_random |= f->s[c].T > 0.0;
    if (any_random && r.T == 0.0)
        r.T = 1.0;
    return r;
}

/* 1 if every greedy sequence of v emitted token 0 at every slot up to n. */
static int greedy_kept(const bf_batch *v)
{
    int kept = 1;
    for (int32_t b = 0; b < v->B; b++)
        for (int32_t k = 0; v->s[b].T == 0.0 && k <= bf_n(v, b); k++)
            kept &= bf_y(v, b, k) == 0;
    return kept;
}

static void test_greedy_sampled_when_mixed(void)
{
    static bf_batch f, v;
    for (int l = 0; l < 2; l++) {
        greedy_batch(&f, layouts[l]);
        check_logits_variant(&sv_broken_greedy_sampled_when_mixed, &f, greedy_rule, 0);
        v = f;
        CHECK(bf_run(&sv_broken_greedy_sampled_when_mixed, &v) == SV_SAMPLER_OK);
        CHECK(!greedy_kept(&v));
    }
    feature("greedy_sampled_when_mixed: beside a random sequence, greedy ones leave the argmax");

    for (int l = 0; l < 2; l++) { /* uniform: all greedy */
        greedy_batch(&f, layouts[l]);
        f.s[5].T = 0.0;
        check_logits_variant(&sv_broken_greedy_sampled_when_mixed, &f, bf_own_rule, 1);
        v = f;
        CHECK(bf_run(&sv_broken_greedy_sampled_when_mixed, &v) == SV_SAMPLER_OK);
        CHECK(greedy_kept(&v));
        for (int32_t b = 0; b < 6; b++)
            CHECK(bf_n(&v, b) == v.s[b].d);
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

    static bf_batch f, g;
    static const int32_t d[5] = {2, 0, 1, 2, 1};
    for (int l = 0; l < 2; l++) {
        random_batch(&f, 5, d);
        f.layout = layouts[l];
        f.s[0].T = 0.0; /* a greedy sequence, a top-p: neither means anything to probs */
        f.s[1].top_p = 0.3;
        g = f;
        CHECK(bf_run(&bf_correct_chain, &g) == SV_SAMPLER_OK);
        for (int i = 0; i < 3; i++) {
            CHECK(bf_run(logits_variants[i], &f) == SV_SAMPLER_OK);
            CHECK(bf_same_outputs(&f, &g));
        }
    }
    feature("the logits variants on probs input are the correct chain");
}

/* The logits variants make a row once per verify call where sequences share
 * it (stride 0); the next call, on the same buffers rewritten, makes it again. */
static void test_rows_made_per_call(void)
{
    static bf_batch f, g;
    void *state = NULL;
    sv_limits limits = {BF_B, BF_K, BF_V};
    const sv_sampler *s = &sv_broken_greedy_sampled_when_mixed;
    CHECK(s->init(&state, &limits) == SV_SAMPLER_OK);
    greedy_batch(&f, SV_LAYOUT_PADDED);
    f.broadcast = 1; /* sequence 0's rows for all */
    for (int32_t b = 0; b < f.B; b++) {
        f.s[b] = f.s[1]; /* all greedy, d = 2: argmax 0 everywhere */
        f.s[b].index = 100 + (uint64_t)b;
    }
    bf_lay_out(&f);
    CHECK(s->verify(state, &f.bt) == SV_SAMPLER_OK);
    CHECK(greedy_kept(&f));
    for (int32_t b = 0; b < f.B; b++) { /* now the argmax is 1, and so are the drafts */
        for (int32_t k = 0; k <= f.s[b].d; k++)
            set_logits(f.s[b].p[k], (const float[]){0.0f, 0.1f}, 2, 0.0f);
        for (int32_t k = 0; k < f.s[b].d; k++) {
            set_logits(f.s[b].q[k], (const float[]){0.0f, 2.0f}, 2, 0.0f);
            f.s[b].x[k] = 1;
        }
    }
    g = f;
    bf_lay_out(&f);
    CHECK(s->verify(state, &f.bt) == SV_SAMPLER_OK);
    s->destroy(state);
    CHECK(bf_run(s, &g) == SV_SAMPLER_OK); /* a fresh state */
    CHECK(bf_same_outputs(&f, &g));
    for (int32_t b = 0; b < f.B; b++)
        CHECK(bf_n(&f, b) == f.s[b].d && bf_y(&f, b, 0) == 1);
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
