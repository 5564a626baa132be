/* sv_sweep.h: acceptance and speedup tables. Acceptance rates measured with
 * Wilson intervals beside the analytic alpha_k, the sampler's time per step
 * s(B) from a bench file or a formula (the batched speedup), the points of
 * `specverify sweep`, their resume from an earlier sweep.h5, and their plots. */
#ifndef SV_SWEEP_H
#define SV_SWEEP_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "sv_bench.h"
#include "sv_sampler.h"
#include "sv_stats.h"

/* ---- acceptance: what a user asks after "is it correct?": how often drafts
 * are accepted, how many tokens a step gives, and what speedup to expect
 * (Leviathan et al. 2023, section 3). */

/* A proportion with its Wilson score interval. */
typedef struct sv_proportion {
    double value, lo, hi;
    uint64_t successes, trials;
} sv_proportion;

/* successes of trials, with the Wilson interval at confidence `level`
 * (0.95 for 95%); value, lo and hi are NaN when trials is 0. */
sv_proportion sv_wilson(uint64_t successes, uint64_t trials, double level);

/* Per-position acceptance measured from the histogram of accepted counts n
 * (length[n], n = 0..K): draft k is tested by the draws with n >= k - 1 and
 * accepted by those with n >= k. Fills alpha[0..K-1]. */
void sv_measured_alpha(const uint64_t *length, int32_t K, double level, sv_proportion *alpha);

/* Expected tokens per step, 1 + sum_{j=1..K} prod_{i<=j} alpha_i, for
 * per-position acceptance alpha[0..K-1]. With alpha_i = a for all i this is
 * (1 - a^{K+1}) / (1 - a). */
double sv_expected_tokens(const double *alpha, int32_t K);

/* Mean tokens per step from the accepted-count histogram: 1 + mean(n), which
 * vLLM reports as the mean acceptance length. */
double sv_mean_tokens(const uint64_t *length, int32_t K);

/* Its interval at confidence `level`: 1 + mean(n) -+ z sd(n) / sqrt(steps),
 * the normal interval of a mean of independent steps (every draw is one
 * step with its own randomness; n is bounded by K, so the mean of the
 * hundreds of thousands of steps a sweep takes is normal to within far
 * less than the interval's width). NaN with fewer than 2 steps. */
void sv_mean_tokens_interval(const uint64_t *length, int32_t K, double level, double *lo,
                             double *hi);

/* Walltime speedup over plain decoding when a draft step costs c target
 * steps: E / (K c + 1) (Leviathan et al., Theorem 3.8). */
double sv_speedup(double expected_tokens, int32_t K, double c);

/* ---- batch_cost: what a speculative step costs at batch size B, so that the
 * sampler's own time enters the speedup:
 *     speedup(B) = E / (K c + 1 + s_K(B) / t(B)),
 * with t(B) the target model's forward time per step (a cost model t0 + t1 B,
 * microseconds, given on the command line) and s_K(B) the sampler's time per
 * step with K drafts: from a bench file (its medians, log-log interpolated
 * in B) or a cost model s0 + s1 B. Plain decoding's own sampling is taken as
 * part of t(B). */

typedef struct sv_batch_cost {
    double target_us[2];        /* t0, t1 */
    double sampler_us[2];       /* s0, s1, when no bench file */
    sv_bench_point *pts;        /* the bench file's points of the sampler at V, or NULL */
    size_t n;
    char source[1100];          /* for the tables: the file and sampler, or "model" */
} sv_batch_cost;

/* "A" or "A,B" -> {A, B} (B = 0 when absent), both >= 0. Exit 2 on bad text. */
int sv_batch_cost_model(const char *flag, const char *text, double out[2]);

/* Takes the points of `sampler` in the bench file at path whose V is the
 * nearest to V, preferring graph timings, then hot. Exit 2 when the file is
 * not a bench file or has no point of that sampler. */
int sv_batch_cost_load(sv_batch_cost *c, const char *path, const char *sampler, int32_t V);
void sv_batch_cost_free(sv_batch_cost *c);

/* The sampler's time per step at (B, K): the model's, or the bench file's
 * median at that K (the mean over its acceptance rates), log-log
 * interpolated between the two nearest B. Exit 2 naming what is missing when
 * the file has no point at K or B lies outside its range. */
int sv_batch_cost_sampler_us(const sv_batch_cost *c, int32_t B, int32_t K, double *us);
double sv_batch_cost_target_us(const sv_batch_cost *c, int32_t B);

/* E / (K c + 1 + sampler_us / target_us). */
double sv_speedup_batched(double expected_tokens, int32_t K, double c, double sampler_us,
                          double target_us);

/* ---- sweep: one point of `specverify sweep`, and its plots. */

typedef struct sv_sweep_point {
    double T;                          /* NaN when the sweep has no T axis */
    int32_t K;
    uint64_t draws;
    double analytic[SV_MAX_K];         /* alpha_k = sum min(p_k, q_k) */
    sv_proportion measured[SV_MAX_K];  /* accepted / tested, with its interval */
    uint64_t length[SV_MAX_K + 1];     /* histogram of accepted counts */
    double tokens_analytic, tokens_measured;
    double tokens_lo, tokens_hi;       /* tokens_measured's interval at the run's level */
    /* a lossy rule's distance from p per position (verify --measure's),
     * NaN where not measured: a recording's pooled steps, a point taken
     * from an earlier run (sweep.h5 keeps the lengths, not the tokens) */
    sv_distance dist[SV_MAX_K + 1];
} sv_sweep_point;

/* The same temperature (no --T: every point has T = NaN). */
static inline int sv_same_T(double x, double y)
{
    return x == y || (isnan(x) && isnan(y));
}

/* Writes DIR/plot.gp and its data files, then runs gnuplot on them for PNG,
 * SVG and PDF: acceptance vs temperature (one curve per position), tokens per
 * step and speedup vs K (one curve per c; measured E with its interval at
 * `level` beside the analytic), the histogram of accepted
 * lengths. The script stays beside the data for a user to edit and re-run.
 * Returns as sv_gnuplot_run (SV_OK, also when gnuplot is missing: *note
 * then says so; SV_EENV with *note when gnuplot failed), SV_EBAD when a file
 * cannot be written. The data and script are written either way. */
int sv_sweep_plot(const char *dir, const char *title, const sv_sweep_point *pts, size_t n,
                  const double *c, int n_c, double level, char *note, size_t note_len);
/* A case spec for a sweep's titles: without its K parameter
 * ("logits:V=1000,K=5" -> "logits:V=1000"), which the sweep sets itself. */
void sv_sweep_spec_title(const char *spec, char *out, size_t len);

/* ---- sweep_resume.c: --resume ------------------------------------------------- */

/* What makes two runs the same sweep. */
typedef struct sv_sweep_run {
    const char *spec, *sampler;
    uint64_t seed, draws;
    double level;
    uint32_t rule;  /* the sampler's sv_rule: block verification's "analytic" is the chain's */
} sv_sweep_run;

/* The datasets of each position's distance from p in sweep.h5. */
extern const char *const sv_sweep_distance_names[6];

/* The points of an earlier run, from DIR/sweep.h5. */
typedef struct sv_sweep_earlier {
    size_t n;
    double *T, *K, *analytic, *tokens, *lengths; /* analytic [n][16], lengths [n][17] */
    double *dist[6]; /* tv, tv_lo, tv_hi, kl, kl_lo, kl_hi [n][17]; NULL in an older file */
} sv_sweep_earlier;

/* Reads DIR/sweep.h5 when there is one (none: *e empty, SV_OK, and a note);
 * SV_EBAD when it is another sweep's, or when any number is not finite, out
 * of its range or inconsistent (alpha missing within K, counts not summing to
 * the draws), naming the file, the dataset, the row and the value. */
int sv_sweep_earlier_load(const char *dir, const sv_sweep_run *run, sv_sweep_earlier *e);
/* Fills pt from the earlier run if it has (T, K); returns 1 if it did. */
int sv_sweep_earlier_take(const sv_sweep_earlier *e, const sv_sweep_run *run, double T,
                          int32_t K, sv_sweep_point *pt);
void sv_sweep_earlier_free(sv_sweep_earlier *e);

/* ---- sweep_tables.c, sweep_h5.c: a sweep's results, as Markdown tables and
 * as DIR/sweep.h5 ----------------------------------------------------------- */
#define SV_SWEEP_MAX_AXIS 64
typedef struct sv_sweep_setup {
    sv_sweep_run run;               /* case, sampler, seed, draws, level */
    double c[SV_SWEEP_MAX_AXIS];    /* draft/target cost ratios */
    int n_c;
    int32_t B[SV_SWEEP_MAX_AXIS];   /* the batched speedup's axis; n_B = 0: none */
    int n_B;
    sv_batch_cost cost;             /* t(B) and s(B) */
} sv_sweep_setup;
void sv_sweep_tables(FILE *f, const sv_sweep_setup *set, const sv_sweep_point *pts, size_t n);
int sv_sweep_write_h5(const char *path, const sv_sweep_setup *set, const sv_sweep_point *pts,
                      size_t n);
/* The speedup with the sampler's time in it at batch size B; its time (us)
 * in *sampler_us when given. */
double sv_sweep_batched(const sv_sweep_setup *set, const sv_sweep_point *p, int32_t B, double c,
                        double *sampler_us);

/* sweep_rules.c: tokens per step of several samplers side by side (sweep
 * --sampler A,B), on out and, with dir, in DIR/rules.md. */
int sv_sweep_rules(FILE *out, const char *dir, const sv_sampler *const *samplers,
                   const sv_sweep_point *const *pts, const size_t *n, int m, const char *spec,
                   uint64_t draws, uint64_t seed);

/* sweep_compare_plot.c: DIR/acceptance_vs_T.{png,svg,pdf} of the m samplers'
 * DIR/NAME/acceptance.dat side by side (largest K), from DIR/compare.gp;
 * sv_gnuplot_run's status and note. */
int sv_sweep_compare_plot(const char *dir, const char *spec, const sv_sampler *const *samplers,
                          int m, int32_t K, double level, char *note, size_t note_len);

#endif
