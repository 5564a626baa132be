/* test_case_draws.c: each case runs at its own draws, whatever the order the
 * run takes them in. A mixed run takes the cases of one vocabulary together,
 * so a Markov pair (a chain: a run of its own) between two of them runs
 * after both; it once took the draws of the case at its place in that order
 * (the third case's here), and after cases a sampler lacks, of a later
 * one's. And the budget probe's two switches: one_case_a_mix (every case
 * reported alone, in mixed batches) and no_mix_probes (no
 * batch-composition or seed probes). */
#include <string.h>
#include "check.h"
#include "sv_base.h"
#include "sv_check.h"
#include "sv_registry.h"

static const char *const specs[] = {"zipf:V=100,K=2", "markov:V=16,K=3,support=8",
                                    "identical:V=100,K=2"};
static const uint64_t draws[] = {3000, 5000, 7000};

static int dones;
static int count_done(const sv_report *r, void *ctx)
{
    (void)r, (void)ctx;
    dones++;
    return 0;
}

static sv_report *run(int one_case_a_mix, int no_mix_probes)
{
    sv_verify_config cfg = {.sampler = sv_registry_find("ref"), .specs = specs,
                            .draws = draws, .n_cases = 3, .seed = 5, .alpha = 1e-6,
                            .batch = 256, .threads = 1, .input = SV_INPUT_PROBS,
                            .one_case_a_mix = one_case_a_mix, .no_mix_probes = no_mix_probes,
                            .case_done = count_done};
    sv_report *r = NULL;
    dones = 0;
    CHECK(sv_verify(&cfg, &r) == SV_OK);
    CHECK(r && r->n_cases == 3);
    return r;
}

int main(void)
{
    sv_report *r = run(0, 0);
    /* the order run: the two of V = 100 together, then the Markov pair */
    CHECK(r->cases[0].spec == 0 && r->cases[1].spec == 2 && r->cases[2].spec == 1);
    for (size_t k = 0; k < r->n_cases && k < 3; k++) {
        const sv_case_report *cr = &r->cases[k];
        CHECK(strcmp(cr->name, specs[cr->spec]) == 0);
        CHECK(cr->runs[0].asked == draws[cr->spec]);
        /* a mix's cases share its sequences (their split moves a little),
         * a Markov pair's draws round up to its streams' */
        const double off = (double)cr->runs[0].draws - (double)draws[cr->spec];
        CHECK(off > -512.0 && off < 512.0);
    }
    CHECK(r->cases[0].runs[0].batch_probed > 0); /* mixed: the probes ran */
    sv_report_free(r);
    feature("each case at its own draws, the Markov pair run after its neighbours");

    r = run(1, 1);
    CHECK(dones == 3); /* each case told apart */
    for (size_t k = 0; k < r->n_cases && k < 3; k++) {
        CHECK(r->cases[k].spec == k);
        CHECK(r->cases[k].runs[0].asked == draws[k]);
        CHECK(r->cases[k].runs[0].batch_probed == 0 && r->cases[k].runs[0].seed_probed == 0);
    }
    sv_report_free(r);
    feature("one_case_a_mix: each case alone, in order; no_mix_probes: no probes");
    return check_exit();
}
