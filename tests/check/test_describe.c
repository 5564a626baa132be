/* test_describe.c: the words of a finding match its numbers, and a re-run
 * can say which check made a case SUSPECT. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "sv_base.h"
#include "sv_cases.h"
#include "sv_check.h"
#include "sv_run.h"
#include "sv_stats.h"

/* The length finding of a run whose only counts are these accepted lengths
 * (no position or independence tallies: those checks are n/a). */
static void length_finding(const char *spec, const uint64_t *lengths, sv_run_eval *ev)
{
    sv_case *c = NULL;
    char err[256];
    sv_pair_plan plan;
    sv_tally *t = NULL;
    memset(ev, 0, sizeof *ev);
    CHECK(sv_case_from_spec(spec, &c, err, sizeof err) == 0);
    if (!c)
        return;
    CHECK(sv_pair_plan_build(c, 1000, &plan) == SV_OK);
    CHECK(sv_tally_alloc(c, &plan, &t) == SV_OK);
    if (t) {
        for (int32_t j = 0; j <= c->K; j++) {
            t->length[j] = lengths[j];
            t->draws += lengths[j];
        }
        CHECK(sv_evaluate(c, t, &plan, 1e-6 / 18, ev) == SV_OK);
    }
    sv_tally_free(t);
    sv_pair_plan_free(&plan);
    sv_case_free(c);
}

static int has(const sv_run_eval *ev, const char *words)
{
    for (int32_t f = 0; f < ev->n_findings; f++)
        if (strstr(ev->findings[f], words))
            return 1;
    fprintf(stderr, "  no finding says '%s'; findings:\n", words);
    for (int32_t f = 0; f < ev->n_findings; f++)
        fprintf(stderr, "    %s\n", ev->findings[f]);
    return 0;
}

/* docs/verify.md's example on seed 1 (ref, 5e6 draws): n = 4 came 766 short of
 * 56376 (3.2 sd) and n = 2 1602 over, so X^2 = 19.7 on 4 df, p = 5.8e-4,
 * with the mean right. The finding said "n = 4 in 1.1% of draws, expected
 * 1.1%" and "more drafts accepted than allowed": true to neither number. */
static void test_readme_zipf_counts(void)
{
    const uint64_t seed1[] = {3369484, 1098315, 359520, 117071, 55610};
    sv_run_eval ev;
    length_finding("zipf:V=32000,K=4,s=1.3", seed1, &ev);
    CHECK(ev.length_verdict == SV_SUSPECT);
    CHECK_NEAR(ev.length.stat, 19.6876, 1e-3);
    CHECK_NEAR(ev.length.p, 5.755e-4, 1e-6);
    CHECK(has(&ev, "n = 4 in 55610 draws (1.112%), expected 56376.4 (1.128%), 3.2 sd fewer"));
    CHECK(has(&ev, "10.4 of X^2 = 19.7 (df 4, p = 0.000576)"));
    CHECK(has(&ev, "mean n 0.4782 vs 0.4779 expected (0.8 sd): no overall excess"));
    CHECK(!strstr(ev.findings[0], "more drafts accepted"));

    /* a real excess: every count moved one length up shifts the mean */
    const uint64_t shifted[] = {3300000, 1098315, 359520, 117071, 125094};
    length_finding("zipf:V=32000,K=4,s=1.3", shifted, &ev);
    CHECK(ev.length_verdict == SV_FAIL);
    CHECK(has(&ev, "n = 4 in 125094 draws"));
    CHECK(has(&ev, "more drafts accepted than min(1, p/q) allows"));
    feature("accepted length: the finding names the bin that drives X^2, with its counts");
}

/* A rare pooled tail is tested exactly: the finding names its lengths and
 * the exact p-value, not a chi-square it did not use. */
static void test_exact_tail(void)
{
    sv_run_eval ev;
    memset(&ev, 0, sizeof ev);
    ev.K = 2;
    const double probs[] = {1.0 - 2e-6, 1e-6, 1e-6};
    const uint64_t counts[] = {999990, 6, 4};
    for (int32_t j = 0; j <= 2; j++) {
        ev.length_expected[j] = probs[j];
        ev.length_observed[j] = counts[j];
    }
    sv_pooled pooled;
    CHECK(sv_pool(probs, counts, 3, 1000000, 10.0, &pooled) == SV_OK);
    CHECK(pooled.exact_tail);
    ev.length = sv_pearson(&pooled);
    CHECK_NEAR(ev.length.p, 4.6498e-5, 1e-8); /* P(Poisson(2) >= 10) */
    char text[SV_FINDING_LEN];
    sv_describe_length(&ev, &pooled, text, sizeof text);
    CHECK(strstr(text, "n in {1, 2} in 10 draws (0.001%), expected 2 (0.0002%)"));
    CHECK(strstr(text, "exact Poisson tail p = 4.65e-05"));
    sv_pooled_free(&pooled);

    /* a length of probability 0 needs no statistics */
    const double certain[] = {0.0, 1.0, 0.0};
    const uint64_t seen[] = {0, 999, 1};
    for (int32_t j = 0; j <= 2; j++) {
        ev.length_expected[j] = certain[j];
        ev.length_observed[j] = seen[j];
    }
    CHECK(sv_pool(certain, seen, 3, 1000, 10.0, &pooled) == SV_OK);
    sv_describe_length(&ev, &pooled, text, sizeof text);
    CHECK(strstr(text, "n = 2 in 1 draws, a length of probability 0"));
    sv_pooled_free(&pooled);
    feature("accepted length: an exact tail and an impossible length in words");
}

static void test_weakest_check(void)
{
    sv_run_eval ev;
    memset(&ev, 0, sizeof ev);
    ev.K = 1;
    for (int32_t k = 0; k <= 1; k++) {
        ev.pos[k].verdict = SV_PASS;
        ev.pos[k].chi2 = ev.pos[k].g = (sv_gof){1.0, 3, 0.5, 0};
        ev.pos[k].tv_p = 1.0;
    }
    ev.pos[1].g.p = 2e-4;
    ev.length = (sv_gof){2.0, 1, 0.01, 0};
    ev.length_verdict = SV_PASS;
    ev.indep_seq_verdict = ev.indep_pos_verdict = ev.seq_verdict = SV_NA;
    ev.indep_pos.p = 1e-9; /* not run: ignored */
    char name[96];
    CHECK_NEAR(sv_weakest_check(&ev, name, sizeof name), 2e-4, 1e-12);
    CHECK(strcmp(name, "position 2 G") == 0);
    ev.length.p = 1e-5;
    CHECK_NEAR(sv_weakest_check(&ev, name, sizeof name), 1e-5, 1e-12);
    CHECK(strcmp(name, "accepted length") == 0);
    feature("the weakest check of a run, named for the re-run notice");
}

/* The most-off bin's ratio in words: "1.62x" where it is far from 1, a
 * percentage where "%.3gx" would print "1x" (drafts_bf16 at 1.6e7 draws:
 * 7819125 vs 7806237.2 expected, 0.17% more). */
static void test_ratio_words(void)
{
    int32_t token[2] = {0, 1};
    double expected[2] = {8193762.8, 7806237.2}, observed[2] = {8180875, 7819125};
    sv_pooled pooled = {2, token, expected, observed, 0.0, 0, 0, 0};
    sv_position_eval pe;
    memset(&pe, 0, sizeof pe);
    char out[256];
    sv_describe_position(&pooled, &pe, 2, out, sizeof out);
    CHECK(strstr(out, "position 3: token 1 emitted 0.17% more often than p says "
                      "(7819125 vs 7806237.2 expected)") != NULL);
    observed[0] = 8193762.8 - 4000.0;
    observed[1] = 7806237.2 * 1.62;
    sv_describe_position(&pooled, &pe, 0, out, sizeof out);
    CHECK(strstr(out, "token 1 emitted 1.62x more often") != NULL);
}

int main(void)
{
    test_ratio_words();
    test_readme_zipf_counts();
    test_exact_tail();
    test_weakest_check();
    return check_exit();
}
