/* cmd_verify.c: `specverify verify`: is the sampler's output distributed as p? */
#include <getopt.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <unistd.h>
#include "mass_plot.h"
#include "sv_cli.h"
#include "sv_sandbox.h"
#include "sv_cases.h"
#include "sv_check.h"
#include "sv_output.h"
#include "sv_report.h"
#include "sv_stats.h"
#include "sv_store.h"
#include "budget.h"

#define MAX_CASES 256

static void usage(FILE *out)
{
    fprintf(out,
        "usage: specverify verify [--sampler NAME] [--plugin LIB] [--python FILE.py:NAME]\n"
        "                         [--suite NAME | --case SPEC | --recorded FILE[:GROUP]]\n"
        "                         [--draws N] [--seed S] [--alpha A] [--batch B] [--threads T]\n"
        "                         [--json FILE] [--junit FILE] [--no-rerun] [--budget S]\n"
        "                         [--input probs|logits-f32|logits-bf16]\n"
        "                         [--batches mixed|uniform] [--seeding mixed|all|none]\n"
        "                         [--device-staging]\n"
        "                         [--call-timeout S] [--in-process]\n"
        "                         [--tree SHAPE] [--siblings iid|distinct]\n"
        "\n"
        "Runs the sampler over many draws of each case and tests that every emitted token\n"
        "is distributed as the target p (chi-square, G, total variation), that accepted\n"
        "lengths follow the acceptance rates alpha_k = sum min(p_k, q_k), and that draws\n"
        "are independent. A sampler of another rule (specverify list: [rule: ...]) is\n"
        "judged by its own law: exact match as a one-hot drafter's chain (alpha_k =\n"
        "sum p_k q_k), block verification's mean length against the chain's, one-sided,\n"
        "a tree's tokens by depth and its depth against the law given each step's tree\n"
        "(docs/rules.md). Prints one row per case and position, then what looks wrong in\n"
        "words, then a summary.\n"
        "\n"
        "  --sampler NAME  sampler to verify (default: the one sampler of --plugin, else ref)\n"
        "  --plugin LIB    load samplers from a shared library first (repeatable)\n"
        SV_PYTHON_HELP
        "  --suite NAME    smoke, ci (default), full, logits (cases for logits input), or\n"
        "                  deep: each hard variant's case at the draws the power formula\n"
        "                  asks to catch it with probability --power-target (1e8 and more;\n"
        "                  its plan is printed first; docs/shards.md#the-deep-suite)\n"
        "  --case SPEC     one case instead of a suite, e.g. 'zipf:V=1000,K=4,s=1.2'\n"
        "                  (repeatable; families and parameters: specverify list)\n"
        "  --recorded FILE[:GROUP]  cases from a recording of real p/q (HDF5;\n"
        "                  docs/record.md): one case per step, its logits through\n"
        "                  temperature, top-k and top-p, the same for target and draft\n"
        "  --steps LIST    the recording's steps: '0,5,9' or FROM:TO (default: all)\n"
        "  --T T, --top-k N, --top-p P  the sampling pipeline (default 1, 0 = all, 1)\n"
        "  --K K           use the first K drafts of each step (default: all recorded)\n"
        "  --mismatch-T T  draw the drafts at temperature T but tell the sampler q at\n"
        "                  --T: a deliberate bug, which a correct sampler must FAIL\n"
        "  --input MODE    what the sampler is given: probs (default), or logits-f32 or\n"
        "                  logits-bf16 for a sampler that takes logits (specverify list):\n"
        "                  each case's logits, rounded to that type, with its T, top-k and\n"
        "                  top-p; the checks use the p and q distributions/logits.c makes\n"
        "                  of the rounded logits. Cases must come from logits (the logits\n"
        "                  and onehot families, recordings); the default suite is then\n"
        "                  'logits'\n"
        "  --draws N       draws per case (default: the suite's; 1000000 for --case);\n"
        "                  with --budget or --draws-scale, the most any case gets\n"
        "  --draws-scale X each case at X times its suite's draws (0.1: a tenth of each),\n"
        "                  which keeps a rare-event case's share where --draws N cuts every\n"
        "                  case to N; a case run below the draws its power against the bug\n"
        "                  it was built for needs is named in the report ('below power')\n"
        "  --budget S      fit the run in S seconds: a probe of about a second a case\n"
        "                  measures the sampler's rate, then each case gets the draws that\n"
        "                  make the worst case's min-det smallest, never more than the\n"
        "                  suite's (or --draws), keeping time for one SUSPECT re-run;\n"
        "                  what that detects is printed first (docs/verify.md#a-time-budget)\n"
        "  --seed S        seed of drafts and sampler randomness (default 1)\n"
        "  --alpha A       family-wise false-alarm rate, split over every p-value (default 1e-6)\n"
        "  --batch B       sequences per sampler call (default 4096; results do not depend on it)\n"
        "  --threads T     worker threads (default: all cores; results do not depend on it)\n"
        "  --json FILE     write the full report as JSON\n"
        "  --junit FILE    write JUnit XML (one test case per case and check)\n"
        "  --plot DIR      for each failing or suspect position, a figure of where its\n"
        "                  mass went: observed over expected per bin, with the band a\n"
        "                  bin alone stays in (DIR/mass-N.png, .svg, .pdf; docs/verify.md)\n"
        "  --dump-failing DIR  the first batch in which each case broke the contract\n"
        "                  (a sequence that did, or a call that failed),\n"
        "                  and the two batches of a batch-composition failure, written\n"
        "                  to DIR (made if missing) for 'specverify replay FILE' to give\n"
        "                  the sampler again (mixed batches;\n"
        "                  docs/verify.md#the-failing-batch-again)\n"
        "  --no-rerun      do not re-run SUSPECT cases with a fresh seed and 4x the draws\n"
        SV_BATCHES_HELP
        "  --device-staging  a CUDA sampler's batches drafted, checked and counted on\n"
        "                  the GPU, not the host (mixed or uniform batches; Markov-pair\n"
        "                  cases are staged on the host, saying so): the same counts and\n"
        "                  verdicts, at the kernel's speed (docs/gpu.md#device-staging)\n"
        SV_ISOLATION_HELP
        SV_TREE_HELP
        "  --measure       report how far each position's tokens are from p, TV and KL\n"
        "                  with 95%% intervals, and the acceptance gained over the chain\n"
        "                  rule: for a lossy rule (typical acceptance) instead of verdicts\n"
        "                  (exit 1 only for a broken contract), for every other rule beside\n"
        "                  them, its verdicts and exit status kept (docs/rules.md)\n"
        "  --power VARIANT do not sample: print how likely this run is to catch the broken\n"
        "                  variant (power from its output distribution in closed form) and\n"
        "                  the draws each case needs for power P; --json FILE: as data\n"
        "                  (power_format 1, docs/formats.md#power-json)\n"
        "  --power-target P  the power for that draws column (default 1 - 1e-6)\n"
        "  --plan          print what the run will take and exit: each case's draws, the\n"
        "                  sampler's own rate from --budget's short probes, the time on 1\n"
        "                  core (a host sampler), or on 1 GPU and --plan-gpus GPUs (a CUDA\n"
        "                  sampler; default 8)\n"
        "  --shard I/N     run shard I of N: each case's first run's I-th contiguous share\n"
        "                  of its sequences, and write its raw counts to a shard file\n"
        "                  instead of a verdict; 'specverify merge' of all N prints and\n"
        "                  writes what the whole run would (docs/shards.md). Every shard\n"
        "                  runs the same command but for --shard and --shard-file\n"
        "  --shard-file FILE  where (default shard-I-of-N.h5)\n"
        "  -h, --help      this text\n"
        "\n"
        "Verdicts: FAIL when a p-value is below alpha / (number of p-values); SUSPECT when\n"
        "p < 1e-3 but not failing (re-run automatically: a real defect grows with N, a fluke\n"
        "does not); PASS otherwise.\n"
        "SIGINT or SIGTERM stops the run at the next batch: the cases that ran (the\n"
        "last on the draws it finished) are reported and written to FILE.partial,\n"
        "marked partial, leaving an earlier FILE whole; a second signal ends it at once.\n"
        "\n"
        "Exit status: 0 all passed, 1 a verification failed, 2 bad usage or input,\n"
        "3 environment (no memory, no GPU), 128 + the signal when interrupted\n"
        "(130 SIGINT, 143 SIGTERM).\n"
        "\n"
        "Examples:\n"
        "  specverify verify --suite smoke\n"
        "  specverify verify --sampler ref_race --case zipf:V=50,K=2 --draws 20000\n"
        "  specverify verify --suite smoke --json report.json --junit report.xml\n");
}

typedef struct verify_args {
    const char *sampler, *suite, *json, *junit, *power;
    double power_target;
    const char *cases[MAX_CASES];
    size_t n_cases;
    uint64_t draws, seed;
    double alpha;
    int32_t batch, threads;
    int rerun;
    int32_t input;
    int uniform, seeding;
    int device_staging; /* --device-staging */
    int measure; /* --measure: distances from p (a lossy rule's in place of verdicts) */
    sv_recorded_opts recorded;
    sv_isolation iso;
    sv_tree_args tree;
    const char *shard, *shard_file; /* --shard I/N: shard_index of shard_count */
    uint32_t shard_index, shard_count;
    const char *const *command;     /* the arguments a shard file names the run by */
    size_t n_command;
    const sv_shard_hooks *merge;    /* a merge's: the shards' counts in place of the runs */
    int mpi_rank, mpi_size;         /* under mpirun (mpi_verify.c): this rank of size */
    int plan, plan_gpus;            /* --plan: what the run will take, and exit */
    double budget;                  /* --budget: seconds the run may take; 0: none */
    double draws_scale;             /* --draws-scale: each case's draws times this; 0: none */
    const char *plot;               /* --plot DIR: where each failing position's mass went */
    const char *dump;               /* --dump-failing DIR: failing mixed batches, for replay */
    const char *const *why;         /* the deep suite's: the variant each case is sized for */
} verify_args;

enum { O_SAMPLER = 1000, O_PLUGIN, O_SUITE, O_CASE, O_DRAWS, O_SEED, O_ALPHA, O_BATCH,
       O_THREADS, O_JSON, O_JUNIT, O_NORERUN, O_POWER, O_POWER_TARGET, O_RECORDED,
       O_STEPS, O_T, O_TOP_K, O_TOP_P, O_MISMATCH_T, O_K, O_INPUT, O_BATCHES, O_SEEDING,
       O_MEASURE, O_SHARD, O_SHARD_FILE, O_PLAN, O_PLAN_GPUS, O_DEVICE_STAGING, O_BUDGET,
       O_DRAWS_SCALE, O_PLOT, O_DUMP_FAILING };
static const struct option options[] = {
    {"sampler", required_argument, NULL, O_SAMPLER},
    {"plugin", required_argument, NULL, O_PLUGIN},
    {"plot", required_argument, NULL, O_PLOT},
    {"dump-failing", required_argument, NULL, O_DUMP_FAILING},
    {"suite", required_argument, NULL, O_SUITE},
    {"case", required_argument, NULL, O_CASE},
    {"draws", required_argument, NULL, O_DRAWS},
    {"seed", required_argument, NULL, O_SEED},
    {"alpha", required_argument, NULL, O_ALPHA},
    {"batch", required_argument, NULL, O_BATCH},
    {"threads", required_argument, NULL, O_THREADS},
    {"json", required_argument, NULL, O_JSON},
    {"junit", required_argument, NULL, O_JUNIT},
    {"no-rerun", no_argument, NULL, O_NORERUN},
    {"power", required_argument, NULL, O_POWER},
    {"power-target", required_argument, NULL, O_POWER_TARGET},
    {"recorded", required_argument, NULL, O_RECORDED},
    {"steps", required_argument, NULL, O_STEPS},
    {"T", required_argument, NULL, O_T},
    {"top-k", required_argument, NULL, O_TOP_K},
    {"top-p", required_argument, NULL, O_TOP_P},
    {"mismatch-T", required_argument, NULL, O_MISMATCH_T},
    {"K", required_argument, NULL, O_K},
    {"input", required_argument, NULL, O_INPUT},
    {"batches", required_argument, NULL, O_BATCHES},
    {"seeding", required_argument, NULL, O_SEEDING},
    {"device-staging", no_argument, NULL, O_DEVICE_STAGING},
    {"measure", no_argument, NULL, O_MEASURE},
    {"shard", required_argument, NULL, O_SHARD},
    {"shard-file", required_argument, NULL, O_SHARD_FILE},
    {"plan", no_argument, NULL, O_PLAN},
    {"plan-gpus", required_argument, NULL, O_PLAN_GPUS},
    {"budget", required_argument, NULL, O_BUDGET},
    {"draws-scale", required_argument, NULL, O_DRAWS_SCALE},
    SV_ISOLATION_OPTIONS,
    SV_PYTHON_OPTIONS,
    SV_TREE_OPTIONS,
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};
static const char optstring[] = ":h";
/* the flags, for `run` to check an experiment's keys against before it runs */
const sv_command_flags sv_verify_flags = {optstring, options};

static int parse(int argc, char **argv, verify_args *a)
{
    uint64_t v;
    int opt, rc = SV_OK;
    opterr = 0;
    while (rc == SV_OK && (opt = getopt_long(argc, argv, optstring, options, NULL)) != -1) {
        switch (opt) {
        case O_SAMPLER: a->sampler = optarg; break;
        case O_PLUGIN: {
            char err[1024];
            if (sv_plugin_load(optarg, err, sizeof err) != 0)
                rc = sv_fail(SV_EBAD, "%s", err);
            break;
        }
        case O_SUITE: a->suite = optarg; break;
        case O_CASE:
            if (a->n_cases == MAX_CASES)
                rc = sv_fail(SV_EBAD, "--case: at most %d cases", MAX_CASES);
            else
                a->cases[a->n_cases++] = optarg;
            break;
        case O_DRAWS: rc = sv_parse_u64("--draws", optarg, 1, 1ull << 40, &a->draws); break;
        case O_SEED: rc = sv_parse_u64("--seed", optarg, 0, UINT64_MAX, &a->seed); break;
        case O_ALPHA: rc = sv_parse_double("--alpha", optarg, 0.0, 1.0, 1, &a->alpha); break;
        case O_BATCH:
            rc = sv_parse_u64("--batch", optarg, 1, 1u << 20, &v);
            a->batch = (int32_t)v;
            break;
        case O_THREADS:
            rc = sv_parse_u64("--threads", optarg, 1, 1024, &v);
            a->threads = (int32_t)v;
            break;
        case O_JSON: rc = sv_output_flag("verify", "--json", &a->json, optarg); break;
        case O_JUNIT: rc = sv_output_flag("verify", "--junit", &a->junit, optarg); break;
        case O_PLOT: rc = sv_output_flag("verify", "--plot", &a->plot, optarg); break;
        case O_DUMP_FAILING:
            rc = sv_output_flag("verify", "--dump-failing", &a->dump, optarg);
            break;
        case O_NORERUN: a->rerun = 0; break;
        case O_POWER: a->power = optarg; break;
        case O_POWER_TARGET:
            rc = sv_parse_double("--power-target", optarg, 0.0, 1.0, 1, &a->power_target);
            break;
        case O_RECORDED: a->recorded.path = optarg; break;
        case O_STEPS: a->recorded.steps = optarg; break;
        case O_T: a->recorded.T = optarg; break;
        case O_TOP_K: a->recorded.top_k = optarg; break;
        case O_TOP_P: a->recorded.top_p = optarg; break;
        case O_MISMATCH_T: a->recorded.mismatch_T = optarg; break;
        case O_K: a->recorded.K = optarg; break;
        case O_INPUT: rc = sv_parse_input("--input", optarg, &a->input); break;
        case O_BATCHES: rc = sv_parse_batches("--batches", optarg, &a->uniform); break;
        case O_SEEDING: rc = sv_parse_seeding("--seeding", optarg, &a->seeding); break;
        case O_MEASURE: a->measure = 1; break;
        case O_DEVICE_STAGING: a->device_staging = 1; break;
        case O_SHARD:
            a->shard = optarg;
            rc = sv_parse_shard("--shard", optarg, &a->shard_index, &a->shard_count);
            break;
        case O_PLAN: a->plan = 1; break;
        case O_PLAN_GPUS:
            rc = sv_parse_u64("--plan-gpus", optarg, 1, 1u << 20, &v);
            a->plan_gpus = (int)v;
            break;
        case O_BUDGET: rc = sv_parse_double("--budget", optarg, 0.0, 1e9, 1, &a->budget); break;
        case O_DRAWS_SCALE:
            rc = sv_parse_double("--draws-scale", optarg, 0.0, 1e6, 1, &a->draws_scale);
            break;
        case O_SHARD_FILE: rc = sv_output_flag("verify", "--shard-file", &a->shard_file, optarg); break;
        case 'h': usage(stdout); return -1;
        default:
            if (!sv_isolation_option(opt, optarg, &a->iso, &rc) &&
                !sv_python_option(opt, optarg, &rc) && !sv_tree_option(opt, optarg, &a->tree))
                rc = sv_option_error("verify", opt, options, argv);
        }
    }
    if (rc == SV_OK && optind < argc)
        rc = sv_fail(SV_EBAD, "verify: unexpected argument '%s'", argv[optind]);
    if (rc == SV_OK && a->suite && a->n_cases)
        rc = sv_fail(SV_EBAD, "verify: give --suite or --case, not both");
    if (rc == SV_OK && a->recorded.path && (a->suite || a->n_cases))
        rc = sv_fail(SV_EBAD, "verify: --recorded takes the place of %s; give one of them",
                     a->suite ? "--suite" : "--case");
    if (rc == SV_OK)
        rc = sv_recorded_opts_check(&a->recorded);
    if (rc == SV_OK && a->json && a->junit)
        rc = sv_verify_distinct_outputs(a->json, a->junit);
    if (rc == SV_OK && a->shard_file && !a->shard)
        rc = sv_fail(SV_EBAD, "verify: --shard-file is where --shard I/N writes; give --shard");
    if (rc == SV_OK && a->shard && a->power)
        rc = sv_fail(SV_EBAD, "verify: --power runs nothing to shard; leave out --shard");
    if (rc == SV_OK && a->measure && (a->junit || a->power))
        rc = sv_fail(SV_EBAD, "verify: --measure gives a lossy rule no verdicts, so it takes "
                     "no %s (the distances are in --json)", a->junit ? "--junit" : "--power");
    if (rc == SV_OK && a->dump && (a->uniform || a->shard))
        rc = sv_fail(SV_EBAD, "verify: --dump-failing writes failing mixed batches; %s",
                     a->uniform ? "--batches uniform has none (leave it out)"
                                : "a shard's are replayed from the whole run (leave out "
                                  "--shard)");
    if (rc == SV_OK && a->budget > 0 && (a->power || a->plan || a->shard))
        rc = sv_fail(SV_EBAD, "verify: --budget sizes a run; %s", a->power ? "--power runs "
                     "nothing (give --draws)" : a->plan ? "--plan prints the suite's sizing "
                     "(leave out one)" : "a shard's draws are the whole run's (leave out --shard)");
    return rc;
}

static int run_and_report(const sv_verify_config *cfg, void *ctx);

/* Runs the cases (or prints the power of --power against them) and writes
 * the reports. */
static int verify_specs(const verify_args *a, const sv_sampler *sampler, const char *suite_name,
                        const char **specs, const uint64_t *draws, size_t n)
{
    int rc;
    /* --draws-scale X: X times each case's own, at least 1 (and with --draws N,
     * at most N) */
    uint64_t scaled[MAX_CASES];
    if (a->draws_scale > 0) {
        for (size_t i = 0; i < n; i++) {
            scaled[i] = (uint64_t)fmax(1.0, llround((double)draws[i] * a->draws_scale));
            if (a->draws && scaled[i] > a->draws)
                scaled[i] = a->draws;
        }
        draws = scaled;
    }
    if (a->power) {
        if (!sv_predict_known(a->power))
            return sv_fail(SV_EBAD, "verify --power: no closed-form output distribution for "
                           "'%s' (variants with one: see docs/mutants.md#power-before-sampling)",
                           a->power);
        if (sv_preflight())
            return sv_preflight_cases("verify", specs, n);
        return sv_print_power(a->power, specs, draws, n, a->alpha, a->power_target, stdout,
                              a->json);
    }
    if ((a->json && (rc = sv_atomic_check(a->json)) != SV_OK) ||
        (a->junit && (rc = sv_atomic_check(a->junit)) != SV_OK))
        return rc;
    sv_tree shape;
    const sv_tree *tree;
    if ((rc = sv_tree_resolve("verify", &a->tree, sampler, a->input, &shape, &tree)) != SV_OK)
        return rc;
    if (a->dump && tree)
        return sv_fail(SV_EBAD, "verify: --dump-failing writes failing mixed batches, and "
                       "sampler %s's trees are not mixed", sampler->name);
    if (sv_preflight()) { /* what the run checks before its first draw; nothing drawn */
        if ((rc = sv_preflight_cases("verify", specs, n)) == SV_OK && a->budget > 0)
            rc = sv_budget_least(a->budget, n);
        return rc == SV_OK ? sv_preflight_device("verify", sampler) : rc;
    }

    sv_verify_config cfg = {
        .sampler = sampler, .suite = suite_name, .specs = specs, .draws = draws,
        .n_cases = n, .seed = a->seed, .alpha = a->alpha, .batch = a->batch,
        .threads = a->threads, .progress = 1, .rerun_suspects = a->rerun,
        .input = a->input, .in_process = a->iso.in_process,
        .call_timeout = a->iso.call_timeout, .uniform = a->uniform, .seeding = a->seeding,
        .device_staging = a->device_staging,
        .tree = tree, .shard = a->merge,
    };
    if (a->plan || (suite_name && strcmp(suite_name, "deep") == 0 && a->mpi_rank == 0 &&
                    !a->merge)) {
        rc = sv_print_plan(&cfg, a->why, a->plan_gpus, a->plan ? stdout : stderr);
        if (rc != SV_OK || a->plan)
            return rc;
    }
    /* --budget's draws, in place of the suite's, and its SUSPECT re-runs' */
    uint64_t shared[MAX_CASES], again[MAX_CASES];
    if (a->budget > 0 && !a->merge) {
        memcpy(shared, draws, n * sizeof *draws);
        if ((rc = sv_budget_apply(&cfg, a->budget, shared, again, stdout)) != SV_OK)
            return rc;
        cfg.draws = shared;
        cfg.rerun_draws = again;
    }
    if (a->shard)
        return sv_verify_shard(&cfg, a->shard_file, a->shard_index, a->shard_count,
                               a->command, a->n_command);
    sv_interrupt_install();
#ifdef SV_HAVE_MPI
    if (a->mpi_size > 1) /* each rank its shard; rank 0 reports the sums */
        return sv_mpi_verify(&cfg, a->mpi_rank, a->mpi_size, run_and_report, (void *)a);
#endif
    if (a->dump) {
        char prefix[1024];
        sv_reproduce_prefix(sampler, a->input, 0, a->seeding, NULL, prefix, sizeof prefix);
        if ((rc = sv_dump_open(a->dump, sampler, a->input, prefix, &cfg.dump)) != SV_OK)
            return rc;
    }
    rc = run_and_report(&cfg, (void *)a);
    sv_dump_close(cfg.dump);
    return rc;
}

/* The run (or its counts, a merge's) and its reports: text, JSON, JUnit. */
static int run_and_report(const sv_verify_config *cfg, void *ctx)
{
    const verify_args *a = ctx;
    sv_report *report = NULL;
    int rc = sv_verify(cfg, &report);
    if (rc != SV_OK)
        return rc;
    report->measure = a->measure;
    report->sandbox = a->iso.in_process ? "sandbox: none (--in-process: the sampler runs in "
                                          "the harness's own process)"
                                        : sv_sandbox_summary();
    report->python_exe = sv_python_exe();
    report->python_version = sv_python_version();
    report->python_start = !report->python_exe ? NULL
                           : a->iso.in_process ? "started for each run (--in-process)"
                                               : sv_python_server_state();
    /* only a lossy rule trades its verdicts for distances: a lossless one
     * that --measure let off would pass whatever it emitted */
    report->verdicts_dropped = a->measure && sv_rule_is_lossy(report->rule);
    sv_reproduce_prefix(cfg->sampler, cfg->input, cfg->uniform, cfg->seeding, report->tree,
                        report->reproduce, sizeof report->reproduce);
    sv_sampler_source(cfg->sampler, report->source, sizeof report->source);
    if ((rc = sv_note_short_cases(report, cfg->specs, cfg->n_cases, a->power_target)) != SV_OK) {
        sv_report_free(report);
        return rc;
    }
    /* the verdict first: a report that cannot be written loses nothing else */
    sv_report_text(report, stdout);
    fflush(stdout);
    char json[SV_OUTPUT_PATH + 16], junit[SV_OUTPUT_PATH + 16];
    sv_outputs_status written = {0};
    if (a->json)
        sv_outputs_note(&written,
                        sv_verify_write_report(report, a->json, 0, json, sizeof json));
    if (a->junit)
        sv_outputs_note(&written,
                        sv_verify_write_report(report, a->junit, 1, junit, sizeof junit));
    if (a->plot)
        sv_outputs_note(&written, sv_mass_plot_report(report, a->plot, stdout));
    int verdict = report->failed ? SV_EVERIFY : SV_OK;
    if (report->verdicts_dropped) /* no verdicts on the distribution: only a broken contract */
        verdict = sv_report_contract_broken(report) ? SV_EVERIFY : SV_OK;
    if (report->interrupted) {
        fprintf(stderr, "specverify: interrupted by %s; partial results%s%s%s%s\n",
                sv_signal_name(report->interrupted), a->json || a->junit ? " in " : " above",
                a->json ? json : "", a->json && a->junit ? " and " : "", a->junit ? junit : "");
        verdict = 128 + report->interrupted;
    }
    sv_report_free(report);
    return sv_outputs_end(&written, verdict);
}

static int verify_command(const verify_args *a, int argc, char **argv);

int sv_cmd_verify(int argc, char **argv)
{
    return sv_verify_command(argc, argv, NULL);
}

int sv_verify_command(int argc, char **argv, const sv_shard_hooks *merge)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    verify_args a = {.sampler = NULL, .seed = 1, .alpha = 1e-6, .batch = 4096,
                     .threads = cores > 0 ? (int32_t)cores : 1, .rerun = 1,
                     .iso = {0, SV_CALL_TIMEOUT_DEFAULT},
                     .power_target = 1.0 - 1e-6, .merge = merge, .plan_gpus = 8};
    const char **command = NULL; /* before getopt permutes argv */
    int rc = sv_shard_command(argc, argv, &command, &a.n_command);
    a.command = command;
#ifdef SV_HAVE_MPI
    if (rc == SV_OK && !merge)
        rc = sv_mpi_launched(&a.mpi_rank, &a.mpi_size);
#else
    a.mpi_size = 1;
#endif
    if (rc == SV_OK)
        rc = verify_command(&a, argc, argv);
    free(command);
#ifdef SV_HAVE_MPI
    if (a.mpi_size > 1)
        sv_mpi_end(rc);
#endif
    return rc;
}

static int verify_command(const verify_args *a_, int argc, char **argv)
{
    verify_args a = *a_;
    int rc = parse(argc, argv, &a);
    if (rc < 0)
        return SV_OK; /* --help */
    if (rc == SV_OK && a.merge && a.shard)
        rc = sv_fail(SV_EBAD, "merge: the shards' command holds --shard");
    if (rc == SV_OK && a.mpi_size > 1 && a.shard)
        rc = sv_fail(SV_EBAD, "verify: --shard under mpirun: each of the %d ranks is a shard "
                     "already; leave out --shard", a.mpi_size);
    if (rc == SV_OK && a.mpi_size > 1 && a.dump)
        rc = sv_fail(SV_EBAD, "verify: --dump-failing under mpirun: the ranks would write one "
                     "directory at once; run the failing case alone (its reproduce line)");
    if (rc == SV_OK && a.mpi_size > 1 && a.budget > 0)
        rc = sv_fail(SV_EBAD, "verify: --budget under mpirun: the ranks share no clock; leave "
                     "out --budget (or give --draws)");
    if (rc != SV_OK || (rc = sv_python_load("verify")) != SV_OK)
        return rc;

    const sv_sampler *sampler = NULL;
    if ((rc = sv_sampler_choose("verify", a.sampler, &sampler)) != SV_OK)
        return rc;
    if ((rc = sv_sampler_takes("verify", sampler, a.input)) != SV_OK)
        return rc;

    const char *specs[MAX_CASES];
    uint64_t draws[MAX_CASES];
    /* --draws N: every case's draws; with --draws-scale the cap on the scaled ones */
    const uint64_t every = a.draws_scale > 0 ? 0 : a.draws;
    size_t n = 0;
    const char *suite_name = NULL;
    char **recorded = NULL; /* the specs of --recorded's steps */
    size_t n_recorded = 0;
    if (a.recorded.path) {
        if ((rc = sv_recorded_expand(&a.recorded, MAX_CASES, &recorded, &n_recorded)) != SV_OK)
            return rc;
        for (; n < n_recorded; n++) {
            specs[n] = recorded[n];
            draws[n] = every ? every : 1000000;
        }
        rc = verify_specs(&a, sampler, NULL, specs, draws, n);
        sv_recorded_specs_free(recorded, n_recorded);
        return rc;
    }
    if (a.n_cases) {
        for (; n < a.n_cases; n++) {
            specs[n] = a.cases[n];
            draws[n] = every ? every : 1000000;
        }
    } else if (a.suite && strcmp(a.suite, "deep") == 0) {
        static const char *why[MAX_CASES];
        suite_name = a.suite;
        if ((rc = sv_deep_suite(sampler, a.alpha, a.power_target, specs, draws, why, MAX_CASES,
                                &n)) != SV_OK)
            return rc;
        for (size_t i = 0; every && i < n; i++)
            draws[i] = every;
        a.why = why;
    } else {
        suite_name = a.suite ? a.suite : a.input != SV_INPUT_PROBS ? "logits" : "ci";
        const sv_suite *suite = sv_suite_find(suite_name);
        char hint[240];
        if (!suite)
            return sv_fail(SV_EBAD, "verify: unknown suite '%s' (smoke, ci, full, logits)%s",
                           suite_name, sv_suggest_among(suite_name, "smoke, ci, full, logits, deep", hint, sizeof hint));
        for (; n < suite->n_entries; n++) {
            specs[n] = suite->entries[n].spec;
            draws[n] = every ? every : suite->entries[n].draws;
        }
    }
    return verify_specs(&a, sampler, suite_name, specs, draws, n);
}
