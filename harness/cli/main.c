/* main.c: specverify, the command line. */
#include <stdio.h>
#include <string.h>
#include "cuda_stage.h"
#include "fused_tuning.h"
#include "sv_cli.h"
#include "sv_sandbox.h"

int sv_cmd_record(int argc, char **argv); /* cmd_record.c */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: specverify COMMAND [options]\n"
            "\n"
            "Proves a speculative-decoding rejection sampler lossless: its emitted tokens\n"
            "must be distributed exactly as the target model's p, over millions of draws.\n"
            "\n"
            "commands:\n"
            "  verify     run a sampler over a suite of cases and test its output distribution\n"
            "  merge      the shard files of a verify --shard I/N run into its verdict\n"
            "  replay     a batch verify --dump-failing wrote, given to the sampler again\n"
            "  mutants    every deliberately broken sampler through a suite: caught or missed?\n"
            "  calibrate  run a correct sampler many times: are its p-values uniform?\n"
            "  sweep      acceptance, tokens per step and speedup over temperature and K\n"
            "  compare    bench files from different runs or GPUs, point by point\n"
            "  bench      kernel latency of CUDA samplers over B, K, V and acceptance rate\n"
            "  plot       latency against B and V from bench files\n"
            "  run        an experiment file (experiments/*.ini): its runs, one after another\n"
            "  preflight  a command's arguments checked as it would before its first draw;\n"
            "             nothing runs (what `run` does to every run first)\n"
            "  record     record p/q steps from real text (record ngram --corpus FILE)\n"
            "  list       samplers, suites and case families\n"
            "  help       this text; 'specverify COMMAND --help' for one command\n"
            "\n"
            "environment:\n"
            "  SV_PROGRESS_SECONDS=S  seconds between progress lines when stderr is not a\n"
            "                       terminal (default 30; 0: none)\n"
            "  SV_PYTHON_FORK=0     a Python sampler's interpreter started for each run, not\n"
            "                       imported once and forked (docs/python.md)\n"
            "cuda_fused's speed, never its tokens (docs/gpu.md#knobs):\n"
            "  SV_FUSED_PRUNE=0|1   0: time every token of the race exactly (default 1)\n"
            "  SV_FUSED_DEPTH=1|2   rounds of rows in flight per thread (default 1)\n"
            "  SV_FUSED_SPLITS=N    blocks per sequence (default: one wave of the GPU)\n"
            "  SV_FUSED_EARLY=0|1   0: no programmatic dependent launch (default 1, on\n"
            "                       compute capability 9.0 and later)\n"
            "\n"
            "Exit status: 0 all passed, 1 a verification failed, 2 bad usage or input,\n"
            "3 environment.\n"
            "\n"
            "Examples:\n"
            "  specverify verify --suite smoke\n"
            "  specverify verify --sampler ref_race --case zipf:V=50,K=2 --draws 20000\n"
            "  specverify list\n"
            "  specverify verify --help\n");
}

#ifdef SV_HAVE_CUDA
/* The sandbox's fit (sandbox_fit.c): a GPU is there (asked in a child, as
 * the harness never starts CUDA itself), and CUDA starts where it asks. */
static int gpu_present(char *why, size_t len)
{
    return sv_cuda_device_count_isolated(why, len) > 0;
}

static int gpu_works(char *why, size_t len)
{
    return sv_cuda_device_count(why, len) > 0;
}
#endif

/* The environment's knobs (cuda_fused's, fused_tuning.h; progress lines'),
 * checked before any command runs: a typo must not be a run with the defaults. */
static int environment_ok(void)
{
    sv_fused_tuning tuning;
    char err[200];
    double interval;
    if (sv_fused_tuning_read(&tuning, err, sizeof err) == 0 &&
        sv_progress_interval(&interval, err, sizeof err) == 0)
        return 1;
    fprintf(stderr, "specverify: %s\n", err);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return SV_EBAD;
    }
    sv_gsl_errors_install(); /* GSL's errors are kept and named, never an abort */
    /* a plugin's load probe runs its code: sandboxed as the sampler's process is */
    sv_plugin_set_confine(sv_sandbox_before_probe, sv_sandbox_confine_probe);
#ifdef SV_HAVE_CUDA
    /* where a GPU is, the sandbox keeps only layers CUDA starts under */
    sv_sandbox_set_fit(gpu_present, gpu_works);
#endif
    /* --sandbox holds for the plugins' probes too, wherever it stands among
     * the options that load them (a bad value is the option parser's to name) */
    for (int i = 2; i < argc && argv[i]; i++) {
        const char *value = strncmp(argv[i], "--sandbox=", 10) == 0 ? argv[i] + 10
                            : strcmp(argv[i], "--sandbox") == 0 && i + 1 < argc ? argv[i + 1]
                                                                                : NULL;
        const int mode = value ? sv_sandbox_mode_parse(value) : -1;
        if (mode >= 0 && mode != SV_SANDBOX_STRICT) /* strict's refusal is the parser's */
            sv_sandbox_setup((sv_sandbox_mode)mode);
    }
    const char *cmd = argv[1];
    const int asks_help = strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 ||
                          strcmp(cmd, "-h") == 0 || strcmp(cmd, "--version") == 0;
    if (!asks_help && !environment_ok())
        return SV_EBAD;
#ifdef SV_HAVE_CUDA
    /* the fit's CUDA checks in forked children, while this is the one thread */
    static const char *const run_samplers[] = {"verify", "replay", "calibrate", "mutants",
                                               "sweep", "run"};
    for (size_t i = 0; i < sizeof run_samplers / sizeof run_samplers[0]; i++)
        if (strcmp(cmd, run_samplers[i]) == 0)
            sv_sandbox_layers();
#endif
    int rc;
    if (strcmp(cmd, "verify") == 0) {
        rc = sv_cmd_verify(argc - 1, argv + 1);
    } else if (strcmp(cmd, "replay") == 0) {
        rc = sv_cmd_replay(argc - 1, argv + 1);
    } else if (strcmp(cmd, "merge") == 0) {
        rc = sv_cmd_merge(argc - 1, argv + 1);
    } else if (strcmp(cmd, "calibrate") == 0) {
        rc = sv_cmd_calibrate(argc - 1, argv + 1);
    } else if (strcmp(cmd, "mutants") == 0) {
        rc = sv_cmd_mutants(argc - 1, argv + 1);
    } else if (strcmp(cmd, "sweep") == 0) {
        rc = sv_cmd_sweep(argc - 1, argv + 1);
    } else if (strcmp(cmd, "compare") == 0) {
        rc = sv_cmd_compare(argc - 1, argv + 1);
    } else if (strcmp(cmd, "bench") == 0) {
        rc = sv_cmd_bench(argc - 1, argv + 1);
    } else if (strcmp(cmd, "plot") == 0) {
        rc = sv_cmd_plot(argc - 1, argv + 1);
    } else if (strcmp(cmd, "run") == 0) {
        rc = sv_cmd_run(argc - 1, argv + 1);
    } else if (strcmp(cmd, "preflight") == 0) {
        rc = sv_cmd_preflight(argc - 1, argv + 1);
    } else if (strcmp(cmd, "record") == 0) {
        rc = sv_cmd_record(argc - 1, argv + 1);
    } else if (strcmp(cmd, "list") == 0) {
        rc = sv_cmd_list(argc - 1, argv + 1);
    } else if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 ||
               strcmp(cmd, "-h") == 0) {
        usage(stdout);
        return SV_OK;
    } else if (strcmp(cmd, "--version") == 0) {
        printf("specverify %s\n", SV_VERSION);
        return SV_OK;
    } else {
        const char *commands = "verify, merge, replay, mutants, calibrate, sweep, bench, compare, plot, "
                               "run, preflight, record, list, help";
        char hint[240];
        rc = sv_fail(SV_EBAD, "unknown command '%s'%s (commands: %s)", cmd,
                     sv_suggest_among(cmd, commands, hint, sizeof hint), commands);
    }
    if (rc != SV_OK && rc != SV_EVERIFY && rc < 128) { /* 128 + signal: already said */
        /* an error names paths, arguments and what files hold: escaped */
        char said[4 * 1024 + 1]; /* the message holds at most 1023 bytes */
        fprintf(stderr, "specverify: %s\n", sv_escaped(said, sizeof said, sv_error_message()));
    }
    char gsl[320];
    if (sv_gsl_error_take(gsl, sizeof gsl)) { /* one no caller reported: numbers may be off */
        fprintf(stderr, "specverify: %s; a number above may be wrong\n", gsl);
        if (rc == SV_OK || rc == SV_EVERIFY)
            rc = SV_EENV;
    }
    sv_plugin_unload_all();
    return rc;
}
