/* cmd_calibrate.c: `specverify calibrate`: a correct sampler's p-values must
 * be uniform, and its false-alarm rate what the run states. */
#include <getopt.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sv_cli.h"
#include "sv_cases.h"
#include "sv_check.h"
#include "sv_stats.h"
#include "calibrate_runs.h"

static void usage(FILE *out)
{
    fprintf(out,
        "usage: specverify calibrate [--sampler NAME] [--plugin LIB] [--python FILE.py:NAME]\n"
        "                            [--runs R] [--suite NAME]\n"
        "                            [--seed S] [--alpha A] [--batch B] [--threads T]\n"
        "                            [--tree SHAPE] [--siblings iid|distinct] [--json FILE]\n"
        "\n"
        "Runs the suite R times with fresh seeds (no re-runs of suspects) and tests\n"
        "whether the p-values of a correct sampler are uniform: Kolmogorov-Smirnov\n"
        "against U(0,1) and a 10-bin chi-square as NIST SP 800-22 does. Reports the\n"
        "observed false-alarm rate (runs with a FAIL) against the stated family-wise\n"
        "rate, and the rate of p < 1e-3, each with a 95%% Clopper-Pearson interval.\n"
        "Uses one p-value per check: chi-square per position, accepted length (not a\n"
        "block verifier's: its test is one-sided, docs/rules.md), both\n"
        "independence tables, and a Markov case's transitions (G and TV are left\n"
        "out: they are not independent of chi-square; exact rare-bin tests are left\n"
        "out: they are discrete).\n"
        "\n"
        "  --sampler NAME  sampler (default: the one sampler of --plugin, else ref)\n"
        "  --plugin LIB    load samplers from a shared library first\n"
        SV_PYTHON_HELP
        "  --runs R        runs (default 200)\n"
        "  --suite NAME    suite (default smoke)\n"
        "  --seed S        first seed (default 1); run i uses a seed derived from it\n"
        "  --alpha A       family-wise false-alarm rate per run (default 1e-6)\n"
        "  --batch B, --threads T  as for verify\n"
        "  --json FILE     the tests, rates, intervals and verdict as data\n"
        "                  (calibrate_format 1, docs/formats.md#calibrate-json)\n"
        SV_ISOLATION_HELP
        SV_TREE_HELP
        "  --shard I/N     run shard I of N: the I-th contiguous share of the runs (their\n"
        "                  seeds as in the whole calibration), their p-values written to a\n"
        "                  shard file; 'specverify merge' of the N files prints what the\n"
        "                  whole calibration would (docs/shards.md)\n"
        "  --shard-file FILE  where (default shard-I-of-N.h5)\n"
        "\n"
        "SIGINT or SIGTERM stops the run at the next batch: the runs that finished are\n"
        "tested and reported, marked PARTIAL (the run cut short is left out); a second\n"
        "signal ends it at once.\n"
        "\n"
        "A check whose p-value is the same in every run means the sampler's randomness\n"
        "ignores the seed: that is the sampler's finding, reported as such.\n"
        "\n"
        "Exit status: 0 if both uniformity tests give p >= 1e-3, 1 if not or if the\n"
        "seed is ignored, 2 bad usage, 3 an interval GSL cannot give (the rest is\n"
        "printed), 128 + the signal when interrupted.\n"
        "\n"
        "Examples:\n"
        "  specverify calibrate --suite smoke --runs 4\n"
        "  specverify calibrate --sampler ref_race --suite smoke --runs 4 --seed 7\n");
}

#define CHECKS CALIBRATE_CHECKS

static const char *check_name(int32_t K, int32_t j, char *buf, size_t len)
{
    if (j <= K)
        snprintf(buf, len, "chi-square of y_%d", (int)j + 1);
    else
        snprintf(buf, len, "%s", j == K + 1   ? "the accepted length"
                                 : j == K + 2 ? "independence of neighbouring sequences"
                                 : j == K + 3 ? "independence of y_1 and y_2"
                                              : "the transitions");
    return buf;
}

/* Keeps what calibration uses of run r: one p-value per check. */
static int collect(const sv_report *r, calibrate_runs *runs)
{
    double *row;
    int rc = calibrate_runs_add(runs, &row);
    if (rc != SV_OK)
        return rc;
    runs->failed[runs->n - 1] = r->failed > 0;
    runs->tests[runs->n - 1] = r->n_tests;
    runs->split[runs->n - 1] = r->split_alpha;
    for (size_t i = 0; i < r->n_cases && i < runs->n_cases; i++) {
        const sv_run_eval *ev = &r->cases[i].runs[0];
        sv_gof tests[CHECKS];
        int32_t m = 0;
        for (int32_t k = 0; k <= ev->K; k++)
            tests[m++] = ev->pos[k].chi2;
        /* a block verifier's length test with K >= 2 is one-sided against a
         * floor its mean exceeds: conservative, its p-values pile up at 1,
         * not uniform; its false alarms still count in the runs that FAIL */
        const int one_sided = ev->rule == SV_RULE_BLOCK && ev->K >= 2 && !ev->chain;
        tests[m++] = one_sided ? (sv_gof){0.0, 0, 1.0, 0} : ev->length;
        tests[m++] = ev->indep_seq;
        tests[m++] = ev->indep_pos;
        if (ev->chain)
            tests[m++] = ev->seq_chi2;
        runs->K[i] = ev->K;
        for (int32_t j = 0; j < m; j++)
            if (tests[j].df != 0 && !tests[j].exact)
                row[i * CHECKS + (size_t)j] = tests[j].p;
    }
    return SV_OK;
}

/* The p-values of every run in order (tested checks only), into pv. */
static int pvalues(const calibrate_runs *runs, double **pv, size_t *n)
{
    *n = 0;
    *pv = malloc((runs->n * runs->cols + 1) * sizeof **pv);
    if (!*pv)
        return sv_fail(SV_EENV, "out of memory for %zu runs' p-values", runs->n);
    for (size_t j = 0; j < runs->n * runs->cols; j++)
        if (!isnan(runs->p[j]))
            (*pv)[(*n)++] = runs->p[j];
    return SV_OK;
}

enum { O_SAMPLER = 1000, O_PLUGIN, O_RUNS, O_SUITE, O_SEED, O_ALPHA, O_BATCH, O_THREADS, O_JSON };
static const struct option options[] = {
    {"sampler", required_argument, NULL, O_SAMPLER},
    {"plugin", required_argument, NULL, O_PLUGIN},
    {"runs", required_argument, NULL, O_RUNS},
    {"suite", required_argument, NULL, O_SUITE},
    {"seed", required_argument, NULL, O_SEED},
    {"alpha", required_argument, NULL, O_ALPHA},
    {"batch", required_argument, NULL, O_BATCH},
    {"threads", required_argument, NULL, O_THREADS},
    {"json", required_argument, NULL, O_JSON},
    SV_ISOLATION_OPTIONS,
    SV_TREE_OPTIONS,
    SV_PYTHON_OPTIONS,
    SV_SHARD_OPTIONS,
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};
static const char optstring[] = ":h";
/* the flags, for `run` to check an experiment's keys against before it runs */
const sv_command_flags sv_calibrate_flags = {optstring, options};
/* How many checks gave the same p-value in every run (NaN, no test, is
 * never the same): a sampler whose randomness ignores the seed repeats
 * them, where a correct one's differ in the last digits from seed to seed.
 * Said in `which` with the first of them; 0 if none. */
static size_t repeated(const calibrate_runs *runs, const sv_suite *suite, char *which,
                       size_t len)
{
    size_t count = 0, checks = 0;
    char first[SV_CASE_NAME_MAX + 96] = "";
    for (size_t i = 0; i < suite->n_entries && i < runs->n_cases; i++)
        for (int32_t j = 0; j < CHECKS; j++) {
            const size_t s = i * CHECKS + (size_t)j;
            const double p0 = runs->p[s];
            checks += !isnan(p0);
            int same = !isnan(p0);
            for (size_t r = 1; r < runs->n && same; r++)
                same = runs->p[r * runs->cols + s] == p0;
            if (!same || count++ > 0)
                continue;
            char check[64];
            snprintf(first, sizeof first, "%s in %s, p = %.6g",
                     check_name(runs->K[i], j, check, sizeof check), suite->entries[i].spec,
                     p0);
        }
    snprintf(which, len, "%zu of the %zu checks gave the same p-value in every run: %s%s",
             count, checks, first, count > 1 ? ", ..." : "");
    return count;
}

/* "95% CI [lo, hi]" of x of n, its ends as %.5f when fixed, else %.4g;
 * when GSL cannot give it, says so there and keeps the first error in why. */
static void interval_text(uint64_t x, uint64_t n, int fixed, char *out, size_t len, char *why,
                          size_t why_len, double ci[2])
{
    double lo, hi;
    ci[0] = ci[1] = NAN;
    if (sv_binomial_interval(x, n, 0.95, &lo, &hi) != SV_OK) {
        snprintf(out, len, "95%% CI not computed, see below");
        if (!why[0])
            snprintf(why, why_len, "%s", sv_error_message());
        return;
    }
    ci[0] = lo, ci[1] = hi;
    if (fixed)
        snprintf(out, len, "95%% CI [%.5f, %.5f]", lo, hi);
    else
        snprintf(out, len, "95%% CI [%.4g, %.4g]", lo, hi);
}

static int calibrate_command(int argc, char **argv, sv_cmd_shard *sh, sv_shard_set *merge);

int sv_cmd_calibrate(int argc, char **argv)
{
    return sv_calibrate_command(argc, argv, NULL);
}

int sv_calibrate_command(int argc, char **argv, sv_shard_set *merge)
{
    sv_cmd_shard sh;
    int rc = sv_cmd_shard_init(&sh, argc, argv, NULL);
    if (rc == SV_OK)
        rc = calibrate_command(argc, argv, &sh, merge);
    sv_cmd_shard_free(&sh);
    return rc;
}

/* The runs [lo, hi) of `runs` (seeds from `seed` as the whole run draws
 * them) into *out; *interrupted when a signal cut them short. */
static int run_runs(sv_verify_config *cfg, uint64_t seed, uint64_t lo, uint64_t hi,
                    calibrate_runs *out, int *interrupted)
{
    sv_progress progress;
    sv_progress_start(&progress, 1, "calibrate", hi - lo);
    sv_progress_unit(&progress, "runs");
    uint64_t run_seed = seed;
    int rc = SV_OK;
    for (uint64_t i = 0; i < lo; i++)
        run_seed = sv_rerun_seed(run_seed);
    for (uint64_t i = lo; i < hi && rc == SV_OK; i++) {
        if ((*interrupted = sv_interrupted()) != 0)
            break;
        sv_report *r = NULL;
        cfg->seed = run_seed;
        run_seed = sv_rerun_seed(run_seed);
        rc = sv_verify(cfg, &r);
        if (rc == SV_OK && (*interrupted = r->interrupted) != 0) {
            sv_report_free(r); /* a run cut short: its p-values are left out */
            break;
        }
        if (rc == SV_OK)
            rc = collect(r, out);
        sv_report_free(r);
        sv_progress_update(&progress, i + 1 - lo);
    }
    sv_progress_end(&progress);
    return rc;
}

/* A merge's runs: each shard's, in shard order, each starting where the
 * one before ended, all of them there. */
static int merged_runs(sv_shard_set *set, uint64_t runs, calibrate_runs *out)
{
    int rc = SV_OK;
    for (size_t k = 0; k < sv_shard_set_shards(set) && rc == SV_OK; k++)
        rc = calibrate_runs_read(sv_shard_set_file(set, k), out, out->n);
    if (rc == SV_OK && out->n != runs)
        rc = sv_fail(SV_EBAD, "merge: the shards hold %zu runs, the command asks %llu", out->n,
                     (unsigned long long)runs);
    return rc;
}

static int calibrate_command(int argc, char **argv, sv_cmd_shard *sh, sv_shard_set *merge)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const char *sampler_name = NULL, *suite_name = "smoke", *json = NULL;
    uint64_t runs = 200, seed = 1, v;
    double alpha = 1e-6;
    int32_t batch = 4096, threads = cores > 0 ? (int32_t)cores : 1;
    sv_isolation iso = {0, SV_CALL_TIMEOUT_DEFAULT};
    sv_tree_args tree_args = {0};
    int opt, rc = SV_OK;
    opterr = 0;
    while (rc == SV_OK && (opt = getopt_long(argc, argv, optstring, options, NULL)) != -1) {
        switch (opt) {
        case O_SAMPLER: sampler_name = optarg; break;
        case O_PLUGIN: {
            char err[1024];
            if (sv_plugin_load(optarg, err, sizeof err) != 0)
                rc = sv_fail(SV_EBAD, "%s", err);
            break;
        }
        case O_RUNS: rc = sv_parse_u64("--runs", optarg, 2, 1000000, &runs); break;
        case O_SUITE: suite_name = optarg; break;
        case O_JSON: rc = sv_output_flag("calibrate", "--json", &json, optarg); break;
        case O_SEED: rc = sv_parse_u64("--seed", optarg, 0, UINT64_MAX, &seed); break;
        case O_ALPHA: rc = sv_parse_double("--alpha", optarg, 0.0, 1.0, 1, &alpha); break;
        case O_BATCH:
            rc = sv_parse_u64("--batch", optarg, 1, 1u << 20, &v);
            batch = (int32_t)v;
            break;
        case O_THREADS:
            rc = sv_parse_u64("--threads", optarg, 1, 1024, &v);
            threads = (int32_t)v;
            break;
        case 'h': usage(stdout); return SV_OK;
        default:
            if (!sv_isolation_option(opt, optarg, &iso, &rc) &&
                !sv_python_option(opt, optarg, &rc) && !sv_tree_option(opt, optarg, &tree_args) &&
                !sv_cmd_shard_option(opt, optarg, sh, &rc))
                rc = sv_option_error("calibrate", opt, options, argv);
        }
    }
    if (rc == SV_OK && optind < argc)
        rc = sv_fail(SV_EBAD, "calibrate: unexpected argument '%s'", argv[optind]);
    if (rc == SV_OK && merge && sh->text)
        rc = sv_fail(SV_EBAD, "calibrate: a merged command cannot be a shard");
    if (rc == SV_OK && json && !sh->text) /* before the runs */
        rc = sv_atomic_check(json);
    if (rc != SV_OK || (rc = sv_python_load("calibrate")) != SV_OK)
        return rc;
    const sv_sampler *sampler = NULL;
    if ((rc = sv_sampler_choose("calibrate", sampler_name, &sampler)) != SV_OK)
        return rc;
    sv_tree shape;
    const sv_tree *tree;
    if ((rc = sv_tree_resolve("calibrate", &tree_args, sampler, SV_INPUT_PROBS, &shape, &tree)) !=
        SV_OK)
        return rc;
    const sv_suite *suite = sv_suite_find(suite_name);
    char hint[240];
    if (!suite)
        return sv_fail(SV_EBAD, "calibrate: unknown suite '%s' (smoke, ci, full)%s", suite_name,
                       sv_suggest_among(suite_name, "smoke, ci, full", hint, sizeof hint));
    if (sv_preflight())
        return sv_preflight_device("calibrate", sampler);

    const char **specs = calloc(suite->n_entries, sizeof *specs);
    uint64_t *draws = calloc(suite->n_entries, sizeof *draws);
    calibrate_runs kept;
    rc = calibrate_runs_init(&kept, suite->n_entries);
    if (rc != SV_OK || !specs || !draws) {
        free(specs);
        free(draws);
        calibrate_runs_free(&kept);
        return rc != SV_OK ? rc : sv_fail(SV_EENV, "out of memory");
    }
    for (size_t i = 0; i < suite->n_entries; i++) {
        specs[i] = suite->entries[i].spec;
        draws[i] = suite->entries[i].draws;
    }
    sv_verify_config cfg = {.sampler = sampler, .suite = suite_name, .specs = specs,
                            .draws = draws, .n_cases = suite->n_entries, .alpha = alpha,
                            .batch = batch, .threads = threads, .progress = 0,
                            .rerun_suspects = 0, .in_process = iso.in_process,
                            .call_timeout = iso.call_timeout, .tree = tree};
    int interrupted = 0;
    sv_interrupt_install();
    /* a shard: its contiguous share of the runs, to its file */
    const uint64_t lo = sh->text ? runs * sh->index / sh->count : 0;
    const uint64_t hi = sh->text ? runs * (sh->index + 1) / sh->count : runs;
    if (merge)
        rc = merged_runs(merge, runs, &kept);
    else if ((rc = sv_cmd_shard_open(sh, "calibrate", sampler->name, seed, alpha)) == SV_OK)
        rc = run_runs(&cfg, seed, lo, hi, &kept, &interrupted);
    free(specs);
    free(draws);
    if (sh->text) {
        if (rc == SV_OK && !interrupted)
            rc = calibrate_runs_write(sv_shard_writer_file(sh->w), &kept, lo);
        char what[96];
        snprintf(what, sizeof what, "runs %llu to %llu of %llu", (unsigned long long)lo + 1,
                 (unsigned long long)hi, (unsigned long long)runs);
        calibrate_runs_free(&kept);
        return sv_cmd_shard_close(sh, rc, interrupted, what);
    }
    const uint64_t finished = kept.n;
    char which[SV_CASE_NAME_MAX + 192] = "";
    const size_t same = finished >= 2 ? repeated(&kept, suite, which, sizeof which) : 0;
    double *pv = NULL;
    size_t n = 0;
    uint64_t failed_runs = 0;
    for (size_t i = 0; i < kept.n; i++)
        failed_runs += kept.failed[i];
    const size_t n_tests = kept.n ? kept.tests[kept.n - 1] : 0;
    const double split = kept.n ? kept.split[kept.n - 1] : 0.0;
    if (rc == SV_OK)
        rc = pvalues(&kept, &pv, &n);
    calibrate_runs_free(&kept);
    if (rc != SV_OK) {
        free(pv);
        return rc;
    }

    if (interrupted)
        printf("PARTIAL: interrupted by %s after %llu of %llu runs (the run cut short is "
               "left out); the statistics below are those of the runs that finished\n\n",
               sv_signal_name(interrupted), (unsigned long long)finished,
               (unsigned long long)runs);
    if (interrupted && n < 2) {
        printf("specverify %s calibrate: sampler %s, suite %s: too few p-values (%zu) to "
               "test\n", SV_VERSION, sampler->name, suite_name, n);
        free(pv);
        fprintf(stderr, "specverify: interrupted by %s after %llu of %llu runs\n",
                sv_signal_name(interrupted), (unsigned long long)finished,
                (unsigned long long)runs);
        return 128 + interrupted;
    }
    const uint64_t planned = runs;
    runs = finished; /* the rates below are over the runs that finished */
    uint64_t small = 0, counts[10];
    for (size_t i = 0; i < n; i++)
        small += pv[i] < 1e-3;
    sv_gof bins = sv_chi2_uniform_bins(pv, n, 10, counts);
    sv_gof ks = sv_ks_uniform(pv, n);
    char sm_ci[160], fa_ci[160], ci_error[1024] = "";
    calibrate_result res = {sampler->name, suite_name, NULL,
                            interrupted ? sv_signal_name(interrupted) : NULL, seed, runs,
                            planned, failed_runs, small, n, n_tests, alpha, split, ks.stat,
                            ks.p, bins.stat, bins.p, NAN, {0}, {NAN, NAN}, {NAN, NAN}, same,
                            which};
    memcpy(res.bins, counts, sizeof counts);
    interval_text(small, n, 1, sm_ci, sizeof sm_ci, ci_error, sizeof ci_error, res.small_ci);
    interval_text(failed_runs, runs, 0, fa_ci, sizeof fa_ci, ci_error, sizeof ci_error,
                  res.fail_ci);
    int uniform = ks.p >= 1e-3 && bins.p >= 1e-3;
    /* runs that fail far more often than the stated rate allows: a finding of
     * the sampler (a deterministic check such as seed sensitivity), not a
     * calibration of the harness */
    const double fail_p = failed_runs ? gsl_cdf_binomial_Q((unsigned)failed_runs - 1, alpha,
                                                           (unsigned)runs)
                                      : 1.0;
    const int failing = failed_runs > 0 && fail_p < 1e-3;

    printf("specverify %s calibrate: sampler %s, suite %s, %llu runs from seed %llu\n",
           SV_VERSION, sampler->name, suite_name, (unsigned long long)runs,
           (unsigned long long)seed);
    printf("%zu p-values (%zu per run are tested; one per check is used here)\n\n", n, n_tests);
    printf("Kolmogorov-Smirnov against U(0,1): D = %.5f, p = %.4g\n", ks.stat, ks.p);
    printf("10-bin chi-square (NIST SP 800-22): X^2 = %.2f, df 9, p = %.4g\n", bins.stat, bins.p);
    printf("bins:");
    for (int b = 0; b < 10; b++)
        printf(" %llu", (unsigned long long)counts[b]);
    printf("\n\n");
    printf("p < 1e-3: %llu of %zu p-values = %.5f (stated 0.001; %s)\n",
           (unsigned long long)small, n, n ? (double)small / n : 0.0, sm_ci);
    printf("false alarms: %llu of %llu runs failed = %.4g (stated %g per run, each p-value "
           "at %.2g; %s)\n", (unsigned long long)failed_runs, (unsigned long long)runs,
           (double)failed_runs / (double)runs, alpha, split, fa_ci);
    if (same) /* the sampler's finding, not the harness's calibration */
        printf("\n%sSEED IGNORED: identical p-values in %llu runs: the sampler's randomness "
               "ignores the seed\n(%s)\n", interrupted ? "PARTIAL, " : "", (unsigned long long)runs,
               which);
    else if (failing)
        printf("\n%sFAILS: %llu of %llu runs failed, which a sampler that passes with the "
               "stated rate does with probability %.2g: the sampler's finding (verify says "
               "which check), not the harness's calibration\n", interrupted ? "PARTIAL, " : "",
               (unsigned long long)failed_runs, (unsigned long long)runs, fail_p);
    else
        printf("\n%s%s: p-values %s uniform at the 1e-3 level\n",
               interrupted ? "PARTIAL, " : "", uniform ? "CALIBRATED" : "NOT CALIBRATED",
               uniform ? "are" : "are not");
    free(pv);
    res.fail_p = fail_p;
    res.verdict = same ? "SEED IGNORED" : failing ? "FAILS" : uniform ? "CALIBRATED"
                                                                      : "NOT CALIBRATED";
    /* a file that cannot be written is said, and never hides the verdict */
    const int written = json ? calibrate_write_json(json, &res) : SV_OK;
    if (ci_error[0]) /* everything else is printed; the report lacks an interval */
        return sv_fail(SV_EENV, "calibrate: %s", ci_error);
    if (interrupted) {
        fprintf(stderr, "specverify: interrupted by %s after %llu of %llu runs; partial "
                "results above\n", sv_signal_name(interrupted), (unsigned long long)finished,
                (unsigned long long)planned);
        return 128 + interrupted;
    }
    return uniform && !same && !failing ? written : SV_EVERIFY;
}
