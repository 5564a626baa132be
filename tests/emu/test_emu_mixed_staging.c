/* test_emu_mixed_staging.c: the bytes a CUDA sampler's stage copies per
 * draw (issue 40), mixed batches against uniform ones, on tests/emu.
 *
 * Each CUDA sampler (cuda_naive, cuda_fused) runs three cases of one V
 * through the runner as verify drives it (sv_run_mix, in process, one
 * thread; harness/run/host_calls.c built here over the stage on tests/emu),
 * in each layout, mixed, and each case alone in uniform batches; the
 * stand-in runtime counts the copies (emu_copies.h). A stage must copy a
 * case's rows once, not once per sequence: host to device, at most
 *   rows + arrays + draws x (4 (2K + 1) + 40) + calls x 64 bytes,
 * where rows is every case's rows once (sum of (2K_c + 1) V floats, and one
 * poisoned row), arrays the mix's per-slot arrays laid out for the epoch
 * (29 bytes a slot: a mix's, as the host lays them out), and per draw its
 * drafts, poisoned outputs (K + 1 slots and the count), cu, index and seed;
 * device to host at most draws x 4 (K + 2) + calls x 64. Before the fix the
 * stage copied the epoch's rows, every sequence its own (about 6 x 900
 * slots of rows here): ~9 KB a draw, where the bound is ~0.1 KB.
 * The mixed run must also count what the CPU twin counts (ref for
 * cuda_naive) on the same mix: the rows the device built are the host's.
 * Prints each measurement (docs/gpu.md, "Mixed batches: what they stage"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "emu_copies.h"
#include "sv_registry.h"
#include "sv_run.h"

enum { BATCH = 256, DRAWS = 400 }; /* per case: 1200 a mix, within an epoch */
static const char *const specs[] = {"zipf:V=256,K=4,s=1.2", "disjoint:V=256,K=3",
                                    "identical:V=256,K=2"};
enum { N_CASES = 3 };

typedef struct measured {
    sv_emu_copies copies;
    uint64_t draws;
    sv_tally *tallies[N_CASES];
} measured;

static sv_case *cases[N_CASES];
static sv_drafter *drafters[N_CASES];

static void load_cases(void)
{
    char err[512];
    for (int i = 0; i < N_CASES; i++) {
        CHECK(sv_case_from_spec(specs[i], &cases[i], err, sizeof err) == 0 && cases[i]);
        CHECK(sv_drafter_alloc(cases[i], &drafters[i]) == SV_OK);
    }
}

/* The mix of the three cases in `layout`, run through s: its copies. */
static int run_mixed(const sv_sampler *s, int32_t layout, measured *out, sv_pair_plan *plans,
                     sv_mix **mix)
{
    const uint64_t draws[N_CASES] = {DRAWS, DRAWS, DRAWS};
    sv_mix_config mc = {.cases = (const sv_case *const *)cases, .n_cases = N_CASES,
                        .draws = draws, .seed = 0x5eed40u, .layouts = SV_LAYOUT_BIT(layout),
                        .seeding = SV_SEEDING_MIXED, .ragged = 1, .budget = SV_MIX_BUDGET,
                        .alias = 1};
    CHECK(sv_mix_build(&mc, mix) == SV_OK);
    uint64_t got[N_CASES], pairs[N_CASES], drafted[N_CASES];
    sv_mix_counts(*mix, got, pairs, drafted);
    for (int i = 0; i < N_CASES; i++) {
        CHECK(sv_pair_plan_build_counts(cases[i], pairs[i], drafted[i], &plans[i]) == SV_OK);
        CHECK(sv_tally_alloc(cases[i], &plans[i], &out->tallies[i]) == SV_OK);
    }
    sv_run_config cfg = {.sampler = s, .seed = 0x5eed40u, .batch = BATCH, .threads = 1,
                         .in_process = 1, .input = SV_INPUT_PROBS};
    sv_emu_copies_reset();
    int rc = sv_run_mix(&cfg, *mix, (const sv_drafter *const *)drafters, plans, out->tallies, 0,
                        NULL);
    out->copies = sv_emu_copies_read();
    out->draws = (*mix)->draws;
    return rc;
}

/* Each case alone in uniform batches through s: the copies of the three runs. */
static void run_uniform(const sv_sampler *s, measured *out)
{
    memset(out, 0, sizeof *out);
    sv_emu_copies_reset();
    for (int i = 0; i < N_CASES; i++) {
        sv_pair_plan plan;
        sv_tally *t = NULL;
        CHECK(sv_pair_plan_build(cases[i], DRAWS, &plan) == SV_OK);
        CHECK(sv_tally_alloc(cases[i], &plan, &t) == SV_OK);
        sv_run_config cfg = {.sampler = s, .draws = DRAWS, .seed = 0x5eed40u, .batch = BATCH,
                             .threads = 1, .in_process = 1, .input = SV_INPUT_PROBS};
        CHECK(sv_run(&cfg, cases[i], drafters[i], &plan, t) == SV_OK);
        CHECK(t->draws == DRAWS && t->violations == 0);
        sv_tally_free(t);
        sv_pair_plan_free(&plan);
        out->draws += DRAWS;
    }
    out->copies = sv_emu_copies_read();
}

/* The bound above, host to device ([0]) and back ([1]), for `draws` draws
 * in `calls` calls (B = BATCH) with a mix's arrays for `slots` slots. */
static void bounds(uint64_t draws, uint64_t slots, unsigned long long out[2])
{
    uint64_t rows = 0, K = 0;
    for (int i = 0; i < N_CASES; i++) {
        rows += (2 * (uint64_t)cases[i]->K + 1) * (uint64_t)cases[i]->V * sizeof(float);
        K = (uint64_t)cases[i]->K > K ? (uint64_t)cases[i]->K : K;
    }
    rows += (uint64_t)cases[0]->V * sizeof(float); /* the poisoned row */
    const uint64_t calls = (draws + BATCH - 1) / BATCH + N_CASES;
    out[0] = rows + slots * 29 + draws * (4 * (2 * K + 1) + 40) + calls * 64;
    out[1] = draws * 4 * (K + 2) + calls * 64;
}

static void report(const char *sampler, const char *what, const measured *m,
                   const unsigned long long bound[2])
{
    printf("  %-10s %-16s %6llu draws: to device %9llu B in %5llu copies (%7.1f B/draw, "
           "bound %6.1f), back %8llu B in %5llu copies (%5.1f B/draw); on the device %9llu B in %5llu copies\n",
           sampler, what, (unsigned long long)m->draws, m->copies.bytes[SV_EMU_TO_DEVICE],
           m->copies.calls[SV_EMU_TO_DEVICE],
           (double)m->copies.bytes[SV_EMU_TO_DEVICE] / (double)m->draws,
           (double)bound[0] / (double)m->draws, m->copies.bytes[SV_EMU_TO_HOST],
           m->copies.calls[SV_EMU_TO_HOST],
           (double)m->copies.bytes[SV_EMU_TO_HOST] / (double)m->draws,
           m->copies.bytes[SV_EMU_ON_DEVICE], m->copies.calls[SV_EMU_ON_DEVICE]);
    CHECK(m->copies.bytes[SV_EMU_TO_DEVICE] <= bound[0]);
    CHECK(m->copies.bytes[SV_EMU_TO_HOST] <= bound[1]);
}

/* Every count of a and b the same, case by case. */
static int same_counts(sv_tally *const *a, sv_tally *const *b, const sv_pair_plan *plans)
{
    int same = 1;
    for (int i = 0; i < N_CASES; i++) {
        sv_tally_counts x[SV_TALLY_COUNTS], y[SV_TALLY_COUNTS];
        sv_tally_counts_of(a[i], &plans[i], x);
        sv_tally_counts_of(b[i], &plans[i], y);
        same &= a[i]->draws == b[i]->draws && a[i]->violations == 0 && b[i]->violations == 0;
        for (int j = 0; j < SV_TALLY_COUNTS; j++)
            same &= x[j].n == y[j].n &&
                    (!x[j].n || memcmp(x[j].data, y[j].data, x[j].n * sizeof *x[j].data) == 0);
    }
    return same;
}

static void free_run(measured *m, sv_pair_plan *plans, sv_mix *mix)
{
    for (int i = 0; i < N_CASES; i++) {
        sv_tally_free(m->tallies[i]);
        if (plans)
            sv_pair_plan_free(&plans[i]);
    }
    sv_mix_free(mix);
}

static void measure(const sv_sampler *s, const sv_sampler *twin)
{
    const int32_t layouts[2] = {SV_LAYOUT_PADDED, SV_LAYOUT_PACKED};
    unsigned long long bound[2];
    for (int l = 0; l < 2; l++) {
        measured m = {0}, t = {0};
        sv_pair_plan plans[N_CASES], twin_plans[N_CASES];
        sv_mix *mix = NULL, *twin_mix = NULL;
        CHECK(run_mixed(s, layouts[l], &m, plans, &mix) == SV_OK);
        bounds(m.draws, (uint64_t)mix->period * (uint64_t)mix->copies, bound);
        report(s->name, l ? "mixed, packed" : "mixed, padded", &m, bound);
        if (twin) {
            CHECK(run_mixed(twin, layouts[l], &t, twin_plans, &twin_mix) == SV_OK);
            CHECK(same_counts(m.tallies, t.tallies, plans));
            free_run(&t, twin_plans, twin_mix);
        }
        free_run(&m, plans, mix);
    }
    measured u;
    run_uniform(s, &u);
    bounds(u.draws, 0, bound);
    report(s->name, "uniform, padded", &u, bound);
}

int main(void)
{
    load_cases();
    measure(&sv_sampler_cuda_naive, sv_registry_find("ref"));
    measure(&sv_sampler_cuda_fused, NULL);
    feature("a CUDA sampler's stage copies each case's rows once, not each sequence's: "
            "bytes per draw within the bound, mixed and uniform, padded and packed, and the "
            "mixed run counts what ref counts");
    for (int i = 0; i < N_CASES; i++) {
        sv_drafter_free(drafters[i]);
        sv_case_free(cases[i]);
    }
    return check_exit();
}
