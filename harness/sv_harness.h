/* sv_harness.h: the specverify driver's parts, one section per file. */
#ifndef SV_HARNESS_H
#define SV_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdatomic.h>
#include <stdio.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include "sv_cases.h"
#include "sv_output.h"
#include "sv_registry.h"
#include "sv_syntax.h"

/* ---- error.c: one reporting path ------------------------------------------
 * Functions that can fail return a status; the message is kept per thread.
 * The statuses are specverify's exit codes. */
enum {
    SV_OK = 0,
    SV_EVERIFY = 1, /* a verification failed */
    SV_EBAD = 2,    /* bad usage or bad input */
    SV_EENV = 3     /* environment: no GPU, no memory, a missing tool */
};
/* sv_fail(STATUS, FMT, ...) keeps the message and returns STATUS. A macro
 * over an inline function so that static analysers see the status (a
 * variadic function in another file might return SV_OK, for all they know). */
int sv_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline int sv_fail_status(int status, int set_error)
{
    (void)set_error;
    return status;
}
#define sv_fail(status, ...) sv_fail_status((status), sv_set_error(__VA_ARGS__))
const char *sv_error_message(void);
/* GSL's errors are recorded on the thread that raised them, never an abort
 * (GSL's default): its handler is installed before main (and again by main,
 * at once). Code that calls GSL clears, calls, then takes: the take returns
 * 0, or the first error's gsl_errno with its words (file, line, reason) in
 * out, and clears it. */
void sv_gsl_errors_install(void);
void sv_gsl_error_clear(void);
int sv_gsl_error_take(char *out, size_t len);

/* ---- philox_gsl.c: a GSL generator over addressed Philox numbers ----------- */
extern const gsl_rng_type *sv_gsl_rng_philox;
/* Points r at (seed, index, position, purpose); its numbers are the lanes
 * 0, 1, 2, ... of that address (sv_philox.h). */
void sv_gsl_philox_seek(gsl_rng *r, uint64_t seed, uint64_t index, uint32_t position,
                        uint32_t purpose);

/* ---- draft.c: draft tokens x_k ~ q_k ---------------------------------------- */
typedef struct sv_drafter {
    int32_t K;
    gsl_ran_discrete_t *table[SV_MAX_K]; /* Walker alias tables of q_1..q_K */
} sv_drafter;
int sv_drafter_alloc(const sv_case *c, sv_drafter **out);
void sv_drafter_free(sv_drafter *d);
/* The K drafts of sequence `index`, from (seed, index, k, SV_PURPOSE_DRAFT). */
void sv_drafter_draw(const sv_drafter *d, gsl_rng *philox, uint64_t seed, uint64_t index,
                     int32_t *tokens);

/* ---- contingency.c: independence of pairs of emitted tokens ---------------- */
typedef struct sv_binmap {
    int32_t nbins;
    int32_t *bin;   /* [V]: bin of each token */
    double *mass;   /* [nbins]: probability of each bin */
} sv_binmap;
/* Bins for a contingency table of `pairs` expected pairs whose rows follow
 * `rows` and columns `cols`: the top tokens of each, the rest pooled, as many
 * as keep every expected cell >= 5 (at most 12 per side). Returns 0, or 1 if
 * no 2x2 table has cells that large (the test is not possible), -1 on no memory. */
int sv_pair_bins(const double *rows, const double *cols, int32_t V, double pairs,
                 sv_binmap *row_bins, sv_binmap *col_bins);
void sv_binmap_free(sv_binmap *b);

/* ---- stats.c: goodness of fit and total variation ---------------------------- */
typedef struct sv_gof {
    double stat;
    int32_t df;  /* 0: no test possible (fewer than two bins) */
    double p;    /* 1 when df = 0 */
    int exact;   /* p is the exact Poisson tail of a rare bin, not chi-square */
} sv_gof;

/* Categories sorted by probability; those with expected count >= min_expected
 * kept, the rest pooled into one tail bin (merged with the smallest kept bins
 * until it too reaches min_expected). If even one kept bin against the tail
 * leaves the tail below min_expected, the tail is tested exactly: p is the
 * Poisson probability of at least the observed count (exact_tail). */
typedef struct sv_pooled {
    int32_t nbins;
    int32_t *token;      /* [nbins]: the category of a kept bin; -1 for the tail */
    double *expected;    /* [nbins] expected counts */
    double *observed;    /* [nbins] observed counts */
    double tail_mass;    /* probability pooled into the tail bin (0: no tail bin) */
    int32_t tail_categories;
    uint64_t stray;      /* draws in categories of probability 0 (outside every bin) */
    int exact_tail;      /* the tail bin is tested by its exact Poisson tail */
} sv_pooled;
int sv_pool(const double *p, const uint64_t *counts, int32_t n_categories, uint64_t N,
            double min_expected, sv_pooled *out);
void sv_pooled_free(sv_pooled *pooled);
sv_gof sv_pearson(const sv_pooled *pooled);
sv_gof sv_gtest(const sv_pooled *pooled);
/* Pearson X^2 test of independence with estimated margins, df (r-1)(c-1). */
sv_gof sv_independence(const uint64_t *table, int32_t rows, int32_t cols);

/* TV = 1/2 sum |counts/N - p|. */
double sv_tv(const double *p, const uint64_t *counts, int32_t V, uint64_t N);
/* E[TV] for N draws from p, exact: de Moivre's binomial mean absolute deviation. */
double sv_tv_expected(const double *p, int32_t V, uint64_t N);
/* McDiarmid: P(TV - E[TV] >= t) <= delta for t = sqrt(ln(1/delta) / (2N)). */
double sv_mcdiarmid_margin(uint64_t N, double delta);
/* The bound exp(-2 N t^2) on P(TV - E[TV] >= t): a p-value for TV. */
double sv_tv_pvalue(double tv, double expected, uint64_t N);

/* ---- power.c: the power of the checks against a known defect -------------------- */
typedef struct sv_effect_size {
    double w2;               /* sum over the pooled bins of (r - p)^2 / p */
    int32_t df;              /* bins - 1 */
    double tv;               /* TV distance between r and p */
    double impossible_mass;  /* mass r puts on tokens with p = 0 */
} sv_effect_size;
/* P(X > c) for X noncentral chi-square(df, lambda). */
double sv_ncx2_tail(double c, double df, double lambda);
/* Power of a chi-square test with df at level alpha when lambda = N w^2. */
double sv_power_chi2(int32_t df, double lambda, double alpha);
/* The effect of output distribution r against p, over the bins pooled at N. */
int sv_effect(const double *p, const double *r, int32_t V, uint64_t N, sv_effect_size *out);
/* The smallest w^2 that N draws detect with the given power at level alpha. */
double sv_min_detectable_w2(int32_t df, uint64_t N, double alpha, double power);
/* Power of the checks (chi-square at alpha, plus the contract check for mass
 * on p = 0) when draws_here draws emit this position. */
int sv_power(const double *p, const double *r, int32_t V, double draws_here, double alpha,
             double *power);
/* Draws (of which a fraction `reach` emit this position) needed for the power. */
int sv_draws_needed(const double *p, const double *r, int32_t V, double reach, double alpha,
                    double power, double *draws);

/* ---- predict.c: broken variants' output distributions in closed form ------------ */
typedef struct sv_prediction {
    int32_t K, V;
    double *out;                    /* [K+1][V]: distribution of y_k among draws emitting it */
    double accept[SV_MAX_K];        /* the variant's acceptance probability at position k */
    double reach[SV_MAX_K + 1];     /* fraction of draws that emit position k */
} sv_prediction;
/* 1 if the variant's power has a closed form (a distribution or an event). */
int sv_predict_known(const char *variant);
/* SV_OK with pr filled; 1 if there is no closed form for this variant and
 * case (then pr holds nothing to free); another status on error. */
int sv_predict(const char *variant, const sv_case *c, sv_prediction *pr);
void sv_prediction_free(sv_prediction *pr);
/* For variants the contract check catches whenever some event happens: its
 * probability per draw; -1 for other variants. */
double sv_predict_event(const char *variant, const sv_case *c);

/* The power of the whole run against a variant on one case (power.c). */
typedef struct sv_power_report {
    int known;                  /* 0: no closed form for this variant here */
    int by_contract;            /* caught by the contract check, not by statistics */
    double power;               /* P(caught) at the run's draws */
    double needed;              /* draws for `target` power at the best position */
    double reach[SV_MAX_K + 1];  /* fraction of draws emitting each position */
    double w2[SV_MAX_K + 1];
    int32_t df[SV_MAX_K + 1];
    double position_power[SV_MAX_K + 1], position_needed[SV_MAX_K + 1];
} sv_power_report;
int sv_case_power(const char *variant, const sv_case *c, uint64_t draws, double alpha,
                  double target, sv_power_report *out);

/* ---- uniformity.c: are p-values uniform? ---------------------------------------- */
/* The Kolmogorov distribution's tail P(K > t). */
double sv_kolmogorov_q(double t);
/* KS of values (sorted in place) against U(0, 1): stat D, p-value. */
sv_gof sv_ks_uniform(double *values, size_t n);
/* Chi-square of values in `bins` equal bins of [0, 1] (NIST SP 800-22 uses 10). */
sv_gof sv_chi2_uniform_bins(const double *values, size_t n, int32_t bins, uint64_t *counts);
/* Clopper-Pearson interval for a binomial proportion x / n ([0, 1] for n =
 * 0). SV_OK, or SV_EENV naming the count when GSL cannot give the beta CDF
 * there (counts in the millions on both sides), SV_EBAD for x > n. */
int sv_binomial_interval(uint64_t x, uint64_t n, double confidence, double *lo, double *hi);

/* ---- verdict.c: one family-wise rate, Bonferroni-split ---------------------- */
typedef enum sv_verdict {
    SV_NA = -1,     /* no test possible here */
    SV_PASS = 0,
    SV_SUSPECT = 1, /* p < 1e-3 but not below the split threshold: re-run */
    SV_FAIL = 2
} sv_verdict;
#define SV_SUSPECT_P 1e-3
/* The p-values one case contributes to the family. */
size_t sv_tests_per_case(const sv_case *c);
double sv_bonferroni(double family_alpha, size_t n_tests);
sv_verdict sv_verdict_of(double p, double split_alpha);
sv_verdict sv_verdict_worst(sv_verdict a, sv_verdict b);
const char *sv_verdict_name(sv_verdict v);

/* ---- runner.c: draws through a sampler into tallies --------------------------- */
#define SV_MAX_NOTES 4
#define SV_NOTE_LEN 320

typedef struct sv_pair_plan {
    sv_binmap seq_rows, seq_cols; /* (y_1 of sequence 2m, y_1 of sequence 2m+1) */
    sv_binmap pos_rows, pos_cols; /* (y_1, y_2) of draws that accepted draft 1 */
    int seq_ok, pos_ok;           /* 0: no such test at this N */
} sv_pair_plan;

typedef struct sv_tally {
    int32_t K, V;
    uint64_t draws;
    uint64_t *hist;                 /* [K+1][V]: counts of y_k = token */
    uint64_t reached[SV_MAX_K + 1]; /* N_k: draws that emitted y_k */
    uint64_t length[SV_MAX_K + 1];  /* histogram of n, the accepted count */
    uint64_t *pairs_seq;            /* contingency table, plan->seq_rows x seq_cols */
    uint64_t *pairs_pos;            /* contingency table, plan->pos_rows x pos_cols */
    uint64_t *transitions;          /* chain cases: [V][V] counts of (previous, next) emitted */
    /* chain cases: draft 1 accepted, against the sum of its chances a_i =
     * min(1, p/q) and of a_i (1 - a_i), in units of 2^-32 so that sums are
     * exact and the same in any order (reproducible across threads) */
    uint64_t first_accepted, first_chance_fx, first_variance_fx;
    uint64_t violations;            /* draws that broke the contract */
    int32_t n_notes;
    char notes[SV_MAX_NOTES][SV_NOTE_LEN]; /* the first violations, in words */
    int sampler_error;              /* status a verify call returned, 0 if none */
    double seconds;
} sv_tally;

typedef struct sv_run_config {
    const sv_sampler *sampler;
    uint64_t draws, seed;
    int32_t batch;   /* sequences per verify call (made even) */
    int32_t threads;
    int progress;    /* show progress on stderr */
    const char *label; /* what progress calls this run */
    int32_t input;   /* an sv_input; a logits mode needs a case readied by sv_case_use_logits */
    int in_process;  /* 1: call the sampler in this process (--in-process); 0: in a child */
    double call_timeout; /* seconds one sampler call may take; 0: no limit */
} sv_run_config;

int sv_tally_alloc(const sv_case *c, const sv_pair_plan *plan, sv_tally **out);
void sv_tally_free(sv_tally *t);
/* Runs cfg->draws sequences of case c. SV_OK, or a status with a message
 * (a sampler that fails verify is recorded in the tally, not returned). */
int sv_run(const sv_run_config *cfg, const sv_case *c, const sv_drafter *d,
           const sv_pair_plan *plan, sv_tally *tally);

/* What one worker thread works with: its slot in the sampler's host (whose
 * inputs it fills: drafts, and rows for chain cases) and its own buffers. */
struct sv_host;
typedef struct sv_worker_buffers {
    struct sv_host *host;
    int32_t slot;
    int32_t *drafts;                 /* the slot's: [batch][K] */
    float *rows_target, *rows_draft; /* the slot's, chain cases: rows per sequence */
    unsigned char *valid;
    gsl_rng *philox;
    int32_t *states;                 /* chain cases: each stream's state */
} sv_worker_buffers;
/* Checks one sequence's outputs against the contract, given its target rows
 * [K+1][V]; returns 1 if kept, else counts and notes the violation. */
int sv_check_sequence(sv_tally *t, int32_t K, int32_t V, const float *target, uint64_t index,
                      const int32_t *drafts, const int32_t *tokens, int32_t n);
/* The bytes of B sequences' target [B][K+1][V] and draft [B][K][V] float
 * rows. SV_EBAD with a message naming `what`, the sizes and the bytes when
 * they overflow size_t or exceed this machine's memory. */
int sv_rows_bytes(const char *what, uint64_t B, int64_t K, int64_t V, uint64_t *bytes);
/* "SIGSEGV (segmentation fault: a bad pointer)" and so on: a sampler that
 * crashed (sampler_host.c). */
const char *sv_crash_signal_name(int signo);

/* ---- chain.c: Markov-pair cases, spec-decoded as streams -------------------------
 * Draws are spread over the case's streams; stream s, step t has global index
 * t * streams + s. Its drafts follow the draft chain from the stream's state,
 * its rows are built per sequence, and the emitted transitions are counted. */
/* Runs streams [unit * B, unit * B + B) for all their steps; returns the
 * sampler's status (SV_SAMPLER_OK to go on). */
int sv_chain_unit(const sv_run_config *cfg, const sv_case *c, int32_t B, uint64_t steps,
                  uint64_t unit, sv_worker_buffers *w, sv_tally *t, atomic_uint_fast64_t *done);
int sv_pair_plan_build(const sv_case *c, uint64_t draws, sv_pair_plan *plan);
void sv_pair_plan_free(sv_pair_plan *plan);

/* ---- evaluate.c: the checks of one run ---------------------------------------- */
#define SV_MAX_FINDINGS 8
#define SV_FINDING_LEN 320

typedef struct sv_position_eval {
    uint64_t N;                 /* draws that emitted this position */
    int32_t bins;
    double tail_mass;           /* probability in the pooled tail bin */
    int32_t tail_categories;
    sv_gof chi2, g;
    double tv, tv_expected, tv_threshold, tv_min_detectable, tv_p;
    double w2_min_detectable;   /* smallest chi-square effect detected with P >= 1 - split */
    sv_verdict verdict;
} sv_position_eval;

typedef struct sv_run_eval {
    uint64_t seed, draws;
    double seconds;
    int32_t K;
    sv_position_eval pos[SV_MAX_K + 1];
    double length_expected[SV_MAX_K + 1]; /* P(n = j) from the alphas */
    uint64_t length_observed[SV_MAX_K + 1];
    sv_gof length;
    sv_verdict length_verdict;
    sv_gof indep_seq, indep_pos;
    sv_verdict indep_seq_verdict, indep_pos_verdict;
    int chain;                  /* a Markov-pair case: only contract and sequence checks */
    uint64_t transitions;       /* emitted transitions counted */
    int32_t states_tested;
    sv_gof seq_chi2, seq_g;
    uint64_t first_accepted;    /* steps whose draft 1 was accepted */
    double first_expected;      /* the sum of their chances min(1, p/q) */
    sv_verdict seq_verdict;
    uint64_t violations;
    sv_verdict contract_verdict;
    sv_verdict verdict;         /* the worst of the above */
    int32_t n_findings;
    char findings[SV_MAX_FINDINGS][SV_FINDING_LEN]; /* what looks wrong, in words */
} sv_run_eval;

int sv_evaluate(const sv_case *c, const sv_tally *t, const sv_pair_plan *plan,
                double split_alpha, sv_run_eval *ev);
/* The smallest p-value of a run and its check's name ("accepted length",
 * "position 2 chi-square"): what made a case SUSPECT. INFINITY if none ran. */
double sv_weakest_check(const sv_run_eval *ev, char *name, size_t len);
/* chain.c: the transition counts against the target chain: pooled chi-square
 * and G per visited state, summed over states. */
int sv_evaluate_chain(const sv_case *c, const sv_tally *t, double split_alpha,
                      sv_run_eval *ev);

/* ---- describe.c: what looks wrong, in words ------------------------------------ */
void sv_describe_position(const sv_pooled *pooled, const sv_position_eval *pe, int32_t k,
                          char *out, size_t len);
/* Names the length bin that drives the statistic (pooled as the test pooled
 * it), with its counts, and whether the mean number accepted is off. */
void sv_describe_length(const sv_run_eval *ev, const sv_pooled *pooled, char *out, size_t len);
void sv_describe_independence(const char *which, const sv_gof *g, char *out, size_t len);

/* ---- verify.c: a whole run over cases ------------------------------------------ */
typedef struct sv_case_report {
    char name[SV_CASE_NAME_MAX];
    int32_t K, V;
    int draft_probs_given;
    double alpha[SV_MAX_K];     /* analytic acceptance per position */
    int n_runs;                 /* 1, or 2 when a suspect was re-run */
    sv_run_eval runs[2];
    sv_verdict verdict;         /* of the last run */
} sv_case_report;

typedef struct sv_report {
    const char *sampler, *sampler_description;
    const char *suite;          /* NULL for --case */
    uint64_t seed;
    double alpha, split_alpha;
    size_t n_tests;
    int32_t threads, batch;
    size_t n_cases;
    sv_case_report *cases;
    size_t passed, suspect, failed;
    uint64_t total_draws;
    double seconds;
    int interrupted;            /* the signal that cut the run short, or 0 */
    size_t n_planned;           /* cases asked for; n_cases ran (the last cut short) */
    int32_t input;              /* the sv_input the sampler was given */
} sv_report;

typedef struct sv_verify_config {
    const sv_sampler *sampler;
    const char *suite;          /* name, for the report */
    const char *const *specs;   /* n_cases case specs */
    const uint64_t *draws;      /* draws per case */
    size_t n_cases;
    uint64_t seed;
    double alpha;               /* family-wise false-alarm rate */
    int32_t batch, threads;
    int progress;               /* progress, and a notice of each re-run, on stderr */
    int rerun_suspects;         /* re-run a SUSPECT with a fresh seed and 4x draws */
    int32_t input;              /* an sv_input: probs, or logits the cases are readied for */
    /* Called after each case with the report so far; nonzero ends the run
     * there (n_cases < n_planned, not marked interrupted). The split is still
     * over every planned case, so the cases that ran read exactly as in the
     * whole run. NULL: run every case. */
    int (*case_done)(const struct sv_report *r, void *ctx);
    void *case_done_ctx;
    int in_process;             /* call the sampler in this process, not in a child */
    double call_timeout;        /* seconds one sampler call may take; 0: no limit */
} sv_verify_config;

/* SV_OK with a report (whatever the verdicts), or a status with a message. */
int sv_verify(const sv_verify_config *cfg, sv_report **out);
void sv_report_free(sv_report *r);
/* The seed a suspect's re-run uses. */
uint64_t sv_rerun_seed(uint64_t seed);

/* ---- reports ----------------------------------------------------------------- */
void sv_report_text(const sv_report *r, FILE *out);
int sv_report_json(const sv_report *r, const char *path);
int sv_report_junit(const sv_report *r, const char *path);

/* ---- atomic_file.c: nothing is written half, no device is replaced --------
 * Text outputs through sv_output (sv_output.h): a regular file (or a link to
 * one, which stays a link) is written to a temporary and renamed; a device or
 * a FIFO is written in place. */
typedef sv_output_file sv_atomic_file;
/* Opens a temporary file beside path, or the device path names. */
int sv_atomic_open(sv_atomic_file *f, const char *path);
/* Flushes, syncs and renames into place; on error removes the temporary, and
 * the message is "could not write PATH: why". */
int sv_atomic_commit(sv_atomic_file *f);
void sv_atomic_abort(sv_atomic_file *f);
/* SV_OK if path can be written: a temporary is made beside it and removed (a
 * device is only asked for permission). Commands check their outputs so
 * before long work, not after it. */
int sv_atomic_check(const char *path);
/* Where an interrupted run writes what it finished: PATH.partial, leaving an
 * earlier PATH whole; a device or a FIFO has nothing to keep: PATH itself. */
int sv_atomic_partial(const char *path, char *out, size_t len);
/* The file written beside an HDF5 output: FILE.h5 -> FILE.EXT (ext ".md",
 * ".vocab"); another name gets EXT appended. */
void sv_output_beside(const char *h5_path, const char *ext, char *out, size_t len);
/* An output flag's value into *slot: SV_EBAD, naming the command and the
 * flag, when the flag was given before (*slot set) or the path is empty. */
int sv_output_flag(const char *command, const char *flag, const char **slot, const char *value);
/* After a command printed its verdict, every output is still attempted; a
 * failure is noted (messages joined) and the next one written, so the disk
 * filling up loses neither the verdict nor the other outputs. */
typedef struct sv_outputs_status {
    int rc;          /* the first write's error status, SV_OK if none */
    char said[1024]; /* their messages, "could not write FILE: why; ..." */
} sv_outputs_status;
void sv_outputs_note(sv_outputs_status *s, int rc);
/* The command's status: the verdict's when it is not SV_OK (a failed
 * verification is never hidden behind a write error; the write errors are
 * said on stderr here), else the write error's, with its message for main. */
int sv_outputs_end(const sv_outputs_status *s, int verdict);

/* ---- results_h5.c: HDF5 result files, written atomically ------------------------- */
typedef struct sv_h5 {
    int64_t file; /* hid_t */
    int failed;
    sv_output out;
    char tmp[SV_OUTPUT_PATH + 16];
} sv_h5;
/* An HDF5 output must be a regular file (or a link to one, or new): a device
 * or a FIFO is refused, by sv_h5_create and by sv_h5_check before the work. */
int sv_h5_create(sv_h5 *f, const char *path);
int sv_h5_check(const char *path);
/* cols = 0: a 1-D dataset of `rows` values */
int sv_h5_doubles(sv_h5 *f, const char *name, const double *data, size_t rows, size_t cols);
int sv_h5_bytes(sv_h5 *f, const char *name, const signed char *data, size_t rows, size_t cols);
int sv_h5_strings(sv_h5 *f, const char *name, const char *const *strings, size_t n);
int sv_h5_attr(sv_h5 *f, const char *name, const char *value);
int sv_h5_commit(sv_h5 *f);
void sv_h5_abort(sv_h5 *f);

/* ---- results_h5_read.c: reading result files back ---------------------------- */
typedef struct sv_h5_reader {
    int64_t file; /* hid_t */
    char path[1024];
} sv_h5_reader;
int sv_h5_open(sv_h5_reader *r, const char *path);
void sv_h5_close(sv_h5_reader *r);
/* A 1-D (cols = 0) or 2-D dataset as doubles, malloc'ed into *data. */
int sv_h5_read_doubles(sv_h5_reader *r, const char *name, double **data, size_t *rows,
                       size_t *cols);
int sv_h5_read_attr(sv_h5_reader *r, const char *name, char *out, size_t len);
int sv_h5_has_attr(sv_h5_reader *r, const char *name);
/* A 1-D dataset of strings: *out holds *n malloc'ed strings, in a malloc'ed array. */
int sv_h5_read_strings(sv_h5_reader *r, const char *name, char ***out, size_t *n);
/* Every number read back from a file is checked before use: finite and in
 * [lo, hi] (hi = INFINITY: no upper bound), lo excluded with SV_H5_ABOVE_LO,
 * a whole number with SV_H5_WHOLE, NaN also allowed with SV_H5_NAN_OK. Else
 * SV_EBAD naming the file, the dataset or attribute, the row (and column),
 * the value and what was expected. */
enum { SV_H5_WHOLE = 1, SV_H5_NAN_OK = 2, SV_H5_ABOVE_LO = 4 };
int sv_h5_check_values(const sv_h5_reader *r, const char *name, const double *data,
                       size_t rows, size_t cols, double lo, double hi, unsigned flags);
/* sv_h5_read_doubles, then sv_h5_check_values (*data freed on a refusal). */
int sv_h5_read_checked(sv_h5_reader *r, const char *name, double **data, size_t *rows,
                       size_t *cols, double lo, double hi, unsigned flags);
/* A text attribute holding one number, checked as above. */
int sv_h5_read_number(sv_h5_reader *r, const char *name, double lo, double hi, unsigned flags,
                      double *out);
/* The refusal of value v at (row, col; SIZE_MAX for a 1-D dataset) of
 * dataset name, for checks across fields; want says what was expected. */
int sv_h5_bad_value(const sv_h5_reader *r, const char *name, size_t row, size_t col,
                    double v, const char *want);

/* ---- progress.c: draws done, rate, time left ----------------------------------
 * On a terminal one line redrawn in place; elsewhere a plain line every
 * SV_PROGRESS_SECONDS seconds (default 30; 0: none). */
typedef struct sv_progress {
    int enabled, terminal;
    double interval;            /* seconds between plain lines, not on a terminal */
    const char *label, *unit;   /* unit: "draws" unless sv_progress_unit says */
    uint64_t total;
    double start, last;
} sv_progress;
void sv_progress_start(sv_progress *p, int enabled, const char *label, uint64_t total);
void sv_progress_unit(sv_progress *p, const char *unit);
void sv_progress_update(sv_progress *p, uint64_t done);
void sv_progress_end(sv_progress *p);
/* SV_PROGRESS_SECONDS, or the default: 0, or -1 with err said if malformed. */
int sv_progress_interval(double *seconds, char *err, size_t len);
/* "45 s", "4 min 05 s", "2 h 05 min", "3 days 4 h", "over 100 days", "unknown". */
void sv_format_duration(double seconds, char *out, size_t len);
/* "4 min 05 s left", or "time left unknown" until the rate is measured over
 * 2 s or 5% of the work, or "done". */
void sv_progress_left(uint64_t done, uint64_t total, double elapsed, char *out, size_t len);
double sv_now(void);

/* ---- program_output.c: another program's first line ------------------------ */
/* Runs argv (posix_spawnp, no shell; stderr to /dev/null) and keeps the first
 * line it prints in out. 0 when it ran and exited 0; -1 otherwise. */
int sv_program_line(char *const argv[], char *out, size_t len);

/* ---- options.c: getopt_long's refusals -------------------------------------------- */
struct option;
/* SV_EBAD, saying what getopt_long refused (it returned refusal, ':' or '?';
 * opterr 0, optstring starting with ':') and where `specverify command
 * --help` is: a missing value, an unknown or ambiguous option, a value given
 * to an option that takes none. */
int sv_option_error(const char *command, int refusal, const struct option *options,
                    char **argv);

/* ---- args.c: numbers from the command line -------------------------------------- */
int sv_parse_u64(const char *flag, const char *text, uint64_t min, uint64_t max, uint64_t *out);
/* open: the range excludes its ends */
int sv_parse_double(const char *flag, const char *text, double min, double max, int open,
                    double *out);
/* Splits the comma list text into at most max items; errors name the flag. */
#define SV_LIST_ITEM 256
int sv_split_list(const char *flag, const char *text, char (*items)[SV_LIST_ITEM], int max, int *n);

/* ---- sampler_args.c: the sampler a command runs, and its input ------------- */
/* The sampler named, or with name NULL the one sampler the loaded plugins
 * brought (ref when they brought none); SV_EBAD naming the command when the
 * name is unknown or the plugins brought several. */
int sv_sampler_choose(const char *command, const char *name, const sv_sampler **out);
/* "probs", "logits-f32" or "logits-bf16" -> an sv_input; SV_EBAD naming the flag. */
int sv_parse_input(const char *flag, const char *text, int32_t *input);
/* The sv_input of a name, or -1. */
int32_t sv_input_find(const char *text);
/* The name sv_parse_input reads for an sv_input. */
const char *sv_input_name(int32_t input);
/* SV_EBAD, naming the command and the modes the sampler takes, unless the
 * sampler takes input (an sv_input). */
int sv_sampler_takes(const char *command, const sv_sampler *s, int32_t input);

/* ---- commands ------------------------------------------------------------------ */
/* A command's flags as getopt_long takes them (in its cmd_*.c): `run` checks
 * an experiment file's keys against them before it runs anything. */
struct option;
typedef struct sv_command_flags {
    const char *optstring; /* starts with ':' */
    const struct option *options;
} sv_command_flags;
extern const sv_command_flags sv_verify_flags, sv_sweep_flags, sv_bench_flags,
    sv_compare_flags, sv_mutants_flags, sv_calibrate_flags, sv_list_flags;
int sv_cmd_list(int argc, char **argv);
int sv_cmd_verify(int argc, char **argv);
int sv_cmd_calibrate(int argc, char **argv);
int sv_cmd_mutants(int argc, char **argv);
int sv_cmd_bench(int argc, char **argv);
int sv_cmd_sweep(int argc, char **argv);
int sv_cmd_compare(int argc, char **argv);
int sv_cmd_run(int argc, char **argv);
/* Reads and checks an experiment file from an open stream as `run` does
 * before it runs anything (path names it in messages); runs nothing. SV_OK,
 * or SV_EBAD / SV_EENV with FILE:LINE. What tests/fuzz drives. */
int sv_experiment_check(FILE *file, const char *path, const char *out_root);

/* ---- interruption (interrupt.c) --------------------------------------------- */

/* After sv_interrupt_install, the first SIGINT or SIGTERM is only recorded:
 * sv_interrupted() returns its number (0 before), the runner stops at the
 * next batch and the command writes what finished, marked partial. A second
 * one ends the process. */
void sv_interrupt_install(void);
int sv_interrupted(void);
const char *sv_signal_name(int signo);
int sv_cmd_plot(int argc, char **argv);

/* ---- gnuplot.c: gnuplot scripts, and gnuplot run on DIR/SCRIPT in DIR -------- */
/* The one way text enters a gnuplot script: as a single-quoted gnuplot
 * string ('' for a quote, '?' for a control character), which gnuplot
 * interprets no further. Cut to fit len (SV_GP_QUOTED(strlen) always fits),
 * quotes balanced. Returns out. */
#define SV_GP_QUOTED(n) (2 * (n) + 3)
const char *sv_gp_string(const char *text, char *out, size_t len);
/* A file in the script's folder: "./NAME" quoted as above, so that no name
 * reads as gnuplot's pipes ('<cmd', '|cmd') or special files ('-', '+', ''). */
const char *sv_gp_file(const char *name, char *out, size_t len);
/* Runs gnuplot (an argument vector, no shell) on SCRIPT in DIR, its messages
 * in DIR/NAME.log (removed when empty). SV_OK when drawn, and when gnuplot is
 * not installed (note then says so and how to install it); SV_EENV when
 * gnuplot failed or could not run (note says why, with its last message).
 * Sets no error message of its own: see sv_gnuplot_status. */
int sv_gnuplot_run(const char *dir, const char *script, char *note, size_t note_len);
/* Tells a plot's outcome (plot_rc, note) within a command whose status so
 * far is rc_so_far: a failed plot in a command that has not failed becomes
 * its error message (main prints it); otherwise the note is printed here, so
 * an earlier error keeps its message. Returns plot_rc. */
int sv_gnuplot_status(int rc_so_far, int plot_rc, const char *note);
/* verify --power: the run's predicted power against a variant (cmd_power.c) */
int sv_print_power(const char *variant, const char *const *specs, const uint64_t *draws,
                   size_t n, double alpha, double target, FILE *out);

#endif
