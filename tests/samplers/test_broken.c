/* test_broken.c: each broken variant's characteristic behaviour on tiny
 * hand-made cases through the sampler contract; plus the binary16 rounding
 * and the registry. (The three correct controls: test_controls.c.)
 *
 * Everything runs at fixed seeds, so the program is deterministic. Where a
 * frequency is compared with an exact probability the tolerance is 6 binomial
 * standard deviations: about 2e-9 per comparison, under 1e-7 for the whole
 * program (fewer than 50 such comparisons), were the seed drawn afresh. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "row_fixture.h"
#include "sv_half.h"
#include "sv_philox.h"
#include "sv_registry.h"

int main(void)
{
    /* ---- binary16 rounding (what float16_ratio and predict.c share) ---- */
    CHECK(sv_half_round(1e-8f) == 0.0f);
    CHECK(sv_half_round(6e-8f) == 5.9604645e-08f);          /* 2^-24, the least subnormal */
    CHECK(sv_half_round(1.0f / 3.0f) == 0.333251953125f);
    CHECK(isinf(sv_half_round(65520.0f)) && sv_half_round(65520.0f) > 0);
    CHECK(sv_half_round(65519.0f) == 65504.0f);             /* the largest half */
    CHECK(sv_half_round(2049.0f) == 2048.0f);               /* tie to even, down */
    CHECK(sv_half_round(2051.0f) == 2052.0f);               /* tie to even, up */
    CHECK(sv_half_round(ldexpf(1.0f, -25)) == 0.0f);        /* half of 2^-24: to even, 0 */
    CHECK(sv_half_round(3.0f * ldexpf(1.0f, -25)) == ldexpf(1.0f, -23));
    CHECK(sv_half_round(0.1f) == 0.0999755859375f);
    CHECK(sv_half_round(-1.0f / 3.0f) == -0.333251953125f);
    CHECK(sv_half_round(1.0f) == 1.0f && sv_half_round(0.0f) == 0.0f);
    feature("binary16 rounding: subnormals, ties to even, overflow");

    /* ---- the registry ---- */
    {
        static const char *const names[] = {
            "resample_from_p", "residual_unnormalized", "residual_swapped", "ratio_inverted",
            "no_chain_stop", "bonus_wrong_row", "residual_epsilon_floor", "uniform_reused",
            "draft_temperature_mismatch", "float16_ratio", "accept_zero_target",
            "counts_off_by_one", "shared_stream", "oov_float_rounding",
            "race_float32_truncated", "packed_offset", "draft_stride_from_target",
            "outputs_swapped", "argmax_when_mixed", "top_p_from_first", "seed_ignored",
            "greedy_sampled_when_mixed", "exact_match_argmax", "exact_match_shared_sample",
            "block_residual_tokenwise", "tree_siblings_replaced", "tree_cdf_boundary",
            "drafts_bf16", "drafts_argmax"};
        /* the CUDA samplers are built-ins too, and the GPU's broken variant
         * ends the broken list, where the build has CUDA */
#ifdef SV_HAVE_CUDA
        const char *builtin_names[] = {"ref",        "direct",     "ref_race",
                                       "ref_float",  "ref_torch_coin", "ref_layout", "ref_logits",
                                       "ref_exact",  "ref_block",  "ref_typical",
                                       "ref_tree",   "ref_tree_target_only", "ref_own_drafts",
                                       "cuda_naive", "cuda_fused",
                                       "cuda_tree_naive", "cuda_tree_target_only_naive"};
        const size_t n_broken = 30;
#else
        const char *builtin_names[] = {"ref",        "direct",     "ref_race",
                                       "ref_float",  "ref_torch_coin", "ref_layout", "ref_logits",
                                       "ref_exact",  "ref_block",  "ref_typical",
                                       "ref_tree",   "ref_tree_target_only", "ref_own_drafts"};
        const size_t n_broken = 29;
#endif
        const size_t n_builtin = sizeof builtin_names / sizeof builtin_names[0];
        CHECK(sv_registry_broken_count() == n_broken);
        CHECK(sv_registry_count() == n_builtin + n_broken);
        for (size_t i = 0; i < n_broken; i++) {
            const sv_sampler *s = sv_registry_broken_get(i);
            const int gpu = i == 29; /* cuda_fused_shared_uniform */
            CHECK(s && strcmp(s->name, gpu ? "cuda_fused_shared_uniform" : names[i]) == 0);
            CHECK(s && s->memspace == (gpu ? SV_MEM_CUDA : SV_MEM_HOST));
            CHECK(s && sv_registry_find(s->name) == s);
            CHECK(sv_registry_get(n_builtin + i) == s &&
                  strcmp(sv_registry_origin(n_builtin + i), "broken") == 0);
        }
        CHECK(sv_registry_broken_get(n_broken) == NULL);
        for (size_t i = 0; i < n_builtin; i++) {
            const sv_sampler *s = sv_registry_get(i);
            CHECK(strcmp(s->name, builtin_names[i]) == 0);
            CHECK(strcmp(sv_registry_origin(i), "built-in") == 0);
            CHECK(s->memspace == (strncmp(s->name, "cuda_", 5) == 0 ? SV_MEM_CUDA : SV_MEM_HOST));
        }
    }
    feature("registry: the built-ins (CUDA ones where built), then the broken variants in order");

    /* ---- the broken variants ---- */

    /* resample_from_p: p = {.4 .6 0}, q = {.5 0 .5}, x = 2 (p(x) = 0, always
     * rejected); the residual is token 1 alone, p itself gives token 0 40% */
    {
        int32_t x[1] = {2};
        setup(1, 3, x);
        const float p[3] = {0.4f, 0.6f, 0.0f}, q[3] = {0.5f, 0.0f, 0.5f};
        set_p(0, p);
        set_p(1, p);
        set_q(0, q);
        CHECK(run(&sv_sampler_ref, 0) == SV_SAMPLER_OK);
        CHECK(frac_token(0, 1, -1) == 1.0);
        CHECK(run(&sv_broken_resample_from_p, 0) == SV_SAMPLER_OK);
        CHECK(frac_accepted(0) == 1.0);
        CHECK_NEAR(frac_token(0, 0, -1), 0.4, tol(0.4, NSEQ));
        CHECK(frac_token(0, 2, -1) == 0.0);
    }
    feature("resample_from_p: emits a token with p > 0 but residual 0");

    /* residual_unnormalized: w = max(p - q, 0) = {.2 0 .3 0} (sum .5), x = 3
     * always rejected: token 0 with w_0 = .2 (ref: .4), the last positive
     * token 2 with .3 + (1 - .5) = .8 */
    {
        int32_t x[1] = {3};
        setup(1, 4, x);
        const float p[4] = {0.2f, 0.3f, 0.5f, 0.0f}, q[4] = {0.0f, 0.3f, 0.2f, 0.5f};
        set_p(0, p);
        set_p(1, p);
        set_q(0, q);
        CHECK(run(&sv_broken_residual_unnormalized, 0) == SV_SAMPLER_OK);
        CHECK(frac_accepted(0) == 1.0);
        CHECK_NEAR(frac_token(0, 0, -1), 0.2, tol(0.2, NSEQ));
        CHECK_NEAR(frac_token(0, 2, -1), 0.8, tol(0.8, NSEQ));
        CHECK(run(&sv_sampler_ref, 0) == SV_SAMPLER_OK);
        CHECK_NEAR(frac_token(0, 0, -1), 0.4, tol(0.4, NSEQ));
    }
    feature("residual_unnormalized: the last positive token absorbs 1 - sum w");

    /* residual_swapped: max(q - p, 0) = {0 0 .5} puts all residual mass on
     * token 2, which has p = 0 */
    {
        int32_t x[1] = {2};
        setup(1, 3, x);
        const float p[3] = {0.6f, 0.4f, 0.0f}, q[3] = {0.2f, 0.3f, 0.5f};
        set_p(0, p);
        set_p(1, p);
        set_q(0, q);
        CHECK(run(&sv_broken_residual_swapped, 0) == SV_SAMPLER_OK);
        CHECK(frac_accepted(0) == 1.0);
        CHECK(frac_token(0, 2, -1) == 1.0);
        CHECK(run(&sv_sampler_ref, 0) == SV_SAMPLER_OK);
        CHECK(frac_token(0, 2, -1) == 0.0);
        CHECK_NEAR(frac_token(0, 0, -1), 0.8, tol(0.8, NSEQ)); /* (.6 - .2) / .5 */
    }
    feature("residual_swapped: residual follows q - p onto a p = 0 token");

    /* ratio_inverted: p(x) = 0 < q(x) is always accepted; a one-hot drafter
     * (q = 1) accepts every draft, where ref accepts with p(x) = 0.1 */
    {
        int32_t x[1] = {0};
        setup(1, 2, x);
        const float p[2] = {0.0f, 1.0f}, q[2] = {0.5f, 0.5f};
        set_p(0, p);
        set_p(1, p);
        set_q(0, q);
        CHECK(run(&sv_broken_ratio_inverted, 0) == SV_SAMPLER_OK);
        CHECK(frac_accepted(1) == 1.0 && frac_token(0, 0, -1) == 1.0);
        const float p2[2] = {0.1f, 0.9f};
        set_p(0, p2);
        fx.use_draft = 0;
        CHECK(run(&sv_broken_ratio_inverted, 0) == SV_SAMPLER_OK);
        CHECK(frac_accepted(1) == 1.0);
        CHECK(run(&sv_sampler_ref, 0) == SV_SAMPLER_OK);
        CHECK_NEAR(frac_accepted(1), 0.1, tol(0.1, NSEQ));
    }
    feature("ratio_inverted: accepts p(x) = 0, one-hot drafts always");

    /* no_chain_stop: K = 3, x_1 has p = 0 (always rejected), x_2 = x_3 have
     * p/q = 2 (always pass): n = 2 every time (ref: 0), no -1 anywhere */
    {
        int32_t x[3] = {2, 0, 0};
        setup(3, 4, x);
        const float p[4] = {0.5f, 0.5f, 0.0f, 0.0f}, q[4] = {0.25f, 0.25f, 0.25f, 0.25f};
        for (int32_t k = 0; k < 4; k++)
            set_p(k, p);
        for (int32_t k = 0; k < 3; k++)
            set_q(k, q);
        CHECK(run(&sv_broken_no_chain_stop, 0) == SV_SAMPLER_OK);
        CHECK(frac_accepted(2) == 1.0);
        int ok = 1;
        for (int32_t b = 0; b < NSEQ; b++) {
            ok &= y(b, 0) == 0 || y(b, 0) == 1;
            ok &= y(b, 1) == 0 && y(b, 2) == 0;
            ok &= y(b, 3) == 0 || y(b, 3) == 1;
        }
        CHECK(ok);
        CHECK(run(&sv_sampler_ref, 0) == SV_SAMPLER_OK);
        CHECK(frac_accepted(0) == 1.0 && frac_token(1, -1, -1) == 1.0);
    }
    feature("no_chain_stop: judges past a rejection, writes no -1 padding");

    /* bonus_wrong_row: p = q, all pass; p_3 = e_2, but the bonus comes from
     * p_2 = {.2 .3 .5} */
    {
        int32_t x[2] = {0, 1};
        setup(2, 3, x);
        const float p[3] = {0.2f, 0.3f, 0.5f}, bonus[3] = {0.0f, 0.0f, 1.0f};
        set_p(0, p);
        set_p(1, p);
        set_p(2, bonus);
        set_q(0, p);
        set_q(1, p);
        CHECK(run(&sv_broken_bonus_wrong_row, 0) == SV_SAMPLER_OK);
        CHECK(frac_accepted(2) == 1.0);
        CHECK_NEAR(frac_token(2, 0, -1), 0.2, tol(0.2, NSEQ));
        CHECK_NEAR(frac_token(2, 1, -1), 0.3, tol(0.3, NSEQ));
        CHECK(run(&sv_sampler_ref, 0) == SV_SAMPLER_OK);
        CHECK(frac_token(2, 2, -1) == 1.0);
    }
    feature("bonus_wrong_row: the bonus follows p_K, not p_{K+1}");

    /* residual_epsilon_floor: an empty residual (q sums past 1, as in
     * test_ref) leaves only the floor: 64 tokens of 1e-6 each, so 61/64 of
     * the rejections emit a token with p = 0; ref falls back to p */
    {
        int32_t x[1] = {0};
        setup(1, 64, x);
        float p[64] = {0.2f, 0.3f, 0.5f}, q[64] = {0.3f, 0.3f, 0.5f};
        set_p(0, p);
        set_p(1, p);
        set_q(0, q);
        CHECK(run(&sv_broken_residual_epsilon_floor, 0) == SV_SAMPLER_OK);
        int32_t rejected = count_accepted(0), impossible = 0;
        for (int32_t b = 0; b < NSEQ; b++)
            impossible += fx.accepted[b] == 0 && y(b, 0) >= 3;
        CHECK_NEAR((double)rejected / NSEQ, 1.0 / 3.0, tol(1.0 / 3.0, NSEQ));
        CHECK_NEAR((double)impossible / rejected, 61.0 / 64.0, tol(61.0 / 64.0, rejected));
        CHECK(run(&sv_sampler_ref, 0) == SV_SAMPLER_OK);
        for (int32_t b = 0; b < NSEQ; b++)
            CHECK(y(b, 0) < 3);
    }
    feature("residual_epsilon_floor: the floor puts mass on p = 0 tokens");

    /* uniform_reused: p = {.5 .25 .25}, q = {.8 .1 .1}, x = 0: rejection
     * means u >= .625, so u * sum(w) = u * .3 >= .1875 > w_1 = .15: token 2
     * every time (ref: tokens 1 and 2 half each) */
    {
        int32_t x[1] = {0};
        setup(1, 3, x);
        const float p[3] = {0.5f, 0.25f, 0.25f}, q[3] = {0.8f, 0.1f, 0.1f};
        set_p(0, p);
        set_p(1, p);
        set_q(0, q);
        CHECK(run(&sv_broken_uniform_reused, 0) == SV_SAMPLER_OK);
        CHECK_NEAR(frac_accepted(0), 0.375, tol(0.375, NSEQ));
        CHECK(frac_token(0, 2, 0) == 1.0);
        CHECK(run(&sv_sampler_ref, 0) == SV_SAMPLER_OK);
        CHECK_NEAR(frac_token(0, 1, 0), 0.5, tol(0.5, count_accepted(0)));
    }
    feature("uniform_reused: the rejected uniform pins the residual's end");

    /* draft_temperature_mismatch: p = q = {.64 .36}: ref accepts all; with
     * q' = norm(sqrt q) = {.8 .6} / 1.4, x = 1 passes with .36 / (.6 / 1.4) = .84.
     * A one-hot drafter gives exactly ref's outputs. */
    {
        int32_t x[1] = {1};
        setup(1, 2, x);
        const float p[2] = {0.64f, 0.36f};
        set_p(0, p);
        set_p(1, p);
        set_q(0, p);
        CHECK(run(&sv_broken_draft_temperature_mismatch, 0) == SV_SAMPLER_OK);
        CHECK_NEAR(frac_accepted(1), 0.84, tol(0.84, NSEQ));
        CHECK(frac_token(0, 0, 0) == 1.0); /* residual max(p - q', 0) = token 0 only */
        CHECK(run(&sv_sampler_ref, 0) == SV_SAMPLER_OK);
        CHECK(frac_accepted(1) == 1.0);
        fx.use_draft = 0;
        CHECK(run(&sv_broken_draft_temperature_mismatch, 0) == SV_SAMPLER_OK);
        static int32_t out1[NSEQ * 2], acc1[NSEQ];
        memcpy(out1, fx.out, sizeof out1);
        memcpy(acc1, fx.accepted, sizeof acc1);
        CHECK(run(&sv_sampler_ref, 0) == SV_SAMPLER_OK);
        CHECK(memcmp(out1, fx.out, sizeof out1) == 0 && memcmp(acc1, fx.accepted, sizeof acc1) == 0);
    }
    feature("draft_temperature_mismatch: accepts with p/q', one-hot is ref");

    /* float16_ratio: p(x) = q(x) = 1e-8 flush to 0 in half: never accepted
     * (ref: always). p(x) = 1e-7, q(x) = 2e-7 round to 2 and 3 units of
     * 2^-24: accepted with h(2/3) = 0.66650390625 instead of 0.5. */
    {
        int32_t x[1] = {0};
        setup(1, 2, x);
        const float p[2] = {1e-8f, 1.0f - 1e-8f};
        set_p(0, p);
        set_p(1, p);
        set_q(0, p);
        CHECK(run(&sv_broken_float16_ratio, 0) == SV_SAMPLER_OK);
        CHECK(frac_accepted(0) == 1.0);
        CHECK(run(&sv_sampler_ref, 0) == SV_SAMPLER_OK);
        CHECK(frac_accepted(1) == 1.0);
        const float p2[2] = {1e-7f, 1.0f - 1e-7f}, q2[2] = {2e-7f, 1.0f - 2e-7f};
        set_p(0, p2);
        set_q(0, q2);
        CHECK(run(&sv_broken_float16_ratio, 0) == SV_SAMPLER_OK);
        CHECK_NEAR(frac_accepted(1), 0.66650390625, tol(0.6665, NSEQ));
        CHECK(run(&sv_sampler_ref, 0) == SV_SAMPLER_OK);
        CHECK_NEAR(frac_accepted(1), 0.5, tol(0.5, NSEQ));
    }
    feature("float16_ratio: tail probabilities flush or round in half");

    /* accept_zero_target: at seed 7, sequence 3314967, position 0, the first
     * ACCEPT word is below 256, so the float uniform is exactly 0 and a draft
     * with p(x) = 0 is accepted; ref rejects it there and everywhere */
    {
        const uint64_t index = 3314967;
        philox4x32_ctr_t r = sv_philox_block(7, index, 0, SV_PURPOSE_ACCEPT, 0);
        CHECK((r.v[0] >> 8) == 0);
        int32_t x[1] = {0};
        setup(1, 2, x);
        const float p[2] = {0.0f, 1.0f}, q[2] = {1.0f, 0.0f};
        set_p(0, p);
        set_p(1, p);
        set_q(0, q);
        CHECK(run(&sv_broken_accept_zero_target, index - 10) == SV_SAMPLER_OK);
        CHECK(fx.accepted[10] == 1 && y(10, 0) == 0);
        CHECK(count_accepted(1) == 1); /* only there */
        CHECK(run(&sv_sampler_ref, index - 10) == SV_SAMPLER_OK);
        CHECK(frac_accepted(0) == 1.0);
    }
    feature("accept_zero_target: u == 0 accepts p(x) = 0 at a known address");

    /* counts_off_by_one: p = q, all pass: tokens exactly ref's, n = K + 1 */
    {
        int32_t x[2] = {0, 1};
        setup(2, 3, x);
        const float p[3] = {0.2f, 0.3f, 0.5f};
        for (int32_t k = 0; k < 3; k++)
            set_p(k, p);
        set_q(0, p);
        set_q(1, p);
        CHECK(run(&sv_sampler_ref, 0) == SV_SAMPLER_OK);
        static int32_t out1[NSEQ * 3];
        memcpy(out1, fx.out, sizeof out1);
        CHECK(run(&sv_broken_counts_off_by_one, 0) == SV_SAMPLER_OK);
        CHECK(frac_accepted(3) == 1.0);
        CHECK(memcmp(out1, fx.out, sizeof out1) == 0);
    }
    feature("counts_off_by_one: reports K + 1 when p = q");

    /* shared_stream: identical drafts, so sequences 2m and 2m + 1 emit the
     * same; even sequences are ref's own; ref's pairs agree far less often */
    {
        int32_t x[2] = {0, 1};
        setup(2, 4, x);
        const float p[4] = {0.25f, 0.25f, 0.25f, 0.25f}, q[4] = {0.7f, 0.1f, 0.1f, 0.1f};
        for (int32_t k = 0; k < 3; k++)
            set_p(k, p);
        set_q(0, q);
        set_q(1, q);
        CHECK(run(&sv_broken_shared_stream, 1000) == SV_SAMPLER_OK);
        static int32_t out1[NSEQ * 3], acc1[NSEQ];
        memcpy(out1, fx.out, sizeof out1);
        memcpy(acc1, fx.accepted, sizeof acc1);
        int pairs_equal = 1;
        for (int32_t b = 0; b < NSEQ; b += 2)
            pairs_equal &= memcmp(out1 + b * 3, out1 + (b + 1) * 3, 3 * sizeof *out1) == 0 &&
                           acc1[b] == acc1[b + 1];
        CHECK(pairs_equal);
        CHECK(run(&sv_sampler_ref, 1000) == SV_SAMPLER_OK);
        int32_t same = 0;
        int evens = 1;
        for (int32_t b = 0; b < NSEQ; b += 2) {
            same += memcmp(fx.out + b * 3, fx.out + (b + 1) * 3, 3 * sizeof *fx.out) == 0;
            evens &= memcmp(fx.out + b * 3, out1 + b * 3, 3 * sizeof *out1) == 0;
        }
        CHECK(evens);
        CHECK((double)same / (NSEQ / 2) < 0.5);
    }
    feature("shared_stream: sequences 0 and 1 (2m, 2m+1) identical");
    return check_exit();
}
