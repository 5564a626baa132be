/* test_mutants.c: every broken variant is caught, by the check that should.
 *
 * Each variant runs through the `ci` suite at seed 1 (the hard two on the
 * case named for them, at the draws the power formula gives for power
 * 1 - 1e-6). The test asserts the run FAILs, that the named check is among
 * those that failed, and, for the variants the per-position tests catch,
 * that a Markov-pair case of the suite fails too (the sequence level sees
 * what the positions see). The negative controls must pass the same way.
 * False alarm: each run is at the suite's family-wise 1e-6.
 *
 * A variant's run stops as soon as those assertions hold, cheapest cases
 * first. That is exact, not a shortcut in the statistics: every case has the
 * same seed and the split of the whole suite, so a case reads the same
 * whether or not the others ran, and the assertions only ask that some
 * cases failed. It is what lets the sanitizer stage afford these tests. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "sv_base.h"
#include "sv_cases.h"
#include "sv_check.h"
#include "sv_registry.h"
#include "sv_sampler.h"
#include "sv_stats.h"

enum { CONTRACT = 1, FIT = 2, TV = 4, LENGTH = 8, INDEPENDENCE = 16, SEQUENCE = 32,
       COMPOSITION = 64, SEED = 128 };

typedef struct expectation {
    const char *variant;
    int check;             /* must be among the failed checks */
    int markov;            /* a Markov-pair case must fail too */
    const char *hard_case; /* NULL: the ci suite */
    int logits;            /* 1: the logits cases below, with logits input */
} expectation;

static const expectation expected[] = {
    {"resample_from_p", FIT, 1, NULL, 0},
    {"residual_unnormalized", FIT, 1, NULL, 0},
    {"residual_swapped", FIT, 1, NULL, 0},
    {"ratio_inverted", FIT, 1, NULL, 0},
    {"no_chain_stop", CONTRACT, 1, NULL, 0},
    {"bonus_wrong_row", FIT, 1, NULL, 0},
    {"residual_epsilon_floor", CONTRACT, 1, NULL, 0},
    {"uniform_reused", FIT, 1, NULL, 0},
    {"draft_temperature_mismatch", FIT, 1, NULL, 0},
    {"counts_off_by_one", CONTRACT, 1, NULL, 0},
    {"shared_stream", INDEPENDENCE, 0, NULL, 0},
    {"float16_ratio", FIT, 0, "binary:p=0.948052,q=0.9674", 0},
    {"accept_zero_target", CONTRACT, 0, "binary:p=0,q=1", 0},
    /* issue 25's: mixed batches give every sequence its own rows, strides,
     * neighbours and layout (the Markov-pair cases their own rows too) */
    {"draft_stride_from_target", LENGTH, 1, NULL, 0},
    {"outputs_swapped", CONTRACT, 1, NULL, 0},
    {"packed_offset", FIT, 0, NULL, 0},
    {"seed_ignored", SEED, 0, NULL, 0},
    /* and the logits ones on logits cases of one vocabulary, greedy and
     * sampled, with and without top-p, mixed in each batch */
    {"argmax_when_mixed", FIT, 0, NULL, 1},
    {"top_p_from_first", CONTRACT, 0, NULL, 1},
    {"greedy_sampled_when_mixed", CONTRACT, 0, NULL, 1},
};

/* The logits variants' cases (from the logits suite, V = 1000) and draws:
 * each is caught within 20000 draws (docs/mutants.md). */
static const char *const logits_cases[] = {
    "logits:V=1000,K=5,T=0.7", "logits:V=1000,K=4,T=0", "logits:V=1000,K=3,T=1.5,topp=0.9"};
static const uint64_t logits_draws[] = {20000, 20000, 20000};

static const char *names(int checks, char *buf, size_t len)
{
    static const char *const words[] = {"contract", "fit", "TV", "length", "independence",
                                        "sequence", "composition", "seed"};
    buf[0] = '\0';
    for (int i = 0; i < 8; i++)
        if (checks & (1 << i))
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? "," : "", words[i]);
    return buf[0] ? buf : "none";
}

/* The suite's cases ordered by draws x V, a variant's rough cost. */
static void cheapest_first(const sv_suite *suite, const char **specs, uint64_t *draws)
{
    double cost[64];
    for (size_t i = 0; i < suite->n_entries; i++) {
        sv_case *c = NULL;
        char err[512];
        CHECK(sv_case_from_spec(suite->entries[i].spec, &c, err, sizeof err) == 0);
        double v = (double)suite->entries[i].draws * (c ? c->V : 1);
        sv_case_free(c);
        size_t j = i; /* insertion sort: a stable order, 15 cases */
        for (; j > 0 && cost[j - 1] > v; j--) {
            cost[j] = cost[j - 1];
            specs[j] = specs[j - 1];
            draws[j] = draws[j - 1];
        }
        cost[j] = v;
        specs[j] = suite->entries[i].spec;
        draws[j] = suite->entries[i].draws;
    }
}

/* The checks that failed in the last run of each case; markov: a Markov case failed. */
static int failed_checks(const sv_report *r, int *markov)
{
    int checks = 0;
    *markov = 0;
    for (size_t i = 0; i < r->n_cases; i++) {
        const sv_run_eval *ev = &r->cases[i].runs[r->cases[i].n_runs - 1];
        const double split = r->split_alpha;
        checks |= ev->contract_verdict == SV_FAIL ? CONTRACT : 0;
        for (int32_t k = 0; k <= ev->K; k++) {
            const sv_position_eval *pe = &ev->pos[k];
            if (pe->N == 0)
                continue;
            checks |= pe->chi2.df > 0 && (pe->chi2.p < split || pe->g.p < split) ? FIT : 0;
            checks |= pe->tv_p < split ? TV : 0;
        }
        checks |= ev->length_verdict == SV_FAIL ? LENGTH : 0;
        checks |= ev->indep_seq_verdict == SV_FAIL || ev->indep_pos_verdict == SV_FAIL
                      ? INDEPENDENCE : 0;
        checks |= ev->chain && ev->seq_verdict == SV_FAIL ? SEQUENCE : 0;
        checks |= ev->batch_verdict == SV_FAIL ? COMPOSITION : 0;
        checks |= ev->seed_verdict == SV_FAIL ? SEED : 0;
        *markov |= ev->chain && r->cases[i].verdict == SV_FAIL;
    }
    return checks;
}

/* The run is over once the variant's assertions hold. */
static int caught(const sv_report *r, void *ctx)
{
    const expectation *e = ctx;
    int markov, checks = failed_checks(r, &markov);
    return r->failed > 0 && (checks & e->check) && (!e->markov || markov);
}

/* e NULL: a control, every case runs */
static sv_report *run(const char *sampler, const char *const *specs, const uint64_t *draws,
                      size_t n, const expectation *e)
{
    sv_verify_config cfg = {.sampler = sv_registry_find(sampler), .suite = "ci",
                            .specs = specs, .draws = draws, .n_cases = n, .seed = 1,
                            .alpha = 1e-6, .batch = 4096, .threads = 2, .progress = 0,
                            .rerun_suspects = 1, .case_done = e ? caught : NULL,
                            .case_done_ctx = (void *)e,
                            .input = e && e->logits ? SV_INPUT_LOGITS_F32 : SV_INPUT_PROBS};
    sv_report *r = NULL;
    if (!cfg.sampler || sv_verify(&cfg, &r) != SV_OK) {
        fprintf(stderr, "  %s: %s\n", sampler, cfg.sampler ? sv_error_message() : "not found");
        return NULL;
    }
    return r;
}

int main(int argc, char **argv)
{
    /* argv[1], if given, runs one variant (or control) only */
    const char *only = argc > 1 ? argv[1] : NULL;
    const sv_suite *ci = sv_suite_find("ci");
    const char *specs[64];
    uint64_t draws[64];
    CHECK(ci->n_entries <= 64);
    for (size_t i = 0; i < ci->n_entries; i++) {
        specs[i] = ci->entries[i].spec;
        draws[i] = ci->entries[i].draws;
    }
    /* the variants' order: cheapest first (draws x V), so they stop early */
    const char *by_cost[64];
    uint64_t by_cost_draws[64];
    cheapest_first(ci, by_cost, by_cost_draws);
    /* every host variant has an expectation here (the GPU's is test_gpu's) */
    size_t host_variants = 0;
    for (size_t i = 0; i < sv_registry_broken_count(); i++)
        host_variants += sv_registry_broken_get(i)->memspace == SV_MEM_HOST;
    CHECK(host_variants == sizeof expected / sizeof expected[0]);

    for (size_t v = 0; v < sizeof expected / sizeof expected[0]; v++) {
        const expectation *e = &expected[v];
        if (only && strcmp(only, e->variant) != 0)
            continue;
        sv_report *r;
        if (e->hard_case) { /* its named case, sized by the power formula */
            sv_case *c = NULL;
            char err[512];
            sv_power_report pw;
            CHECK(sv_case_from_spec(e->hard_case, &c, err, sizeof err) == 0);
            CHECK(sv_case_power(e->variant, c, 1, sv_bonferroni(1e-6, sv_tests_per_case(c)),
                                1.0 - 1e-6, &pw) == SV_OK);
            sv_case_free(c);
            uint64_t n = (uint64_t)pw.needed;
            printf("  %s: %s for %llu draws (power 1 - 1e-6 by the formula)\n", e->variant,
                   e->hard_case, (unsigned long long)n);
            r = run(e->variant, &e->hard_case, &n, 1, e);
        } else if (e->logits) {
            r = run(e->variant, logits_cases, logits_draws,
                    sizeof logits_cases / sizeof logits_cases[0], e);
        } else {
            r = run(e->variant, by_cost, by_cost_draws, ci->n_entries, e);
        }
        CHECK(r != NULL);
        if (!r)
            continue;
        int markov, checks = failed_checks(r, &markov);
        char buf[96];
        printf("  %-27s %s, failed checks: %s%s (%zu of %zu cases run)\n", e->variant,
               r->failed ? "FAIL" : "pass", names(checks, buf, sizeof buf),
               markov ? " (and a Markov case)" : "", r->n_cases, r->n_planned);
        CHECK(r->failed > 0);
        CHECK(checks & e->check);
        if (e->markov)
            CHECK(markov);
        sv_report_free(r);
        char name[160];
        snprintf(name, sizeof name, "%s: caught by %s", e->variant,
                 names(e->check, buf, sizeof buf));
        feature(name);
    }

    /* the negative controls: correct samplers by other methods pass */
    const char *controls[] = {"ref_race", "ref_float", "ref_layout"};
    for (size_t i = 0; i < 3; i++) {
        if (only && strcmp(only, controls[i]) != 0)
            continue;
        /* the ci suite without the two largest vocabularies: ref_race pays a
         * logarithm per token, 200 s on V = 151936 on two cores */
        const char *small[64];
        uint64_t small_draws[64];
        size_t n = 0;
        for (size_t j = 0; j < ci->n_entries; j++)
            if (!strstr(specs[j], "V=128256") && !strstr(specs[j], "V=151936")) {
                small[n] = specs[j];
                small_draws[n++] = draws[j];
            }
        sv_report *r = run(controls[i], small, small_draws, n, NULL);
        CHECK(r != NULL);
        if (r) {
            int markov, checks = failed_checks(r, &markov);
            char buf[96];
            printf("  %-10s %zu cases: %zu passed, %zu suspect, %zu failed (%s)\n", controls[i],
                   r->n_cases, r->passed, r->suspect, r->failed, names(checks, buf, sizeof buf));
            CHECK(r->failed == 0 && r->suspect == 0);
            sv_report_free(r);
        }
        char name[128];
        snprintf(name, sizeof name, "negative control %s passes the ci suite (V <= 32000)",
                 controls[i]);
        feature(name);
    }
    return check_exit();
}
