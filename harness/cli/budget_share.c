/* budget_share.c: `verify --budget`'s share of the time among the cases.
 *
 * Each case's min-det (the report's: the smallest TV from p that its draws
 * detect at position 1 with probability >= 1 - split) falls with its draws.
 * What is shared is the loss against the suite's sizing: the objective is
 * the worst ratio min-det(draws) / min-det(cap) over the cases, the
 * smallest ratio r whose draws (every case at the fewest that reach r,
 * never past its cap: beyond the suite's sizing more draws buy nothing the
 * suite asked for) cost no more than the budget, the run's start-up and the
 * reserve for a SUSPECT re-run included. Not the worst absolute min-det: a
 * case of V = 128256 sized for a few thousand draws would take the whole
 * budget and leave it undetectable anyway, while the others got the floor.
 * The reserve: the costliest case's re-run at 4x its draws, at most a fifth
 * of the budget (verify.c re-runs at 4x; what it would take beyond the
 * reserve is said before the run). A Markov pair has no TV check: it keeps
 * the share of its cap that the most cut case keeps. Costs are the probes'
 * (overhead + draws / rate). */
#include <math.h>
#include <stdlib.h>
#include "budget.h"
#include "sv_stats.h"

#define STEPS_PER_OCTAVE 4 /* min-det tabulated at draws 2^(1/4) apart, interpolated */

double sv_budget_min_det(const sv_case *c, uint64_t draws, double split)
{
    if (c->chain || draws == 0)
        return NAN;
    double *p = malloc((size_t)c->V * sizeof *p);
    if (!p)
        return NAN;
    sv_case_target_dist(c, 0, p);
    const double tv = 2.0 * (sv_tv_expected(p, c->V, draws) + sv_mcdiarmid_margin(draws, split));
    free(p);
    return tv;
}

/* One case's min-det at draws floor, floor 2^(1/4), ..., cap, as ratios to
 * its min-det at the cap (the last is 1). */
typedef struct table {
    size_t n;
    double *draws, *tv;
} table;

static int tabulate(const sv_budget_case *bc, double split, table *t)
{
    const double lo = bc->cap < SV_BUDGET_FLOOR ? (double)bc->cap : SV_BUDGET_FLOOR;
    const size_t most = (size_t)(STEPS_PER_OCTAVE * log2((double)bc->cap / lo)) + 2;
    t->n = 0;
    t->draws = malloc(most * sizeof *t->draws);
    t->tv = malloc(most * sizeof *t->tv);
    if (!t->draws || !t->tv)
        return sv_fail(SV_EENV, "out of memory");
    for (size_t j = 0; t->n < most; j++) {
        double d = floor(lo * pow(2.0, (double)j / STEPS_PER_OCTAVE));
        if (d >= (double)bc->cap || t->n + 1 == most)
            d = (double)bc->cap;
        t->draws[t->n] = d;
        t->tv[t->n++] = sv_budget_min_det(bc->c, (uint64_t)d, split);
        if (d == (double)bc->cap)
            break;
    }
    const double at_cap = t->tv[t->n - 1];
    for (size_t j = 0; j < t->n; j++)
        t->tv[j] /= at_cap;
    return SV_OK;
}

/* The fewest draws whose min-det is at most tv (the cap if none). */
static uint64_t draws_for(const table *t, double tv)
{
    if (t->tv[0] <= tv)
        return (uint64_t)t->draws[0];
    for (size_t j = 1; j < t->n; j++) {
        if (t->tv[j] > tv)
            continue;
        /* min-det falls about as 1 / sqrt(draws): interpolate in logs */
        const double f = (log(tv) - log(t->tv[j - 1])) / (log(t->tv[j]) - log(t->tv[j - 1]));
        const double d = exp(log(t->draws[j - 1]) + f * (log(t->draws[j]) - log(t->draws[j - 1])));
        return (uint64_t)fmin(ceil(d), t->draws[j]);
    }
    return (uint64_t)t->draws[t->n - 1];
}

static uint64_t at_least_floor(double share, uint64_t cap)
{
    const double d = fmax(ceil(share * (double)cap), fmin((double)cap, SV_BUDGET_FLOOR));
    return (uint64_t)fmin(d, (double)cap);
}

/* Every case's draws for the target ratio tv (TV cases) or share (when none
 * has TV), and the seconds that costs with the re-run's reserve. */
static double assign(sv_budget *b, sv_budget_case *cs, const table *ts, size_t n, double tv,
                     double share)
{
    int any_tv = 0;
    double kept = 1.0;
    for (size_t i = 0; i < n; i++)
        if (!cs[i].c->chain) {
            cs[i].draws = draws_for(&ts[i], tv);
            kept = fmin(kept, (double)cs[i].draws / (double)cs[i].cap);
            any_tv = 1;
        }
    double sum = 0.0, reserve = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (cs[i].c->chain)
            cs[i].draws = at_least_floor(any_tv ? kept : share, cs[i].cap);
        cs[i].seconds = cs[i].cost.overhead + (double)cs[i].draws / cs[i].cost.rate;
        sum += cs[i].seconds;
        const double again =
            cs[i].cost.overhead + SV_RERUN_FACTOR * (double)cs[i].draws / cs[i].cost.rate;
        if (b->rerun && again > reserve) {
            reserve = again;
            b->reserve_for = i;
        }
    }
    b->run_seconds = b->start_up + sum;
    b->rerun_seconds = reserve;
    reserve = fmin(reserve, SV_RESERVE_SHARE * b->seconds);
    b->reserve_seconds = reserve;
    return b->start_up + sum + reserve;
}

uint64_t sv_budget_rerun_draws(const sv_budget *b, const sv_budget_case *c)
{
    const double four = SV_RERUN_FACTOR * (double)c->draws;
    const double fit = (b->reserve_seconds - c->cost.overhead) * c->cost.rate;
    return (uint64_t)fmax(SV_BUDGET_FLOOR, floor(fmin(four, fit)));
}

/* assign at point x in [0, 1]: 0 the fewest draws, 1 every cap */
static double assign_at(sv_budget *b, sv_budget_case *cs, const table *ts, size_t n,
                        double tv_lo, double tv_hi, double x)
{
    return assign(b, cs, ts, n, exp(log(tv_hi) + x * (log(tv_lo) - log(tv_hi))), x);
}

int sv_budget_share(sv_budget *b, sv_budget_case *cs, size_t n)
{
    table *ts = calloc(n ? n : 1, sizeof *ts);
    if (!ts)
        return sv_fail(SV_EENV, "out of memory");
    int rc = SV_OK;
    double tv_lo = INFINITY, tv_hi = 0.0; /* the ratio at every cap (1), and at the floor */
    for (size_t i = 0; i < n && rc == SV_OK; i++) {
        if (cs[i].c->chain)
            continue;
        rc = tabulate(&cs[i], b->split, &ts[i]);
        if (rc == SV_OK) {
            tv_lo = fmin(tv_lo, ts[i].tv[ts[i].n - 1]);
            tv_hi = fmax(tv_hi, ts[i].tv[0]);
        }
    }
    if (!(tv_lo < INFINITY)) /* Markov pairs alone: the share is what varies */
        tv_lo = tv_hi = 1.0;
    tv_lo *= 0.999; /* a target below every cap's: each case at its cap */
    if (rc == SV_OK) {
        const double least = assign_at(b, cs, ts, n, tv_lo, tv_hi, 0.0);
        if (least > b->seconds) {
            /* the least budget B with S + min(R, f B) <= B, for the run's S and the
             * re-run's R: S / (1 - f) while the reserve is capped there, else S + R */
            const double S = b->run_seconds, R = b->rerun_seconds, f = SV_RESERVE_SHARE;
            const double need = R > f * S / (1.0 - f) ? S / (1.0 - f) : S + R;
            rc = sv_fail(SV_EBAD, "verify --budget %g: too small for these %zu cases: at the "
                         "fewest draws (%d a case) the probes say the run takes %.1f s, and "
                         "a SUSPECT re-run up to %.1f s more; give --budget %.0f or more",
                         b->seconds, n, SV_BUDGET_FLOOR, S, R, ceil(need));
        }
    }
    if (rc == SV_OK && assign_at(b, cs, ts, n, tv_lo, tv_hi, 1.0) > b->seconds) {
        double lo = 0.0, hi = 1.0; /* cost(lo) fits, cost(hi) does not */
        for (int it = 0; it < 60; it++) {
            const double mid = 0.5 * (lo + hi);
            if (assign_at(b, cs, ts, n, tv_lo, tv_hi, mid) <= b->seconds)
                lo = mid;
            else
                hi = mid;
        }
        assign_at(b, cs, ts, n, tv_lo, tv_hi, lo);
    }
    b->min_det = b->ratio = 0.0;
    b->fewest_min_det = INFINITY;
    b->share = 1.0;
    for (size_t i = 0; i < n; i++) {
        cs[i].min_det = sv_budget_min_det(cs[i].c, cs[i].draws, b->split);
        cs[i].cap_min_det = sv_budget_min_det(cs[i].c, cs[i].cap, b->split);
        b->share = fmin(b->share, (double)cs[i].draws / (double)cs[i].cap);
        if (!cs[i].c->chain) {
            b->min_det = fmax(b->min_det, cs[i].min_det);
            b->fewest_min_det = fmin(b->fewest_min_det, cs[i].min_det);
            b->ratio = fmax(b->ratio, cs[i].min_det / cs[i].cap_min_det);
        }
        free(ts[i].draws);
        free(ts[i].tv);
    }
    free(ts);
    return rc;
}

int sv_budget_powers(const sv_budget *b, sv_budget_case *cs, size_t n)
{
    int rc = SV_OK;
    for (size_t i = 0; i < n && rc == SV_OK; i++) {
        cs[i].power = cs[i].cap_power = NAN;
        if (!cs[i].why)
            continue;
        sv_power_report at = {0}, cap = {0};
        rc = sv_case_power(cs[i].why, cs[i].c, cs[i].draws, b->split, 1.0 - 1e-6, &at);
        if (rc == SV_OK)
            rc = sv_case_power(cs[i].why, cs[i].c, cs[i].cap, b->split, 1.0 - 1e-6, &cap);
        if (rc == SV_OK && at.known)
            cs[i].power = at.power, cs[i].cap_power = cap.power;
    }
    return rc;
}
