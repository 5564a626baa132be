/* test_mix.c: mixed batches. The mix deals its cases as it says (every
 * case in every period, ragged drafts, half seeded); the laid-out rows are
 * each slot's case's rows, NaN past its drafts; a mixed run's tallies are
 * bit-identical across --batch, --threads and --in-process; and the checks
 * only mixed batches make catch what uniform batches cannot: a sampler
 * reading its neighbour's rows, one ignoring its seeds, one whose seeded
 * tokens depend on their place in the batch. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "chain.h"
#include "sv_base.h"
#include "sv_cases.h"
#include "sv_check.h"
#include "sv_registry.h"
#include "sv_run.h"

#define N_CASES 3
static const char *const specs[N_CASES] = {"zipf:V=200,K=4", "seedlab:V=200,K=3",
                                           "greedy:V=200,K=2"};

/* ---- samplers that only mixed batches catch -------------------------------------- */

/* Reads the rows of sequence b ^ 1 (its neighbour) instead of its own. */
static int neighbour_verify(void *state, const sv_batch *bt)
{
    /* every sequence through its neighbour's rows (its own when the neighbour has fewer) */
    int32_t B = bt->B;
    for (int32_t b = 0; b < B; b++) {
        sv_batch s = *bt;
        const int32_t o = (b ^ 1) < B && sv_batch_num_drafts(bt, b ^ 1) >= sv_batch_num_drafts(bt, b)
                              ? b ^ 1
                              : b;
        s.B = 1;
        s.layout = SV_LAYOUT_PADDED;
        s.K = sv_batch_num_drafts(bt, b);
        s.num_drafts = bt->num_drafts + b;
        s.cu_num_drafts = NULL;
        s.indices = bt->indices + b;
        s.seeds = bt->seeds + b;
        s.seeded = bt->seeded + b;
        s.target = bt->target + sv_batch_target_offset(bt, o);
        s.draft = bt->draft ? bt->draft + sv_batch_draft_offset(bt, o) : NULL;
        s.draft_tokens = bt->draft_tokens + sv_batch_drafts_offset(bt, b);
        s.out_tokens = bt->out_tokens + sv_batch_out_offset(bt, b);
        s.out_accepted = bt->out_accepted + b;
        int rc = sv_chain_verify(state, &s, NULL);
        if (rc != SV_SAMPLER_OK)
            return rc;
    }
    return SV_SAMPLER_OK;
}

/* The correct chain with every sequence's seed replaced by one constant. */
static int seedless_verify(void *state, const sv_batch *bt)
{
    uint64_t *seeds = malloc((size_t)bt->B * sizeof *seeds);
    if (!seeds)
        return SV_SAMPLER_ENOMEM;
    for (int32_t b = 0; b < bt->B; b++)
        seeds[b] = 12345;
    sv_batch s = *bt;
    s.seeds = seeds;
    int rc = sv_chain_verify(state, &s, NULL);
    free(seeds);
    return rc;
}

/* Seeded sequences keyed by their place in the batch, not their index. */
static int placed_verify(void *state, const sv_batch *bt)
{
    uint64_t *idx = malloc((size_t)bt->B * sizeof *idx);
    if (!idx)
        return SV_SAMPLER_ENOMEM;
    for (int32_t b = 0; b < bt->B; b++)
        idx[b] = bt->seeded[b] ? (uint64_t)b + 1000000007ull * bt->indices[0] : bt->indices[b];
    sv_batch s = *bt;
    s.indices = idx;
    int rc = sv_chain_verify(state, &s, NULL);
    free(idx);
    return rc;
}

#define LAYOUTS (SV_LAYOUT_BIT(SV_LAYOUT_PADDED) | SV_LAYOUT_BIT(SV_LAYOUT_PACKED))
static const sv_sampler neighbour = {"neighbour", "test: reads b^1's rows", SV_MEM_HOST,
                                     sv_chain_init, neighbour_verify, sv_chain_destroy, 0,
                                     LAYOUTS, SV_RULE_CHAIN};
static const sv_sampler seedless = {"seedless", "test: one seed for all", SV_MEM_HOST,
                                    sv_chain_init, seedless_verify, sv_chain_destroy, 0, LAYOUTS,
                                    SV_RULE_CHAIN};
static const sv_sampler placed = {"placed", "test: seeded by place", SV_MEM_HOST, sv_chain_init,
                                  placed_verify, sv_chain_destroy, 0, LAYOUTS, SV_RULE_CHAIN};

/* ---- the mix itself --------------------------------------------------------------- */

static void check_mix(sv_case *const *cases, const uint64_t *draws)
{
    sv_mix_config mc = {.cases = (const sv_case *const *)cases, .n_cases = N_CASES,
                        .draws = draws, .seed = 7, .layouts = LAYOUTS,
                        .seeding = SV_SEEDING_MIXED, .ragged = 1, .budget = SV_MIX_BUDGET};
    sv_mix *m = NULL;
    CHECK(sv_mix_build(&mc, &m) == SV_OK);
    if (!m)
        return;
    CHECK(m->period % 2 == 0 && m->period >= 2 * N_CASES && m->K == 4 && m->n_layouts == 2);
    int32_t per_case[N_CASES] = {0}, short_slots = 0, seeded = 0;
    for (int32_t s = 0; s < m->period; s++) {
        const int32_t c = m->case_of[s];
        per_case[c]++;
        CHECK(m->drafts[s] >= 0 && m->drafts[s] <= cases[c]->K);
        short_slots += m->drafts[s] < cases[c]->K;
        seeded += m->seeded[s];
        CHECK(m->cu[s + 1] == m->cu[s] + m->drafts[s]);
    }
    for (int32_t c = 0; c < N_CASES; c++)
        CHECK(per_case[c] >= 2);
    /* a quarter short and half seeded, within 5 sigma of the period's binomials */
    const double L = m->period;
    CHECK(fabs(short_slots - L / 4) < 5 * sqrt(L * 3 / 16) + 1);
    CHECK(fabs(seeded - L / 2) < 5 * sqrt(L / 4));
    feature("a mix deals every case into each period, a quarter of the slots short of "
            "their K, half seeded");

    uint64_t got[N_CASES], pairs[N_CASES], drafted[N_CASES], total = 0;
    sv_mix_counts(m, got, pairs, drafted);
    for (int32_t c = 0; c < N_CASES; c++) {
        total += got[c];
        /* the share of the draws each case asked for, to a slot per period */
        CHECK(fabs((double)got[c] - (double)draws[c]) <= (double)m->draws / L + 2.0);
        CHECK(pairs[c] <= got[c] / 2 && drafted[c] <= got[c]);
    }
    CHECK(total == m->draws);
    feature("every sequence counted once; each case's draws its share to a slot per period");

    /* every slot's rows are its case's, NaN past its drafts (padded) */
    for (int32_t layout = 0; layout < 2; layout++) {
        const size_t bytes = sv_mix_rows_bytes(m, layout);
        float *rows = malloc(bytes);
        CHECK(rows != NULL);
        if (!rows)
            continue;
        float *drafts = rows + sv_mix_target_bytes(m, layout) / sizeof(float);
        sv_mix_fill_rows(m, layout, rows, drafts);
        int ok = 1, nan_ok = 1;
        const size_t V = (size_t)m->V, K = (size_t)m->K;
        for (int32_t s = 0; s < m->period; s++) {
            const sv_case *c = cases[m->case_of[s]];
            const size_t d = (size_t)m->drafts[s];
            const float *t = rows + (layout ? (size_t)m->cu[s] + (size_t)s : (size_t)s * (K + 1)) * V;
            const float *q = drafts + (layout ? (size_t)m->cu[s] : (size_t)s * K) * V;
            ok = ok && memcmp(t, c->target, (d + 1) * V * sizeof *t) == 0 &&
                 memcmp(q, c->draft, d * V * sizeof *q) == 0;
            for (size_t k = d + 1; layout == SV_LAYOUT_PADDED && k <= K; k++)
                nan_ok = nan_ok && isnan(t[k * V]) && isnan(t[k * V + V - 1]);
        }
        CHECK(ok && nan_ok);
        free(rows);
    }
    feature("padded and packed rows are each slot's case's rows; padded rows past d are NaN");
    sv_mix_free(m);
}

/* ---- runs through samplers ---------------------------------------------------------- */

static sv_verify_config config(const sv_sampler *s, int32_t batch, int32_t threads, int inproc)
{
    sv_verify_config cfg = {.sampler = s, .n_cases = N_CASES, .seed = 11, .alpha = 1e-6,
                            .batch = batch, .threads = threads, .in_process = inproc,
                            .seeding = SV_SEEDING_MIXED};
    return cfg;
}

static int run_mix(const sv_sampler *s, sv_case *const *cases, const uint64_t *draws,
                   int32_t batch, int32_t threads, int inproc, sv_run_eval *evals)
{
    sv_verify_config cfg = config(s, batch, threads, inproc);
    memset(evals, 0, N_CASES * sizeof *evals);
    return sv_verify_mix(&cfg, (const sv_case *const *)cases, draws, N_CASES, 11, 1,
                         1e-6 / 40.0, 1, "test", evals, NULL);
}

static int same_evals(const sv_run_eval *a, const sv_run_eval *b)
{
    int ok = 1;
    for (int32_t c = 0; c < N_CASES; c++) {
        ok = ok && a[c].draws == b[c].draws && a[c].verdict == b[c].verdict &&
             memcmp(a[c].length_observed, b[c].length_observed, sizeof a[c].length_observed) == 0;
        for (int32_t k = 0; ok && k <= a[c].K; k++)
            ok = a[c].pos[k].N == b[c].pos[k].N && a[c].pos[k].chi2.stat == b[c].pos[k].chi2.stat &&
                 a[c].pos[k].tv == b[c].pos[k].tv;
        ok = ok && a[c].indep_seq.stat == b[c].indep_seq.stat &&
             a[c].batch_verdict == b[c].batch_verdict && a[c].seed_verdict == b[c].seed_verdict;
    }
    return ok;
}

int main(void)
{
    sv_case *cases[N_CASES] = {0};
    char err[512];
    for (int32_t i = 0; i < N_CASES; i++)
        CHECK(sv_case_from_spec(specs[i], &cases[i], err, sizeof err) == 0);
    const uint64_t draws[N_CASES] = {200000, 150000, 100000};
    check_mix(cases, draws);

    const sv_sampler *race = sv_registry_find("ref_race");
    CHECK(race != NULL && race->layouts != 0);
    sv_run_eval a[N_CASES], b[N_CASES], e[N_CASES], f[N_CASES];
    CHECK(run_mix(race, cases, draws, 4096, 2, 0, a) == SV_OK);
    CHECK(run_mix(race, cases, draws, 100, 1, 0, b) == SV_OK);
    CHECK(run_mix(race, cases, draws, 7, 3, 0, e) == SV_OK);
    CHECK(run_mix(race, cases, draws, 512, 2, 1, f) == SV_OK);
    for (int32_t c = 0; c < N_CASES; c++) {
        CHECK(a[c].verdict == SV_PASS && a[c].violations == 0);
        CHECK(a[c].batch_verdict == SV_PASS && a[c].batch_probed > 0);
    }
    /* greedy rows: the same tokens under any seed, so no seed verdict there */
    CHECK(a[0].seed_verdict == SV_PASS && a[1].seed_verdict == SV_PASS);
    CHECK(a[2].seed_verdict == SV_NA);
    CHECK(same_evals(a, b) && same_evals(a, e) && same_evals(a, f));
    feature("ref_race passes mixed batches, their probes too, the same across --batch "
            "4096/100/7, --threads 1/2/3 and --in-process");

    sv_run_eval n[N_CASES];
    CHECK(run_mix(&neighbour, cases, draws, 4096, 2, 0, n) == SV_OK);
    int failed = 0;
    for (int32_t c = 0; c < N_CASES; c++)
        failed += n[c].verdict == SV_FAIL;
    CHECK(failed >= 2);
    sv_verify_config uni = config(&neighbour, 4096, 2, 0);
    const uint64_t one_draws[1] = {200000};
    uni.specs = specs;
    uni.draws = one_draws;
    uni.n_cases = 1;
    uni.uniform = 1;
    sv_report *r = NULL;
    CHECK(sv_verify(&uni, &r) == SV_OK && r && r->failed == 0 && r->passed == 1);
    sv_report_free(r);
    feature("a sampler reading its neighbour's rows fails mixed batches (uniform ones cannot "
            "tell: the neighbour's rows are the same)");

    sv_run_eval s[N_CASES];
    CHECK(run_mix(&seedless, cases, draws, 4096, 2, 0, s) == SV_OK);
    CHECK(s[0].seed_verdict == SV_FAIL && s[1].seed_verdict == SV_FAIL);
    CHECK(s[0].pos[0].verdict == SV_PASS); /* right in distribution all the same */
    feature("a sampler ignoring its seeds fails seed sensitivity, its distributions right");

    sv_run_eval p[N_CASES];
    CHECK(run_mix(&placed, cases, draws, 4096, 2, 0, p) == SV_OK);
    CHECK(p[0].batch_verdict == SV_FAIL && p[1].batch_verdict == SV_FAIL);
    feature("a sampler keying seeded sequences by their place fails batch composition");

    for (int32_t i = 0; i < N_CASES; i++)
        sv_case_free(cases[i]);
    for (int32_t c = 0; c < N_CASES; c++) { /* each run's counts, kept for the report */
        sv_run_eval *runs[] = {&a[c], &b[c], &e[c], &f[c], &n[c], &s[c], &p[c]};
        for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++)
            sv_run_eval_free(runs[r]);
    }
    return check_exit();
}
