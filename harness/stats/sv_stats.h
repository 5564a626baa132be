/* sv_stats.h: the statistics, knowing nothing of commands, files or samplers'
 * calls: goodness of fit (Pearson, G, the exact Poisson tail) over pooled
 * categories, total variation against its calibrated threshold, contingency
 * bins for independence, the power of the checks against a defect whose
 * output distribution is known in closed form (predict.c), the uniformity of
 * p-values, and verdicts under one family-wise false-alarm rate. */
#ifndef SV_STATS_H
#define SV_STATS_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include "sv_base.h"
#include "sv_cases.h"
#include "sv_sampler.h"

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

/* ---- distance.c: how far from p, for a lossy rule (verify --measure) ----------- */
typedef struct sv_distance {
    double tv, tv_lo, tv_hi; /* plug-in TV(r^, p) and an interval for TV(r, p) */
    double kl, kl_lo, kl_hi; /* KL(r || p), Miller-Madow corrected, and its interval */
    int32_t seen;            /* tokens emitted at least once */
} sv_distance;
/* From N counts of emitted tokens against p: the intervals hold TV(r, p)
 * and KL(r || p) with probability about `level` each (the TV one is
 * conservative: it rests on bounds). NaN where N is 0. */
sv_distance sv_distance_estimate(const double *p, const uint64_t *counts, int32_t V, uint64_t N,
                                 double level);
/* No measurement: every number NaN (what the estimate gives for N = 0). */
static inline sv_distance sv_distance_none(void)
{
    return (sv_distance){NAN, NAN, NAN, NAN, NAN, NAN, 0};
}

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

#endif
