/* test_rules.c: the rules beyond the chain (contract version 5), one
 * deterministic fact each: ref_exact and ref_block give every sequence of a
 * ragged batch what it gets alone, in both layouts; ref_block with one
 * draft is ref, token for token; block verification with q = p accepts
 * every draft; exact match on one-hot rows emits what the rows force; and
 * the harness hands an exact-match sampler no draft rows. The statistics
 * (each rule's law) are the suites' (tests/CMakeLists.txt). */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "ragged_batch.h"
#include "rules.h"
#include "suite_config.h"
#include "sv_check.h"
#include "sv_registry.h"

static ragged r; /* large: not on the stack */
static ragged_run run_a, run_b;

static void both_layouts_agree(void)
{
    for (uint64_t seed = 1; seed <= 8; seed++) {
        ragged_random(&r, 24, 6, 64, SV_INPUT_PROBS, (int)(seed & 1), seed);
        CHECK(ragged_agrees(&sv_sampler_ref_exact, &r, 0));
        CHECK(ragged_agrees(&sv_sampler_ref_block, &r, 0));
    }
    feature("ref_exact and ref_block: each sequence of a ragged batch as alone, padded and packed");
}

/* With at most one draft, block verification is the chain rule, and
 * ref_block draws as ref draws (block_rule.c). */
static void one_draft_is_ref(void)
{
    uint64_t compared = 0;
    for (uint64_t seed = 1; seed <= 40; seed++) {
        ragged_random(&r, 32, 1, 64, SV_INPUT_PROBS, (int)(seed % 3 == 0), seed);
        ragged_lay_out(&r, SV_LAYOUT_PADDED, &run_a);
        ragged_lay_out(&r, SV_LAYOUT_PADDED, &run_b);
        CHECK(ragged_call(&sv_sampler_ref_block, &run_a) == SV_SAMPLER_OK);
        CHECK(ragged_call(&sv_sampler_ref, &run_b) == SV_SAMPLER_OK);
        for (int32_t b = 0; b < r.B; b++) {
            const int32_t *ya = ragged_out(&r, &run_a, b), *yb = ragged_out(&r, &run_b, b);
            CHECK(run_a.accepted[b] == run_b.accepted[b]);
            for (int32_t k = 0; k <= r.d[b]; k++)
                CHECK(ya[k] == yb[k]);
            compared++;
        }
    }
    CHECK(compared == 40 * 32);
    feature("ref_block with one draft is ref, token for token");
}

/* q = p and drafts of positive mass: every joint weight is 1 and every h_i
 * is 1 (0/0 read as 1), so every draft is accepted and the bonus drawn. */
static void same_rows_accept_all(void)
{
    ragged_random(&r, 24, 6, 64, SV_INPUT_PROBS, 0, 99);
    for (int32_t b = 0; b < r.B; b++)
        for (int32_t k = 0; k < r.d[b]; k++) {
            memcpy(r.q[b][k], r.p[b][k], sizeof r.q[b][k]);
            int32_t top = 0;
            for (int32_t i = 1; i < r.V; i++)
                top = r.p[b][k][i] > r.p[b][k][top] ? i : top;
            r.x[b][k] = top;
        }
    ragged_lay_out(&r, SV_LAYOUT_PACKED, &run_a);
    CHECK(ragged_call(&sv_sampler_ref_block, &run_a) == SV_SAMPLER_OK);
    for (int32_t b = 0; b < r.B; b++)
        CHECK(run_a.accepted[b] == r.d[b]);
    feature("ref_block: a drafter equal to the target has every draft accepted");
}

/* Target rows one-hot at t_k: the draw at each position is t_k, so the
 * drafts that equal it pass and the first that does not is replaced by it. */
static void exact_match_on_one_hot_rows(void)
{
    ragged_random(&r, 4, 4, 16, SV_INPUT_PROBS, 1, 5);
    r.K = 4;
    static const int32_t t[5] = {3, 7, 1, 9, 12};
    static const int32_t x[4][4] = {{3, 7, 1, 9}, {3, 8, 1, 9}, {4, 7, 1, 9}, {3, 7, 1, 2}};
    static const int32_t want_n[4] = {4, 1, 0, 3};
    for (int32_t b = 0; b < 4; b++) {
        r.d[b] = 4;
        for (int32_t k = 0; k <= 4; k++) {
            memset(r.p[b][k], 0, sizeof r.p[b][k]);
            r.p[b][k][t[k]] = 1.0f;
        }
        memcpy(r.x[b], x[b], sizeof x[b]);
    }
    ragged_lay_out(&r, SV_LAYOUT_PADDED, &run_a);
    CHECK(ragged_call(&sv_sampler_ref_exact, &run_a) == SV_SAMPLER_OK);
    for (int32_t b = 0; b < 4; b++) {
        const int32_t *y = ragged_out(&r, &run_a, b);
        CHECK(run_a.accepted[b] == want_n[b]);
        for (int32_t k = 0; k <= 4; k++)
            CHECK(y[k] == (k <= want_n[b] ? t[k] : -1));
    }
    feature("ref_exact: one-hot target rows force every token");
}

/* An exact-match sampler that refuses any batch with draft rows. */
static int draft_free_verify(void *state, const sv_batch *bt)
{
    if (bt->draft || bt->draft_logits)
        return SV_SAMPLER_EINVAL;
    return sv_sampler_ref_exact.verify(state, bt);
}
static const sv_sampler draft_free = {"draft_free", "test: refuses draft rows", SV_MEM_HOST,
                                      sv_rule_init, draft_free_verify, sv_rule_destroy, 0,
                                      SV_LAYOUT_BIT(SV_LAYOUT_PADDED) |
                                          SV_LAYOUT_BIT(SV_LAYOUT_PACKED),
                                      SV_RULE_EXACT_MATCH};

static void harness_withholds_draft_rows(void)
{
    suite_config s;
    suite_config_init(&s, "smoke", &draft_free, 0);
    s.cfg.in_process = 1;
    sv_report *rep = NULL;
    CHECK(sv_verify(&s.cfg, &rep) == SV_OK);
    CHECK(rep && rep->n_cases == s.cfg.n_cases && rep->failed == 0);
    CHECK(rep && rep->rule == SV_RULE_EXACT_MATCH);
    for (size_t i = 0; rep && i < rep->n_cases; i++)
        CHECK(rep->cases[i].draft_probs_given == 0);
    sv_report_free(rep);
    feature("an exact-match sampler is given no draft rows, and passes smoke without them");
}

int main(void)
{
    both_layouts_agree();
    one_draft_is_ref();
    same_rows_accept_all();
    exact_match_on_one_hot_rows();
    harness_withholds_draft_rows();
    return check_exit();
}
