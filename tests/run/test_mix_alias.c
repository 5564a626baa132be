/* test_mix_alias.c: a mix whose period's rows fill whole pages is mapped
 * several times back to back, so a batch runs on through periods. The
 * period is aligned as it must be (L and the drafts of a period multiples
 * of the row alignment, whole pages in both layouts, the slots given their
 * K keep it); every batch's slots are the slots sv_mix_slot gives its
 * sequences, each sequence in exactly one batch, one layout a batch, and
 * the virtual drafts' prefix sums are those of the slots repeated; where
 * no period small enough fills whole pages (V = 32003), and for a CUDA
 * sampler, the rows are laid out once. */
#include <stdlib.h>
#include <unistd.h>
#include "check.h"
#include "sv_base.h"
#include "sv_cases.h"
#include "sv_run.h"

#define LAYOUTS (SV_LAYOUT_BIT(SV_LAYOUT_PADDED) | SV_LAYOUT_BIT(SV_LAYOUT_PACKED))

static sv_mix *build(sv_case *const *cases, int32_t n, const uint64_t *draws, int alias)
{
    sv_mix_config mc = {.cases = (const sv_case *const *)cases, .n_cases = n, .draws = draws,
                        .seed = 5, .layouts = LAYOUTS, .seeding = SV_SEEDING_MIXED,
                        .ragged = 1, .budget = SV_MIX_BUDGET, .alias = alias};
    sv_mix *m = NULL;
    CHECK(sv_mix_build(&mc, &m) == SV_OK && m != NULL);
    return m;
}

/* Each of the first `epochs` epochs' sequences in exactly one batch of B,
 * at the slot sv_mix_slot names, in one layout. */
static int spans_cover(const sv_mix *m, int32_t B, uint64_t epochs)
{
    const uint64_t n = epochs * m->epoch, units = epochs * sv_mix_units_per_epoch(m, B);
    unsigned char *seen = calloc((size_t)n, 1);
    int ok = seen != NULL;
    for (uint64_t u = 0; ok && u < units; u++) {
        sv_mix_span sp;
        sv_mix_unit_span(m, B, u, &sp);
        ok = sp.len <= B && (uint64_t)sp.s0 + (uint64_t)sp.len <= (uint64_t)m->copies * m->period;
        for (int32_t b = 0; ok && b < sp.len; b++) {
            const uint64_t g = sp.g0 + (uint64_t)b;
            ok = g < n && !seen[g] && (sp.s0 + b) % m->period == sv_mix_slot(m, g) &&
                 sv_mix_layout(m, g) == sv_mix_layout(m, sp.g0);
            if (ok)
                seen[g] = 1;
        }
    }
    for (uint64_t g = 0; ok && g < n; g++)
        ok = seen[g];
    free(seen);
    return ok;
}

int main(void)
{
    const char *specs[3] = {"zipf:V=1000,K=8", "seedlab:V=1000,K=5", "logits:V=1000,K=1"};
    sv_case *cases[3] = {0};
    char err[512];
    for (int32_t i = 0; i < 3; i++)
        CHECK(sv_case_from_spec(specs[i], &cases[i], err, sizeof err) == 0);
    const uint64_t draws[3] = {4000000, 2000000, 1000000};

    sv_mix *m = build(cases, 3, draws, 1);
    const size_t page = (size_t)sysconf(_SC_PAGESIZE), R = page / 32; /* 4000-byte rows */
    CHECK(m->copies > 1 && m->epoch == (uint64_t)(m->copies - 1) * (uint64_t)m->period);
    CHECK(m->period % (int32_t)R == 0 && (size_t)m->cu[m->period] % R == 0);
    for (int32_t l = 0; l < 2; l++)
        CHECK(sv_mix_target_bytes(m, l) % page == 0 && sv_mix_draft_bytes(m, l) % page == 0);
    int kept = 1, short_slots = 0;
    for (int32_t s = 0; s < m->period; s++) {
        const int32_t K = cases[m->case_of[s]]->K;
        short_slots += m->drafts[s] < K;
        kept = kept && m->drafts[s] >= 0 && m->drafts[s] <= K;
    }
    /* the aligning moved short slots only: still about a quarter short */
    CHECK(kept && short_slots > m->period / 8 && short_slots < m->period * 3 / 8);
    feature("an aliased period fills whole pages in both layouts; the drafts aligned by "
            "moving short slots only");

    size_t cu = 0;
    int cu_ok = 1;
    for (uint64_t v = 0; v <= (uint64_t)m->copies * (uint64_t)m->period; v++) {
        cu_ok = cu_ok && sv_mix_cu(m, v) == cu;
        cu += (size_t)m->drafts[v % (uint64_t)m->period];
    }
    CHECK(cu_ok);
    CHECK(spans_cover(m, 4096, 3) && spans_cover(m, 1000, 3) && spans_cover(m, 6, 2));
    int spanning = 0;
    for (uint64_t u = 0; u < sv_mix_units_per_epoch(m, 4096); u++) {
        sv_mix_span sp;
        sv_mix_unit_span(m, 4096, u, &sp);
        spanning += sp.len > m->period;
    }
    CHECK(spanning > 0);
    feature("batches run on through the periods of an epoch, each sequence in one batch at "
            "its own slot, for B = 4096, 1000 and 6");
    sv_mix_free(m);

    m = build(cases, 3, draws, 0);
    CHECK(m->copies == 1 && m->epoch == (uint64_t)m->period && spans_cover(m, 4096, 2) &&
          spans_cover(m, 6, 2));
    sv_mix_free(m);
    sv_case *odd = NULL;
    CHECK(sv_case_from_spec("cumshort:V=32003,K=2", &odd, err, sizeof err) == 0);
    m = build(&odd, 1, draws, 1);
    CHECK(m->copies == 1 && m->epoch == (uint64_t)m->period && spans_cover(m, 4096, 2));
    sv_mix_free(m);
    sv_case_free(odd);
    feature("laid out once (batches within a period) for a CUDA sampler and where no small "
            "period fills whole pages (V = 32003)");

    for (int32_t i = 0; i < 3; i++)
        sv_case_free(cases[i]);
    return check_exit();
}
