/* test_repro.c: the same seed gives bit-identical tallies and verdicts
 * whatever the batch size and thread count, and whether the sampler runs
 * in its own process or in this one. */
#include <string.h>
#include "check.h"
#include "suite_config.h"
#include "sv_base.h"
#include "sv_cases.h"
#include "sv_check.h"
#include "sv_registry.h"
#include "sv_run.h"
#include "sv_stats.h"

static sv_tally *run_sampler(const sv_sampler *s, const sv_case *c, const sv_drafter *d,
                             const sv_pair_plan *plan, int32_t batch, int32_t threads,
                             int in_process)
{
    sv_tally *t = NULL;
    sv_run_config cfg = {s,    300001,     99,   batch,  threads, 0,   "repro",
                         0,    in_process, 0.0,  NULL,   0,       0,   NULL, 0};
    if (sv_tally_alloc(c, plan, &t) != SV_OK || sv_run(&cfg, c, d, plan, t) != SV_OK)
        return NULL;
    return t;
}

/* Shards 0..N-1 of one run, each alone, their tallies summed. */
static sv_tally *run_shards(const sv_sampler *s, const sv_case *c, const sv_drafter *d,
                            const sv_pair_plan *plan, int32_t batch, int32_t threads, uint32_t N)
{
    sv_tally *sum = NULL;
    if (sv_tally_alloc(c, plan, &sum) != SV_OK)
        return NULL;
    for (uint32_t i = 0; i < N; i++) {
        sv_tally *t = NULL;
        sv_run_config cfg = {s,         300001,  99,   batch, threads, 0, "shard", 0, 0, 0.0,
                             NULL,      i,       N,    NULL, 0};
        if (sv_tally_alloc(c, plan, &t) != SV_OK || sv_run(&cfg, c, d, plan, t) != SV_OK) {
            sv_tally_free(t);
            sv_tally_free(sum);
            return NULL;
        }
        sv_tally_add(sum, t, plan);
        sv_tally_free(t);
    }
    return sum;
}

static sv_tally *run(const sv_case *c, const sv_drafter *d, const sv_pair_plan *plan,
                     int32_t batch, int32_t threads, int in_process)
{
    return run_sampler(&sv_sampler_ref, c, d, plan, batch, threads, in_process);
}

/* The same violations counted and the same first ones noted, in order. */
static int same_notes(const sv_tally *a, const sv_tally *b)
{
    int ok = a->violations == b->violations && a->n_notes == b->n_notes;
    for (int32_t i = 0; ok && i < a->n_notes; i++)
        ok = strcmp(a->notes[i], b->notes[i]) == 0;
    return ok;
}

static int same(const sv_tally *a, const sv_tally *b, const sv_pair_plan *plan)
{
    size_t cells = (size_t)(a->K + 1) * (size_t)a->V;
    size_t seq = (size_t)plan->seq_rows.nbins * (size_t)plan->seq_cols.nbins;
    size_t pos = (size_t)plan->pos_rows.nbins * (size_t)plan->pos_cols.nbins;
    return a->draws == b->draws && memcmp(a->hist, b->hist, cells * sizeof *a->hist) == 0 &&
           memcmp(a->reached, b->reached, sizeof a->reached) == 0 &&
           memcmp(a->length, b->length, sizeof a->length) == 0 &&
           memcmp(a->pairs_seq, b->pairs_seq, seq * sizeof *a->pairs_seq) == 0 &&
           memcmp(a->pairs_pos, b->pairs_pos, pos * sizeof *a->pairs_pos) == 0;
}

/* Field by field, not memcmp of whole structs: their padding bytes are
 * indeterminate (a sanitizer build has other garbage there than -O3). */
#define SAME(f) (memcmp(&x->f, &y->f, sizeof x->f) == 0)
static int same_gof(const sv_gof *x, const sv_gof *y)
{
    return SAME(stat) && SAME(df) && SAME(p) && SAME(exact);
}

static int same_position(const sv_position_eval *x, const sv_position_eval *y)
{
    return SAME(N) && SAME(bins) && SAME(tail_mass) && SAME(tail_categories) &&
           same_gof(&x->chi2, &y->chi2) && same_gof(&x->g, &y->g) && SAME(tv) &&
           SAME(tv_expected) && SAME(tv_threshold) && SAME(tv_min_detectable) && SAME(tv_p) &&
           SAME(w2_min_detectable) && SAME(verdict);
}

/* Everything but the seconds a run took. */
static int same_eval(const sv_run_eval *x, const sv_run_eval *y)
{
    int ok = SAME(seed) && SAME(draws) && SAME(K) && SAME(length_expected) &&
             SAME(length_observed) && same_gof(&x->length, &y->length) && SAME(length_verdict) &&
             same_gof(&x->indep_seq, &y->indep_seq) && same_gof(&x->indep_pos, &y->indep_pos) &&
             SAME(indep_seq_verdict) && SAME(indep_pos_verdict) && SAME(chain) &&
             SAME(transitions) && SAME(states_tested) && same_gof(&x->seq_chi2, &y->seq_chi2) &&
             same_gof(&x->seq_g, &y->seq_g) && SAME(first_accepted) && SAME(first_expected) &&
             SAME(seq_verdict) && SAME(violations) && SAME(contract_verdict) && SAME(verdict) &&
             SAME(n_findings);
    for (int32_t k = 0; ok && k <= x->K; k++)
        ok = same_position(&x->pos[k], &y->pos[k]);
    for (int32_t i = 0; ok && i < x->n_findings; i++)
        ok = strcmp(x->findings[i], y->findings[i]) == 0;
    return ok;
}

int main(void)
{
    sv_case *c = NULL;
    char err[512];
    CHECK(sv_case_from_spec("zipf:V=500,K=4", &c, err, sizeof err) == 0);
    sv_drafter *d = NULL;
    sv_pair_plan plan;
    CHECK(sv_drafter_alloc(c, &d) == SV_OK);
    CHECK(sv_pair_plan_build(c, 300001, &plan) == SV_OK);
    CHECK(plan.seq_ok && plan.pos_ok);

    sv_tally *a = run(c, d, &plan, 1000, 1, 0);
    sv_tally *b = run(c, d, &plan, 4096, 2, 0);
    sv_tally *e = run(c, d, &plan, 7, 2, 0); /* odd: rounded up to 8 */
    sv_tally *f = run(c, d, &plan, 65536, 3, 0);
    sv_tally *g = run(c, d, &plan, 4096, 2, 1);
    CHECK(a && b && e && f && g);
    if (a && b && e && f && g) {
        CHECK(a->draws == 300001);
        CHECK(a->violations == 0);
        CHECK(same(a, b, &plan));
        CHECK(same(a, e, &plan));
        CHECK(same(a, f, &plan));
        CHECK(same(a, g, &plan));
    }
    feature("tallies identical across --batch 1000/4096/7/65536, --threads 1/2/3 and "
            "--in-process");
    /* shards: each its contiguous share of the units, cut the same way
     * whatever its threads; summed, the whole run's counts */
    static const uint32_t shard_counts[] = {1, 2, 3, 7};
    for (size_t i = 0; a && i < sizeof shard_counts / sizeof shard_counts[0]; i++) {
        sv_tally *s = run_shards(&sv_sampler_ref, c, d, &plan, 4096, 1 + (int32_t)(i % 2),
                                 shard_counts[i]);
        CHECK(s && same(a, s, &plan));
        sv_tally_free(s);
    }
    feature("the tallies of shards 1, 2, 3 and 7 of a run sum to the whole run's");
    sv_tally_free(a);
    sv_tally_free(b);
    sv_tally_free(e);
    sv_tally_free(f);
    sv_tally_free(g);

    /* a sampler that breaks the contract (the residual onto the greedy
     * case's p = 0 tokens): which draws are noted first must not depend on
     * which thread met them first */
    const sv_sampler *swapped = sv_registry_find("residual_swapped");
    sv_case *g0 = NULL;
    sv_drafter *gd = NULL;
    sv_pair_plan gp;
    CHECK(swapped != NULL && sv_case_from_spec("greedy:V=100,K=3", &g0, err, sizeof err) == 0);
    CHECK(g0 && sv_drafter_alloc(g0, &gd) == SV_OK && sv_pair_plan_build(g0, 300001, &gp) == SV_OK);
    sv_tally *n1 = gd ? run_sampler(swapped, g0, gd, &gp, 1000, 1, 0) : NULL;
    sv_tally *n2 = gd ? run_sampler(swapped, g0, gd, &gp, 512, 3, 0) : NULL;
    sv_tally *n3 = gd ? run_sampler(swapped, g0, gd, &gp, 4096, 2, 1) : NULL;
    sv_tally *n4 = gd ? run_shards(swapped, g0, gd, &gp, 1000, 2, 3) : NULL;
    CHECK(n1 && n2 && n3 && n4);
    if (n1 && n2 && n3 && n4) {
        CHECK(n1->violations > 0 && n1->n_notes == SV_MAX_NOTES);
        CHECK(same_notes(n1, n2) && same_notes(n1, n3) && same_notes(n1, n4));
        CHECK(n1->note_at[0] < n1->note_at[SV_MAX_NOTES - 1]);
    }
    feature("the first violations noted are the same across --batch, --threads and --in-process");
    sv_tally_free(n1);
    sv_tally_free(n2);
    sv_tally_free(n3);
    sv_tally_free(n4);
    if (gd)
        sv_pair_plan_free(&gp);
    sv_drafter_free(gd);
    sv_case_free(g0);
    sv_pair_plan_free(&plan);
    sv_drafter_free(d);
    sv_case_free(c);

    suite_config s1, s2;
    sv_report *r1 = NULL, *r2 = NULL;
    suite_config_init(&s1, "smoke", &sv_sampler_ref, 0);
    suite_config_init(&s2, "smoke", &sv_sampler_ref, 0);
    s1.cfg.batch = 1000;
    s1.cfg.threads = 1;
    s2.cfg.batch = 8192;
    s2.cfg.threads = 2;
    CHECK(sv_verify(&s1.cfg, &r1) == SV_OK && sv_verify(&s2.cfg, &r2) == SV_OK);
    if (r1 && r2) {
        for (size_t i = 0; i < r1->n_cases; i++) {
            const sv_case_report *x = &r1->cases[i], *y = &r2->cases[i];
            CHECK(x->verdict == y->verdict && x->n_runs == y->n_runs);
            for (int j = 0; j < x->n_runs; j++)
                CHECK(same_eval(&x->runs[j], &y->runs[j]));
        }
    }
    feature("verdicts and p-values identical across batch and threads");
    sv_report_free(r1);
    sv_report_free(r2);
    return check_exit();
}
