/* test_budget.c: verify --budget's share of the time (budget_share.c) on a
 * made-up rate table: the draws it gives, each case's min-det against its
 * cap's (the ratio shared), and the seconds, the re-run's reserve (at most a
 * fifth of the budget) included, within the budget. And the probe's rounds
 * (budget_probe.c) on a made-up clock: the rate they find. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "budget.h"
#include "sv_base.h"
#include "sv_cases.h"

static sv_case *make(const char *spec)
{
    sv_case *c = NULL;
    char err[256];
    if (sv_case_from_spec(spec, &c, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        exit(2);
    }
    return c;
}

static double spent(const sv_budget *b, const sv_budget_case *cs, size_t n)
{
    double sum = b->start_up + b->reserve_seconds;
    for (size_t i = 0; i < n; i++)
        sum += cs[i].seconds;
    return sum;
}

/* The probe's rounds (budget_probe.c's steps) against a made-up clock: a
 * case that costs setup + max(draws - free, 0) / rate seconds, plus noise[r]
 * in round r (round 0: the first, SV_PROBE_FIRST_DRAWS). `free`: draws that
 * cost next to nothing (as the first thousands of ci's Markov case of 4096
 * streams did).
 * Returns the rate the probe ends with; *longest: the longest round's
 * draws' time. */
static double probe_sim(double setup, double rate, double free, const double *noise,
                        double *longest)
{
    uint64_t draws = SV_PROBE_FIRST_DRAWS;
    const double first = setup + fmax((double)draws - free, 0.0) / rate + noise[0];
    double found = (double)draws / first;
    unsigned char measured = 0;
    *longest = 0.0;
    for (int r = 1; r <= SV_PROBE_ROUNDS && !measured; r++) {
        draws = sv_probe_next_draws(found, draws, r == 1 ? sv_probe_growth(first) : 2.0);
        const double drawing = fmax((double)draws - free, 0.0) / rate;
        *longest = fmax(*longest, drawing);
        found = sv_probe_round_rate(draws, setup + drawing + noise[r], first, &measured);
    }
    return found;
}

int main(void)
{
    /* the rates the probe ends with, within 5% of the true ones, and no
     * round drawing longer than a second: ci's Markov case of 4096 streams,
     * whose set-up (40 ms) was all its first rounds took, their thousands of
     * draws nearly free, and by the clock's noise shorter than the first
     * (the probe kept the first round's rate, 1600 draws/s, or took a
     * noise-sized difference for the rate: it planned 43 minutes, or 0.2 s,
     * for a case of 3 s); the same case, quiet; a case with no free draws; a
     * fast sampler with no set-up; a slow one (a Python sampler at 2000
     * draws/s); a long set-up before fast draws; a torch sampler's 4 s
     * start-up before 10^4 draws/s; a sampler of 0.2 s a draw */
    const double noisy[SV_PROBE_ROUNDS + 1] = {0.0, -0.0002, -0.0005, -0.0001, -0.0003, 0.0014};
    const double quiet[SV_PROBE_ROUNDS + 1] = {0};
    const struct { double setup, rate, free; const double *noise; } sims[] = {
        {0.04, 3e5, 8192, noisy}, {0.04, 3e5, 0, noisy}, {0.04, 3e5, 8192, quiet},
        {1e-4, 4e6, 0, noisy}, {0.2, 2000.0, 0, noisy}, {0.5, 5e7, 0, noisy},
        {4.0, 1e4, 0, noisy}, {0.0, 5.0, 0, quiet}};
    for (size_t i = 0; i < sizeof sims / sizeof sims[0]; i++) {
        double longest;
        const double found = probe_sim(sims[i].setup, sims[i].rate, sims[i].free,
                                       sims[i].noise, &longest);
        CHECK_NEAR(found, sims[i].rate, 0.05 * sims[i].rate);
        /* a round's drawing: a second at most, or for the sampler of 0.2 s
         * a draw, twice its first round's (2 x 64 draws: 25.6 s), not the
         * 16 times a start-up's first round is given */
        CHECK(longest <= fmax(1.0, 2.0 * SV_PROBE_FIRST_DRAWS / sims[i].rate));
    }
    feature("the probe's rounds find the rate within 5%, set-up and clock noise left out");

    sv_case *seedlab = make("seedlab:V=100,K=3"), *markov = make("markov:V=16,K=3,support=8");
    const double split = 1e-8;

    /* two cases of one p at 1000 and 4000 draws/s, 60 s, a re-run kept: one
     * D each (equal caps: equal ratios), the reserve capped at 12 s (the
     * slower case's re-run, 4 D/1000, is far more): D/1000 + D/4000 + 12 +
     * 0.5 s start-up = 60 s */
    sv_budget_case cs[3] = {
        {.c = seedlab, .spec = "a", .cost = {1000.0, 0.0, 1.0}, .cap = 10000000},
        {.c = seedlab, .spec = "b", .cost = {4000.0, 0.0, 1.0}, .cap = 10000000},
        {.c = markov, .spec = "m", .cost = {1e9, 0.0, 1.0}, .cap = 20000000},
    };
    sv_budget b = {.seconds = 60.0, .split = split, .rerun = 1, .start_up = 0.5};
    CHECK(sv_budget_share(&b, cs, 2) == SV_OK);
    const double D = 47.5 / (1.0 / 1000 + 1.0 / 4000);
    CHECK_NEAR((double)cs[0].draws, D, 0.01 * D);
    CHECK_NEAR((double)cs[1].draws, D, 0.01 * D);
    CHECK_NEAR(b.min_det, sv_budget_min_det(seedlab, (uint64_t)D, split), 0.005 * b.min_det);
    CHECK_NEAR(b.reserve_seconds, 12.0, 1e-9);
    CHECK_NEAR(b.rerun_seconds, 4.0 * (double)cs[0].draws / 1000, 1e-9);
    CHECK(b.reserve_for == 0);
    CHECK(spent(&b, cs, 2) <= 60.0 && spent(&b, cs, 2) >= 59.0);
    feature("sv_budget_share: equal caps, equal draws; the re-run's reserve a fifth at most");
    /* the re-run the reserve fits: 12 s of case a at 1000/s is 12,000 draws,
     * not its 4 D; case b's at 4000/s is 48,000, also under its 4 D */
    CHECK(sv_budget_rerun_draws(&b, &cs[0]) == 12000);
    CHECK(sv_budget_rerun_draws(&b, &cs[1]) == 48000);
    sv_budget roomy = b;
    roomy.reserve_seconds = 1e9; /* a reserve that fits 4x keeps 4x */
    CHECK(sv_budget_rerun_draws(&roomy, &cs[0]) == 4 * cs[0].draws);
    feature("sv_budget_rerun_draws: a SUSPECT re-run cut to what the reserve fits");

    /* what is shared is the loss against the sizing: a case of V = 2000 sized
     * for 10^6 draws beside one of V = 100 sized for 10^7, at one rate, end at
     * the same ratio of min-det to their caps' (about 4.3: 600,000 draws for
     * 1.1e7 asked, min-det falling as 1/sqrt(N)), not the wide one taking the
     * budget to bring its absolute min-det down to the other's. (A case whose
     * min-det saturates, N far below V, keeps the floor: more draws there do
     * not lower its ratio.) */
    sv_case *wide = make("zipf:V=2000,K=2");
    sv_budget_case mixed[2] = {
        {.c = seedlab, .spec = "narrow", .cost = {2000.0, 0.0, 1.0}, .cap = 10000000},
        {.c = wide, .spec = "wide", .cost = {2000.0, 0.0, 1.0}, .cap = 1000000},
    };
    sv_budget m = {.seconds = 300.0, .split = split, .rerun = 0, .start_up = 0.0};
    CHECK(sv_budget_share(&m, mixed, 2) == SV_OK);
    const double r0 = mixed[0].min_det / mixed[0].cap_min_det;
    const double r1 = mixed[1].min_det / mixed[1].cap_min_det;
    CHECK_NEAR(r0, r1, 0.02 * r0);
    CHECK_NEAR(m.ratio, fmax(r0, r1), 1e-12);
    CHECK(r0 > 1.0 && mixed[0].draws < mixed[0].cap && mixed[1].draws < mixed[1].cap);
    CHECK(mixed[1].min_det > 2.0 * mixed[0].min_det); /* not equalised in absolute TV */
    CHECK(m.run_seconds <= 300.0 && m.run_seconds >= 297.0);
    sv_case_free(wide);
    feature("sv_budget_share: each case at one ratio of min-det to its cap's");

    /* min-det as the report computes it: 2 (E[TV] + McDiarmid's margin) */
    double p[100];
    sv_case_target_dist(seedlab, 0, p);
    CHECK_NEAR(sv_budget_min_det(seedlab, 11400, split),
               2.0 * (sv_tv_expected(p, 100, 11400) + sqrt(log(1.0 / split) / (2.0 * 11400))),
               1e-12);
    feature("sv_budget_min_det: the report's min-det, 2 (E[TV] + McDiarmid's margin)");

    /* a Markov pair (no TV) keeps the share of its cap the most cut case keeps */
    CHECK(sv_budget_share(&b, cs, 3) == SV_OK);
    CHECK(isnan(cs[2].min_det));
    CHECK_NEAR((double)cs[2].draws / 20000000, (double)cs[0].draws / 10000000, 1e-6);
    CHECK(spent(&b, cs, 3) <= 60.0);
    feature("sv_budget_share: a Markov pair at the most cut case's share");

    /* a budget past every cap: each case at its cap, and no more */
    cs[0].cap = cs[1].cap = 2000;
    CHECK(sv_budget_share(&b, cs, 3) == SV_OK);
    CHECK(cs[0].draws == 2000 && cs[1].draws == 2000 && cs[2].draws == 20000000);
    CHECK_NEAR(b.min_det, sv_budget_min_det(seedlab, 2000, split), 1e-12);
    feature("sv_budget_share: a large budget stops at the caps");

    /* too small: the fewest draws do not fit; the error names the least budget */
    cs[0].cap = cs[1].cap = 10000000;
    b.seconds = 1.0; /* 256 draws each: 0.82 s with the start-up, a re-run 1.02 s more */
    CHECK(sv_budget_share(&b, cs, 2) == SV_EBAD);
    CHECK(strstr(sv_error_message(), "give --budget 2 or more") != NULL);
    feature("sv_budget_share: a budget below the fewest draws' cost is refused with the least");

    sv_case_free(seedlab);
    sv_case_free(markov);
    return check_exit();
}
