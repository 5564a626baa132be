/* budget_probe.c: a sampler's rate on each case of a run, from real runs.
 *
 * `verify --budget` and `verify --plan` need each case's cost before the run
 * without paying for a run: two short runs of every case through sv_verify
 * (the sampler's own calls, its isolation and input as the run would have
 * them; uniform batches, one case each, so that each case's time is its own,
 * read between the calls of case_done; a sampler that cannot take uniform
 * batches, of the packed layout alone or drawing its own drafts, runs each
 * case in a run of its own instead). A run pays its start-up once (for a
 * Python sampler its process and interpreter); the first round gives every
 * case SV_PROBE_FIRST_DRAWS, later rounds the draws that take it about half of
 * SV_PROBE_SECONDS at the pace found so far, until its draws take ENOUGH
 * beyond the first round's; each case's rate is the difference of its draws
 * over the difference of its times, which the start-up and each case's own
 * set-up leave out, and the start-up is what the first round's first case
 * took beyond its draws. */
#include <math.h>
#include <stdlib.h>
#include "budget.h"
#include "sv_base.h"
#include "sv_check.h"

#define SECOND_SECONDS (0.5 * SV_PROBE_SECONDS) /* what a later round aims at a case */
#define ENOUGH (0.25 * SV_PROBE_SECONDS)        /* drawing this long measures a rate */
#define RESOLVE (0.02 * SV_PROBE_SECONDS)       /* a shorter difference of times is noise */
#define MOST (2.0 * SV_PROBE_SECONDS) /* a case's drawing in later rounds, at most */

uint64_t sv_probe_next_draws(double rate, uint64_t last, double grow)
{
    const double want = rate * SECOND_SECONDS;
    return (uint64_t)fmin(fmax(want, grow * (double)last), 64.0 * (double)last);
}

double sv_probe_growth(int alone, double first)
{
    /* A case run alone pays the start-up in every round, so its first
     * rate is far too low: grow fast, 16 times, but never so fast that a
     * first round that was all draws (no start-up) would make the second
     * take over 16 s (a sampler of seconds a draw); twice at least. */
    if (!alone)
        return 2.0;
    return fmin(16.0, fmax(2.0, 16.0 * SV_PROBE_SECONDS / fmax(first, 1e-9)));
}

double sv_probe_round_rate(uint64_t draws, double took, double first, unsigned char *measured)
{
    /* A difference under RESOLVE is the noise of the clock and of the
     * case's set-up, which can even make it negative: the draws took at most
     * RESOLVE, so the rate is at least what that gives. That lower bound
     * sizes the next round safely (it takes at most SECOND_SECONDS) and
     * gives it 25 times this round's draws beyond SV_PROBE_FIRST_DRAWS; if the
     * rounds end there, the plan errs long, never short. */
    const double beyond = took - first;
    *measured = beyond >= ENOUGH;
    return (double)(draws - SV_PROBE_FIRST_DRAWS) / fmax(beyond, RESOLVE);
}

typedef struct stamps {
    double *at; /* at[i + 1]: when case i was done; at[0]: the run's start */
} stamps;

static int stamp(const sv_report *r, void *ctx)
{
    ((stamps *)ctx)->at[r->n_cases] = sv_now();
    return 0;
}

/* *takes[i]: whether the sampler is given case i, for one that cannot take
 * uniform batches (each case then runs alone): all of them, but for a
 * sampler drawing its own drafts the cases it takes. */
static int alone_takes(const sv_verify_config *cfg, unsigned char **takes)
{
    *takes = calloc(cfg->n_cases ? cfg->n_cases : 1, 1);
    if (!*takes)
        return sv_fail(SV_EENV, "out of memory");
    const int own = (cfg->sampler->inputs & SV_INPUT_OWN_DRAFTS) != 0;
    for (size_t i = 0; i < cfg->n_cases; i++) {
        char err[512];
        sv_case *c = NULL;
        if (!own) {
            (*takes)[i] = 1;
            continue;
        }
        if (sv_case_from_spec(cfg->specs[i], &c, err, sizeof err) != 0)
            return sv_fail(SV_EBAD, "%s", err);
        (*takes)[i] = (unsigned char)sv_own_drafts_take(c);
        sv_case_free(c);
    }
    return SV_OK;
}

/* A round for a sampler that takes mixed batches only (the packed layout
 * alone, or its own drafts): each case it takes runs alone in a run of its
 * own (each pays the start-up, which the rate's difference of rounds leaves
 * out); a case it cannot take (own_drafts.c) costs nothing, as in the run,
 * where it is left out. */
static int alone_round(const sv_verify_config *cfg, const uint64_t *draws,
                            const unsigned char *takes, double *took)
{
    int rc = SV_OK;
    for (size_t i = 0; i < cfg->n_cases && rc == SV_OK; i++) {
        took[i] = 0.0;
        if (!takes[i])
            continue;
        sv_verify_config one = *cfg;
        one.specs = cfg->specs + i, one.draws = draws + i, one.n_cases = 1, one.uniform = 0;
        one.case_done = NULL, one.case_done_ctx = NULL;
        sv_report *r = NULL;
        const double t0 = sv_now();
        rc = sv_verify(&one, &r);
        took[i] = sv_now() - t0;
        if (rc == SV_OK && r->n_cases < 1)
            rc = sv_fail(SV_EENV, "verify: the probe of the sampler's rate stopped on %s",
                         cfg->specs[i]);
        sv_report_free(r);
    }
    return rc;
}

/* One round: every case at draws[i]; took[i]: case i's seconds (the first
 * with the run's start-up). takes: NULL, or (a sampler that cannot take
 * uniform batches) which cases it takes, each run alone. */
static int round_of(const sv_verify_config *like, int32_t threads, const uint64_t *draws,
                    const unsigned char *takes, double *at, double *took)
{
    sv_verify_config cfg = *like;
    stamps s = {at};
    cfg.draws = draws, cfg.threads = threads, cfg.uniform = 1;
    cfg.progress = 0, cfg.rerun_suspects = 0, cfg.shard = NULL;
    cfg.case_done = stamp, cfg.case_done_ctx = &s;
    cfg.seconds_before = 0, cfg.watch = NULL;
    if (takes)
        return alone_round(&cfg, draws, takes, took);
    sv_report *r = NULL;
    at[0] = sv_now();
    int rc = sv_verify(&cfg, &r);
    if (rc == SV_OK && r->n_cases < cfg.n_cases)
        rc = sv_fail(SV_EENV, "verify: the probe of the sampler's rate stopped after %zu of "
                     "%zu cases", r->n_cases, cfg.n_cases);
    sv_report_free(r);
    for (size_t i = 0; rc == SV_OK && i < cfg.n_cases; i++)
        took[i] = at[i + 1] - at[i];
    return rc;
}

int sv_probe_cases(const sv_verify_config *like, int32_t threads, sv_probe *out,
                   double *start_up, double *seconds)
{
    const size_t n = like->n_cases;
    uint64_t *draws = calloc(n ? n : 1, sizeof *draws);
    unsigned char *measured = calloc(n ? n : 1, 1);
    double *at = calloc(n + 1, sizeof *at), *first = calloc(n ? n : 1, sizeof *first),
           *took = calloc(n ? n : 1, sizeof *took);
    unsigned char *takes = NULL;
    int rc = draws && measured && at && first && took ? SV_OK : sv_fail(SV_EENV, "out of memory");
    if (rc == SV_OK && !sv_takes_uniform(like->sampler))
        rc = alone_takes(like, &takes);
    for (size_t i = 0; rc == SV_OK && i < n; i++)
        draws[i] = SV_PROBE_FIRST_DRAWS;
    fprintf(stderr, "probe: the sampler's rate on %zu case%s: %d draws each", n,
            n == 1 ? "" : "s", SV_PROBE_FIRST_DRAWS);
    fflush(stderr);
    const double start = sv_now();
    if (rc == SV_OK)
        rc = round_of(like, threads, draws, takes, at, first);
    for (size_t i = 0; i < n && rc == SV_OK; i++) {
        out[i] = (sv_probe){(double)SV_PROBE_FIRST_DRAWS / fmax(first[i], 1e-6), 0.0, first[i]};
        if (takes && !takes[i]) { /* left out of the run: it costs nothing */
            out[i].rate = INFINITY;
            measured[i] = 1;
        }
    }
    /* then rounds of more draws for each case whose draws did not yet take
     * ENOUGH beyond its first run's (the others SV_PROBE_FIRST_DRAWS again:
     * cheap). The second round always runs: only it tells the start-up
     * (a torch import, seconds, paid by every round) from the draws. Later
     * ones while the rounds' drawing, their time beyond the first round's,
     * is under MOST a case: a limit on the whole probe's wall time stopped a
     * one-case probe of a slow-starting sampler after its first round, and
     * its rate, start-up included, was a hundred times too low. */
    double drawing = 0.0;
    for (int round = 0, more = 1; round < SV_PROBE_ROUNDS && more && rc == SV_OK; round++) {
        more = 0;
        for (size_t i = 0; i < n; i++) {
            if (measured[i]) {
                draws[i] = SV_PROBE_FIRST_DRAWS;
                continue;
            }
            more = 1;
            draws[i] = sv_probe_next_draws(out[i].rate, draws[i],
                                           sv_probe_growth(takes != NULL, first[i]));
        }
        if (!more || (round > 0 && drawing > MOST * (double)(n ? n : 1)))
            break;
        fprintf(stderr, " .");
        fflush(stderr);
        rc = round_of(like, threads, draws, takes, at, took);
        for (size_t i = 0; i < n && rc == SV_OK; i++) {
            if (measured[i])
                continue;
            drawing += fmax(0.0, took[i] - first[i]);
            out[i].seconds += took[i];
            out[i].rate = sv_probe_round_rate(draws[i], took[i], first[i], &measured[i]);
        }
    }
    *start_up = 0.0; /* the first case's time beyond its draws (one a sampler takes) */
    for (size_t i = 0; i < n && rc == SV_OK; i++)
        if (isfinite(out[i].rate)) {
            *start_up = fmax(0.0, first[i] - SV_PROBE_FIRST_DRAWS / out[i].rate);
            break;
        }
    *seconds = sv_now() - start;
    fprintf(stderr, rc == SV_OK ? " %.1f s (the sampler's start-up %.2f s)\n" : " stopped\n",
            *seconds, *start_up);
    free(draws), free(measured), free(at), free(first), free(took), free(takes);
    return rc;
}
