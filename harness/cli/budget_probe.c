/* budget_probe.c: a sampler's rate on each case of a run, from real runs.
 *
 * `verify --budget` and `verify --plan` need each case's cost before the run
 * without paying for a run: two or more short runs of every case through
 * sv_verify (the sampler's own calls, its isolation and input as the run
 * would have them), one case after another so that each case's time is its
 * own, read between the calls of case_done: uniform batches, or for a
 * sampler that cannot take them (the packed layout alone, its own drafts)
 * mixed batches of one case each. Each case pays its process's start (for a
 * Python sampler an interpreter and its imports); the first round gives
 * every case SV_PROBE_FIRST_DRAWS, later rounds the draws that take it about
 * half of SV_PROBE_SECONDS at the pace found so far, until its draws take
 * ENOUGH beyond the first round's; each case's rate is the difference of its
 * draws over the difference of its times, which the start and each case's
 * own set-up leave out, and the start-up is what the first round's first
 * case took beyond its draws. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "budget.h"
#include "sv_base.h"
#include "sv_check.h"

#define SECOND_SECONDS (0.5 * SV_PROBE_SECONDS) /* what a later round aims at a case */
#define ENOUGH (0.25 * SV_PROBE_SECONDS)        /* drawing this long measures a rate */
#define RESOLVE (0.02 * SV_PROBE_SECONDS)       /* a shorter difference of times is noise */
#define MOST (2.0 * SV_PROBE_SECONDS)           /* a case's later rounds' drawing, at most */

uint64_t sv_probe_next_draws(double rate, uint64_t last, double grow)
{
    const double want = rate * SECOND_SECONDS;
    return (uint64_t)fmin(fmax(want, grow * (double)last), 64.0 * (double)last);
}

double sv_probe_growth(double first)
{
    /* Each case pays its process's start in every round, so where that is
     * most of the first round (a Python sampler's interpreter and imports)
     * the first rate is far too low: grow fast, up to 16 times, but never so
     * fast that a first round that was all draws (no start-up) would make
     * the next draw for over 8 s; twice at least. */
    return fmin(16.0, fmax(2.0, 8.0 * SV_PROBE_SECONDS / fmax(first, 1e-9)));
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

/* Each case's seconds in a round, by its index in the specs: from the run's
 * start (the first case run) or the end of the case before, to its end. */
typedef struct stamps {
    double last;
    double *took;
    unsigned char *ran;  /* ran[i]: case i ran (a case the sampler lacks, or does
                          * not take drawing its own drafts, is left out) */
    const size_t *index; /* the round's case j is case index[j] of the run */
} stamps;

static int stamp(const sv_report *r, void *ctx)
{
    stamps *s = ctx;
    const double now = sv_now();
    const size_t i = s->index[r->cases[r->n_cases - 1].spec];
    s->took[i] = now - s->last;
    s->ran[i] = 1;
    s->last = now;
    return 0;
}

/* One round: every case not `done` at draws[i] in one run, one case after
 * another (uniform batches, or a sampler that cannot take them, the packed
 * layout alone or its own drafts, mixed batches of one case each); without
 * the batch-composition and seed probes, whose runs a rate does not need.
 * took[i]: case i's seconds, with its set-up and its process's start;
 * ran[i]: whether it ran. A case whose rate is known is not run again:
 * each run starts the sampler's process (a Python one's interpreter and
 * imports). */
static int round_of(const sv_verify_config *like, int32_t threads, const uint64_t *draws,
                    const unsigned char *done, double *took, unsigned char *ran)
{
    const size_t n = like->n_cases;
    const char **specs = calloc(n ? n : 1, sizeof *specs);
    uint64_t *asked = calloc(n ? n : 1, sizeof *asked);
    size_t *index = calloc(n ? n : 1, sizeof *index), m = 0;
    memset(took, 0, n * sizeof *took);
    memset(ran, 0, n);
    if (!specs || !asked || !index) {
        free(specs), free(asked), free(index);
        return sv_fail(SV_EENV, "out of memory for a probe of %zu cases", n);
    }
    for (size_t i = 0; i < n; i++)
        if (!done || !done[i])
            specs[m] = like->specs[i], asked[m] = draws[i], index[m++] = i;
    sv_verify_config cfg = *like;
    stamps s = {0.0, took, ran, index};
    cfg.specs = specs, cfg.draws = asked, cfg.n_cases = m, cfg.rerun_draws = NULL;
    cfg.threads = threads;
    cfg.uniform = sv_takes_uniform(like->sampler);
    cfg.one_case_a_mix = !cfg.uniform, cfg.no_mix_probes = 1;
    cfg.progress = 0, cfg.rerun_suspects = 0, cfg.shard = NULL;
    cfg.case_done = stamp, cfg.case_done_ctx = &s;
    cfg.seconds_before = 0, cfg.watch = NULL, cfg.dump = NULL;
    sv_report *r = NULL;
    s.last = sv_now();
    int rc = m ? sv_verify(&cfg, &r) : SV_OK;
    if (rc == SV_OK && r && r->n_cases < r->n_planned)
        rc = sv_fail(SV_EENV, "verify: the probe of the sampler's rate stopped after %zu of "
                     "%zu cases", r->n_cases, r->n_planned);
    sv_report_free(r);
    free(specs), free(asked), free(index);
    return rc;
}

int sv_probe_cases(const sv_verify_config *like, int32_t threads, sv_probe *out,
                   double *start_up, double *seconds)
{
    const size_t n = like->n_cases;
    uint64_t *draws = calloc(n ? n : 1, sizeof *draws);
    unsigned char *measured = calloc(n ? n : 1, 1);
    double *first = calloc(n ? n : 1, sizeof *first), *took = calloc(n ? n : 1, sizeof *took);
    unsigned char *ran = calloc(n ? n : 1, 1); /* which cases the last round ran */
    int rc = draws && measured && first && took && ran ? SV_OK
                                                       : sv_fail(SV_EENV, "out of memory");
    for (size_t i = 0; rc == SV_OK && i < n; i++)
        draws[i] = SV_PROBE_FIRST_DRAWS;
    fprintf(stderr, "probe: the sampler's rate on %zu case%s: %d draws each", n,
            n == 1 ? "" : "s", SV_PROBE_FIRST_DRAWS);
    fflush(stderr);
    const double start = sv_now();
    if (rc == SV_OK)
        rc = round_of(like, threads, draws, NULL, first, ran);
    for (size_t i = 0; i < n && rc == SV_OK; i++) {
        out[i] = (sv_probe){(double)SV_PROBE_FIRST_DRAWS / fmax(first[i], 1e-6), 0.0, first[i]};
        if (!ran[i]) { /* left out of the run (lacks.c, own_drafts.c): it costs nothing */
            out[i].rate = INFINITY;
            measured[i] = 1;
        }
    }
    /* then rounds of more draws for each case whose draws did not yet take
     * ENOUGH beyond its first run's (the others are not run again; each
     * round prints how many it ran). The second round always runs: only it
     * tells the start-up of the sampler's process (a torch import, seconds,
     * paid by each case in each round it runs) from the draws. Later ones
     * run while the rounds' drawing, their time beyond the first round's,
     * is under MOST a case: a
     * limit on the whole probe's wall time stopped a one-case probe of a
     * slow-starting sampler after its first round, and its rate, start-up
     * included, was a hundred times too low. */
    double drawing = 0.0;
    for (int round = 0, more = 1; round < SV_PROBE_ROUNDS && more && rc == SV_OK; round++) {
        size_t left = 0; /* the cases this round runs */
        for (size_t i = 0; i < n; i++) {
            if (measured[i])
                continue;
            left++;
            /* the first round's rate holds the start: the second grows fast */
            const double grow = round == 0 ? sv_probe_growth(first[i]) : 2.0;
            draws[i] = sv_probe_next_draws(out[i].rate, draws[i], grow);
        }
        more = left > 0;
        if (!more || (round > 0 && drawing > MOST * (double)(n ? n : 1)))
            break;
        fprintf(stderr, ", %zu again", left);
        fflush(stderr);
        rc = round_of(like, threads, draws, measured, took, ran);
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
    fprintf(stderr, rc == SV_OK ? ": %.1f s (the sampler's start-up %.2f s)\n" : ": stopped\n",
            *seconds, *start_up);
    free(draws), free(measured), free(first), free(took), free(ran);
    return rc;
}
