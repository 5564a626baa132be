/* budget.h: `verify --budget SECONDS` and `verify --plan`'s rates (issue 37):
 * each case's rate from a one-second probe of the sampler itself, and the
 * budget shared out so that the worst case's min-det, against what the suite
 * sized it for, is as small as the time allows (budget_share.c), printed
 * before the run (budget_print.c). */
#ifndef SV_BUDGET_H
#define SV_BUDGET_H

#include <stdint.h>
#include <stdio.h>
#include "sv_check.h"

#define SV_PROBE_SECONDS 1.0   /* what one case's probe aims to take */
#define SV_BUDGET_FLOOR 256    /* the fewest draws a budget gives a case */
#define SV_RERUN_FACTOR 4      /* a SUSPECT's re-run: 4x the draws (check/verify.c) */
#define SV_RESERVE_SHARE 0.2   /* the most of a budget kept for that re-run */

/* A case's cost as the probe found it: seconds = overhead + draws / rate. */
typedef struct sv_probe {
    double rate;               /* draws per second */
    double overhead;           /* seconds a run of it pays before its first draw */
    double seconds;            /* what the probe spent on it */
} sv_probe;

/* Probes the sampler on every case of `like` as it would run them
 * (isolation, input), on `threads` threads, in two short runs (progress on
 * stderr): each case's rate, and the start-up a run pays once. seconds:
 * what the probes took. */
int sv_probe_cases(const sv_verify_config *like, int32_t threads, sv_probe *out,
                   double *start_up, double *seconds);

/* The probe's steps (budget_probe.c), apart so that a test can drive them
 * with a made-up clock. Every case first runs SV_PROBE_FIRST_DRAWS; then up
 * to SV_PROBE_ROUNDS rounds, each of sv_probe_next_draws at the rate found
 * so far (the first round's draws over its time, then each round's), until
 * one draws long enough to measure. */
#define SV_PROBE_FIRST_DRAWS 64
#define SV_PROBE_ROUNDS 5
/* A round's draws: what takes half of SV_PROBE_SECONDS at `rate`, at least
 * `grow` times `last` and at most 64 times. */
uint64_t sv_probe_next_draws(double rate, uint64_t last, double grow);
/* The second round's growth for a case whose first round took `first`
 * seconds: up to 16 (each round of each case pays its process's start, so
 * the first round's rate is low), as far as a first round of draws alone
 * keeps the second's under 8 SV_PROBE_SECONDS; 2 at least, as later rounds. */
double sv_probe_growth(double first);
/* The rate a round of `draws` that took `took` seconds gives, from its time
 * beyond the first round's (`first`): the case's set-up and the run's
 * start-up cancel. A difference too short to tell from the clock's noise
 * gives a lower bound. *measured: whether the difference was long enough to
 * be the rate. */
double sv_probe_round_rate(uint64_t draws, double took, double first, unsigned char *measured);

typedef struct sv_budget_case {
    const sv_case *c;          /* the case: its position-1 target for min-det */
    const char *spec;
    const char *why;           /* the broken variant it was built to catch, or NULL */
    sv_probe cost;
    uint64_t cap;              /* the most draws worth running: the suite's, or --draws */
    uint64_t draws;            /* chosen */
    double seconds;            /* cost.overhead + draws / cost.rate */
    double min_det, cap_min_det; /* at draws and at cap; NAN for a Markov pair (no TV) */
    double power, cap_power;   /* against `why` at draws and at cap (verify --power's) */
} sv_budget_case;

typedef struct sv_budget {
    double seconds;            /* the budget for the run, probes not counted */
    double start_up;           /* what the run pays once, before any case */
    double split;              /* each p-value's false-alarm rate (the run's) */
    int rerun;                 /* reserve time for one SUSPECT re-run */
    double min_det;            /* chosen: the worst case's */
    double fewest_min_det;     /* and the best case's */
    double ratio;              /* the worst min-det / min-det at the cap: what is shared */
    double share;              /* the least draws / cap over the cases */
    double run_seconds;        /* the cases' seconds together */
    double rerun_seconds;      /* the costliest case's re-run, at 4x */
    double reserve_seconds;    /* kept for it: rerun_seconds, at most SV_RESERVE_SHARE */
    size_t reserve_for;        /* the case that re-run would be */
} sv_budget;

/* The smallest TV distance from p that `draws` detect at position 1 of c
 * with probability >= 1 - split: the report's min-det (check/evaluate.c). */
double sv_budget_min_det(const sv_case *c, uint64_t draws, double split);
/* Chooses every case's draws within b->seconds (SV_EBAD naming the least
 * budget that would do when even SV_BUDGET_FLOOR draws each do not fit). */
int sv_budget_share(sv_budget *b, sv_budget_case *cases, size_t n);
/* The power of each case against its `why` at its draws and at its cap. */
int sv_budget_powers(const sv_budget *b, sv_budget_case *cases, size_t n);
/* A SUSPECT re-run's draws for case c: 4x its draws, or fewer, so that the
 * re-run fits in what the budget kept for it (never under SV_BUDGET_FLOOR). */
uint64_t sv_budget_rerun_draws(const sv_budget *b, const sv_budget_case *c);
/* SV_EBAD when `seconds` is less than the probes of n_cases take. */
int sv_budget_least(double seconds, size_t n_cases);
/* verify --budget: probes cfg's cases, shares `seconds` out, prints what that
 * buys on `out`, and sets draws (in: each case's cap; out: its share) and
 * again (out: each case's SUSPECT re-run draws, for cfg.rerun_draws). */
int sv_budget_apply(const sv_verify_config *cfg, double seconds, uint64_t *draws,
                    uint64_t *again, FILE *out);
/* What the budget buys, before the run. */
void sv_budget_print(const sv_budget *b, const sv_budget_case *cases, size_t n,
                     double probe_seconds, FILE *out);

#endif
