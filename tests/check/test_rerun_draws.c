/* test_rerun_draws.c: a SUSPECT case's re-run takes 4x its draws, or the
 * draws cfg.rerun_draws gives it (verify --budget's: what its reserve fits).
 * Seed 104 of zipf:V=20,K=2 at 3000 draws in uniform batches is a fluke
 * SUSPECT of ref (progress_cli.sh's); its re-run passes. */
#include "check.h"
#include "sv_base.h"
#include "sv_check.h"
#include "sv_registry.h"

static const sv_case_report *run(const uint64_t *again, sv_report **r)
{
    static const char *const specs[] = {"zipf:V=20,K=2"};
    static const uint64_t draws[] = {3000};
    sv_verify_config cfg = {.sampler = sv_registry_find("ref"), .specs = specs,
                            .draws = draws, .n_cases = 1, .seed = 104, .alpha = 1e-6,
                            .batch = 4096, .threads = 1, .rerun_suspects = 1,
                            .rerun_draws = again, .uniform = 1, .input = SV_INPUT_PROBS};
    CHECK(sv_verify(&cfg, r) == SV_OK);
    CHECK(*r && (*r)->n_cases == 1);
    return &(*r)->cases[0];
}

int main(void)
{
    sv_report *r = NULL;
    const sv_case_report *cr = run(NULL, &r);
    CHECK(cr->n_runs == 2 && cr->runs[0].verdict == SV_SUSPECT);
    CHECK(cr->runs[0].draws == 3000 && cr->runs[1].draws == 12000);
    sv_report_free(r);
    feature("a SUSPECT re-run at 4x its draws by default");

    const uint64_t again[] = {5000};
    cr = run(again, &r);
    CHECK(cr->n_runs == 2 && cr->runs[0].verdict == SV_SUSPECT);
    CHECK(cr->runs[0].draws == 3000 && cr->runs[1].draws == 5000);
    CHECK(cr->verdict == cr->runs[1].verdict);
    sv_report_free(r);
    feature("cfg.rerun_draws: the re-run at the draws given");
    return check_exit();
}
