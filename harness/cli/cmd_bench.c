/* cmd_bench.c: `specverify bench`: latency of CUDA samplers over the product
 * of the axes, a Markdown table on stdout, and optionally HDF5 and Markdown
 * files (schema in docs/formats.md). */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "sv_bench.h"
#include "fused_tuning.h"
#include "sv_cli.h"
#include "sv_cases.h"
#include "sv_output.h"
#include "sv_run.h"
#include "sv_store.h"

#define MAX_AXIS 32

static void usage(FILE *out)
{
    fprintf(out,
            "usage: specverify bench [--sampler LIST] [--plugin LIB] [--B LIST] [--K LIST] [--V LIST]\n"
            "                        [--accept-rate LIST] [--input MODE] [--T T] [--top-k N]\n"
            "                        [--top-p P] [--cold | --hot] [--graph] [--no-hold]\n"
            "                        [--time-limit S] [--noise F] [--out FILE.h5]\n"
            "       specverify bench --recorded FILE[:GROUP] [--T T] [--top-k N] [--top-p P]\n"
            "                        [--B LIST] [--K LIST] ... (V and acceptance: the file's)\n"
            "\n"
            "Times CUDA samplers on one GPU over every combination of the axes (LIST is\n"
            "comma-separated) with CUDA events, launch by launch after 10 warm-up launches,\n"
            "until the median's relative standard error is below --noise or --time-limit.\n"
            "A hold kernel keeps the GPU waiting until each launch and its events are\n"
            "queued, so the time is the GPU's work without the host's launch latency.\n"
            "Inputs: every sequence has its own float32 rows; each draft is accepted with\n"
            "probability --accept-rate, which decides which rows a step reads.\n"
            "\n"
            "  --sampler LIST      CUDA samplers (default cuda_fused,cuda_naive; see 'list')\n"
            "  --plugin LIB        load CUDA samplers from a shared library first\n"
            "                      (repeatable), timed through their verify call, its wait\n"
            "                      included; a Python sampler is not benched here: time it\n"
            "                      in its own code, or by verify's draws/s (docs/bench.md)\n"
            "  --B LIST            batch sizes (default 1,64)\n"
            "  --K LIST            drafts per step (default 5)\n"
            "  --V LIST            vocabulary sizes (default 128256)\n"
            "  --accept-rate LIST  acceptance probability of each draft, in [0, 1] (default 0.7)\n"
            "  --input MODE        probs: float32 probabilities, the contract's base (default);\n"
            "                      logits-f32, logits-bf16: logits (log of the same rows, bf16\n"
            "                      rounded to nearest), turned into p and q by the sampler,\n"
            "                      for samplers that take them (cuda_fused; the default\n"
            "                      --sampler is then cuda_fused); with --recorded, the\n"
            "                      recording's logits rounded to that type\n"
            "  --T T, --top-k N, --top-p P  logits modes: the sampling rules (default 1, 0\n"
            "                      (none), 1 (none)); T != 1 or a cut moves the acceptance\n"
            "                      rate off --accept-rate (the measured one is reported)\n"
            "  --recorded FILE[:GROUP]  realistic inputs: sequence b holds step b mod N of\n"
            "                      the recording (docs/record.md), its drafts drawn\n"
            "                      from its q; V and the acceptance rate are the file's\n"
            "  --T T, --top-k N, --top-p P  with --recorded: the recording's sampling pipeline\n"
            "                      (in a logits mode the sampler applies it to the logits)\n"
            "  --cold              rotate through copies of the inputs, so many that twice\n"
            "                      the L2 is read between two uses of one: rows come from\n"
            "                      DRAM (the table says how many copies)\n"
            "  --hot               leave L2 as the last launch left it (default)\n"
            "  --graph             time a CUDA graph of 8 steps back to back, per step\n"
            "                      (built-in samplers)\n"
            "  --no-hold           launch without the hold kernel (under a profiler such as\n"
            "                      ncu, which runs one kernel at a time; includes launch latency)\n"
            "  --time-limit S      seconds per point at most (default 2)\n"
            "  --noise F           target relative error of the median (default 0.01)\n"
            "  --out FILE.h5       write the points and the device to HDF5, FILE.md, and\n"
            "                      the plots FILE-latency_vs_B and _vs_V (PNG, SVG)\n"
            "\n"
            "Columns: median, min and IQR of the launch times (us); floor: the byte\n"
            "floor of the step (the gathered scalars, the row pair at the first rejection or\n"
            "the bonus row, tokens in and out), from the accepted counts of a checked run;\n"
            "with logits input every row once (B (2K+1) V logits), tokens in and out;\n"
            "GB/s: floor bytes / median; %%copy: that as a share of the measured device copy\n"
            "bandwidth; x floor: median over the time the floor takes at that bandwidth;\n"
            "input: the input mode.\n"
            "Plugins are timed through verify, whose wait for its status is then included.\n"
            "cuda_fused's speed knobs SV_FUSED_PRUNE, SV_FUSED_DEPTH, SV_FUSED_SPLITS and\n"
            "SV_FUSED_EARLY (specverify --help) are read from the environment and head the\n"
            "recorded command.\n"
            "\n"
            "Exit status: 0 done, 1 a sampler failed, 2 bad usage, 3 no usable GPU (or\n"
            "gnuplot failed on the plots, the results being written).\n"
            "\n"
            "Examples:\n"
            "  specverify bench --B 1,64 --K 5 --V 32000 --out bench.h5\n"
            "  specverify bench --sampler cuda_fused --input logits-bf16 --B 1,8,64 --out logits.h5\n");
}

/* Comma list of whole numbers in [min, max]. */
static int parse_ints(const char *flag, const char *text, int64_t min, int64_t max, int32_t *out,
                      int *n)
{
    char items[MAX_AXIS][SV_LIST_ITEM];
    int rc = sv_split_list(flag, text, items, MAX_AXIS, n);
    for (int i = 0; rc == SV_OK && i < *n; i++) {
        uint64_t v = 0;
        rc = sv_parse_u64(flag, items[i], (uint64_t)min, (uint64_t)max, &v);
        out[i] = (int32_t)v;
    }
    return rc;
}

/* Comma list of numbers in [min, max]. */
static int parse_doubles(const char *flag, const char *text, double min, double max, double *out,
                         int *n)
{
    char items[MAX_AXIS][SV_LIST_ITEM];
    int rc = sv_split_list(flag, text, items, MAX_AXIS, n);
    for (int i = 0; rc == SV_OK && i < *n; i++)
        rc = sv_parse_double(flag, items[i], min, max, 0, &out[i]);
    return rc;
}

typedef struct bench_args {
    const sv_sampler *samplers[MAX_AXIS];
    int n_samplers, n_B, n_K, n_V, n_accept;
    int32_t B[MAX_AXIS], K[MAX_AXIS], V[MAX_AXIS];
    double accept[MAX_AXIS];
    sv_bench_options opt;
    const char *out, *sampler_list;
    sv_recorded_opts recorded;
    char recorded_spec[1600]; /* every step; the input adds K and step */
    int64_t recorded_steps;
    int32_t input;            /* --input: an sv_input */
    double T, top_p;          /* logits modes: the sampling rules */
    int32_t top_k;
} bench_args;

static int parse_samplers(const char *text, bench_args *a)
{
    char items[MAX_AXIS][SV_LIST_ITEM];
    int rc = sv_split_list("--sampler", text, items, MAX_AXIS, &a->n_samplers);
    for (int i = 0; rc == SV_OK && i < a->n_samplers; i++) {
        const sv_sampler *s = sv_registry_find(items[i]);
#ifndef SV_HAVE_CUDA
        if (!s && strncmp(items[i], "cuda_", 5) == 0)
            return sv_fail(SV_EENV, "bench needs CUDA, and this specverify was built without "
                           "it (no nvcc at configure time)");
#endif
        if (!s)
            return sv_fail(SV_EBAD, "--sampler: no sampler named '%s' ('specverify list' "
                           "shows them)", items[i]);
        if (s->memspace != SV_MEM_CUDA)
            return sv_fail(SV_EBAD, "--sampler: %s runs on the host; bench times CUDA "
                           "samplers (verify reports a host sampler's draws per second)",
                           items[i]);
        char err[1024];
        /* bench calls it in this process: a plugin's is loaded here */
        if (!(a->samplers[i] = sv_sampler_resolve(s, err, sizeof err)))
            return sv_fail(SV_EBAD, "%s", err);
    }
    for (int i = 0; rc == SV_OK && i < a->n_samplers; i++)
        rc = sv_sampler_takes("bench", a->samplers[i], a->input);
    return rc;
}

/* --T, --top-k, --top-p of a logits mode (given as text; NULL: the default). */
static int parse_sampling(bench_args *a)
{
    a->T = 1.0, a->top_k = 0, a->top_p = 1.0;
    uint64_t k = 0;
    int rc = SV_OK;
    if (a->recorded.T)
        rc = sv_parse_double("--T", a->recorded.T, 0.0, 100.0, 0, &a->T);
    if (rc == SV_OK && a->recorded.top_k) {
        rc = sv_parse_u64("--top-k", a->recorded.top_k, 0, SV_MAX_V, &k);
        a->top_k = (int32_t)k;
    }
    if (rc == SV_OK && a->recorded.top_p)
        rc = sv_parse_double("--top-p", a->recorded.top_p, 1e-9, 1.0, 0, &a->top_p);
    /* taken here: they are not a recording's */
    a->recorded.T = a->recorded.top_k = a->recorded.top_p = NULL;
    return rc;
}


enum { O_B = 256, O_K, O_V, O_ACCEPT, O_INPUT, O_COLD, O_HOT, O_GRAPH, O_LIMIT, O_NOISE,
       O_OUT, O_PLUGIN, O_NO_HOLD, O_RECORDED, O_T, O_TOP_K, O_TOP_P };
static const struct option options[] = {
    {"sampler", required_argument, 0, 's'}, {"B", required_argument, 0, O_B},
    {"K", required_argument, 0, O_K},       {"V", required_argument, 0, O_V},
    {"accept-rate", required_argument, 0, O_ACCEPT},
    {"input", required_argument, 0, O_INPUT}, {"cold", no_argument, 0, O_COLD},
    {"hot", no_argument, 0, O_HOT},         {"graph", no_argument, 0, O_GRAPH},
    {"no-hold", no_argument, 0, O_NO_HOLD},
    {"time-limit", required_argument, 0, O_LIMIT},
    {"noise", required_argument, 0, O_NOISE}, {"out", required_argument, 0, O_OUT},
    {"plugin", required_argument, 0, O_PLUGIN}, {"help", no_argument, 0, 'h'},
    {"recorded", required_argument, 0, O_RECORDED}, {"T", required_argument, 0, O_T},
    {"top-k", required_argument, 0, O_TOP_K}, {"top-p", required_argument, 0, O_TOP_P},
    {0, 0, 0, 0}};
static const char optstring[] = ":s:h";
/* the flags, for `run` to check an experiment's keys against before it runs */
const sv_command_flags sv_bench_flags = {optstring, options};

static int parse_args(int argc, char **argv, bench_args *a, int *help)
{
    const char *samplers = NULL, *B = "1,64", *K = "5", *V = NULL, *accept = NULL;
    a->opt = (sv_bench_options){.cold = 0, .graph = 0, .time_limit = 2.0, .noise_target = 0.01};
    int cold = -1, c, rc = SV_OK;
    char err[1024];
    opterr = 0;
    optind = 1;
    while (rc == SV_OK && (c = getopt_long(argc, argv, optstring, options, NULL)) != -1) {
        switch (c) {
        case 's': samplers = optarg; break;
        case O_B: B = optarg; break;
        case O_K: K = optarg; break;
        case O_V: V = optarg; break;
        case O_ACCEPT: accept = optarg; break;
        case O_INPUT:
            rc = sv_parse_input("--input", optarg, &a->input);
            break;
        case O_COLD:
        case O_HOT:
            if (cold >= 0 && cold != (c == O_COLD))
                rc = sv_fail(SV_EBAD, "--cold and --hot: give one of them");
            cold = c == O_COLD;
            break;
        case O_GRAPH: a->opt.graph = 1; break;
        case O_NO_HOLD: a->opt.no_hold = 1; break;
        case O_LIMIT:
            rc = sv_parse_double("--time-limit", optarg, 0.0, 3600.0, 1, &a->opt.time_limit);
            break;
        case O_NOISE:
            rc = sv_parse_double("--noise", optarg, 0.0, 1.0, 1, &a->opt.noise_target);
            break;
        case O_OUT: rc = sv_output_flag("bench", "--out", &a->out, optarg); break;
        case O_PLUGIN:
            if (sv_plugin_load(optarg, err, sizeof err) != 0)
                rc = sv_fail(SV_EBAD, "%s", err);
            break;
        case O_RECORDED: a->recorded.path = optarg; break;
        case O_T: a->recorded.T = optarg; break;
        case O_TOP_K: a->recorded.top_k = optarg; break;
        case O_TOP_P: a->recorded.top_p = optarg; break;
        case 'h': *help = 1; return SV_OK;
        default: rc = sv_option_error("bench", c, options, argv);
        }
    }
    if (rc == SV_OK && optind < argc)
        rc = sv_fail(SV_EBAD, "bench: unexpected argument '%s'", argv[optind]);
    a->opt.cold = cold == 1;
    /* looked up once CUDA is known to be built; logits: the sampler that takes them */
    a->sampler_list = samplers ? samplers
                    : a->input != SV_INPUT_PROBS ? "cuda_fused" : "cuda_fused,cuda_naive";
    /* --T, --top-k, --top-p: a recording's pipeline (its spec carries them, and
     * in a logits mode the sampler is given the same), else a logits mode's */
    if (rc == SV_OK && a->input != SV_INPUT_PROBS && !a->recorded.path) {
        rc = parse_sampling(a);
    } else if (rc == SV_OK && !a->recorded.path) {
        const char *flags[] = {"--T", "--top-k", "--top-p"};
        const char *given[] = {a->recorded.T, a->recorded.top_k, a->recorded.top_p};
        for (int i = 0; rc == SV_OK && i < 3; i++)
            if (given[i])
                rc = sv_fail(SV_EBAD, "%s applies to logits input (--input logits-f32 or "
                             "logits-bf16) or to a recording (--recorded FILE[:GROUP])",
                             flags[i]);
    }
    if (rc == SV_OK)
        rc = parse_ints("--B", B, 1, 1 << 20, a->B, &a->n_B);
    if (rc == SV_OK)
        rc = parse_ints("--K", K, 1, SV_MAX_K, a->K, &a->n_K);
    if (rc == SV_OK)
        rc = sv_recorded_opts_check(&a->recorded);
    if (rc == SV_OK && a->recorded.path) { /* V and acceptance are the recording's */
        if (V || accept)
            return sv_fail(SV_EBAD, "bench --recorded: %s comes from the recording; leave it out",
                           V ? "--V" : "--accept-rate");
        a->n_V = a->n_accept = 1, a->accept[0] = NAN;
        return sv_recorded_base_spec(&a->recorded, a->recorded_spec, sizeof a->recorded_spec,
                                     &a->recorded_steps);
    }
    if (rc == SV_OK)
        rc = parse_ints("--V", V ? V : "128256", 2, SV_MAX_V, a->V, &a->n_V);
    if (rc == SV_OK)
        rc = parse_doubles("--accept-rate", accept ? accept : "0.7", 0.0, 1.0, a->accept,
                           &a->n_accept);
    return rc;
}

/* ---- output ------------------------------------------------------------------ */

/* --out FILE.h5 and FILE.md beside it, checked before any device is looked for. */
static int outputs_ready(const char *h5_path)
{
    char path[SV_OUTPUT_PATH + 8];
    sv_output_beside(h5_path, ".md", path, sizeof path);
    int rc = sv_h5_check(h5_path);
    return rc == SV_OK ? sv_atomic_check(path) : rc;
}

#ifdef SV_HAVE_CUDA

static void device_line(FILE *f, const sv_bench_device *d)
{
    fprintf(f, "device: %s, %d SMs, %d MHz, memory %.1f GiB at %d MHz x %d bits (peak %.0f GB/s, "
               "measured copy %.0f GB/s), L2 %.0f MiB, driver %d, runtime %d\n",
            d->name, d->sm_count, d->clock_mhz, d->memory_bytes / 1073741824.0,
            d->memory_clock_mhz, d->bus_width_bits, d->peak_gbps, d->copy_gbps,
            d->l2_bytes / 1048576.0, d->driver_version, d->runtime_version);
}

static void table(FILE *f, const sv_bench_device *d, const sv_bench_point *pts, size_t n)
{
    fprintf(f, "| sampler | B | K | V | accept (target / measured) | median us | min us | IQR us "
               "| reps | floor MB | GB/s | %%copy | x floor | mode | input |\n");
    fprintf(f, "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
    for (size_t i = 0; i < n; i++) {
        const sv_bench_point *p = &pts[i];
        double gbps = p->floor_bytes / (p->median_us * 1e-6) / 1e9;
        double floor_us = p->floor_bytes / (d->copy_gbps * 1e9) * 1e6;
        char target[32];
        if (isnan(p->accept_target)) /* a recording's inputs: no target rate */
            snprintf(target, sizeof target, "recorded");
        else
            snprintf(target, sizeof target, "%.2f", p->accept_target);
        fprintf(f, "| %s | %d | %d | %d | %s / %.3f | %.2f | %.2f | %.2f | %lld | %.2f | %.0f "
                   "| %.0f | %.2f | %s%s%s | %s |\n",
                p->sampler, p->B, p->K, p->V, target, p->accept_measured,
                p->median_us, p->min_us, p->q75_us - p->q25_us, (long long)p->reps,
                p->floor_bytes / 1e6, gbps, 100.0 * gbps / d->copy_gbps, p->median_us / floor_us,
                p->cold ? "cold" : "hot", p->graph ? ", graph" : "",
                p->through_verify ? ", via verify" : "", sv_input_name(p->input));
    }
    for (size_t i = 0; i < n; i++)
        if (pts[i].cold && pts[i].cold_copies > 1)
            fprintf(f, "\ncold: %s at B=%d, K=%d, V=%d rotated through %lld copies of its "
                       "inputs%s.\n", pts[i].sampler, pts[i].B, pts[i].K, pts[i].V,
                    (long long)pts[i].cold_copies,
                    pts[i].cold_copies >= SV_BENCH_MAX_COPIES
                        ? " (the cap: its steps read less than twice the L2 between two uses "
                          "of one, so some rows may still be cached)"
                        : "");
}

static int write_md(const char *h5_path, const sv_bench_device *d, const sv_bench_point *pts,
                    size_t n, const char *command)
{
    char path[SV_OUTPUT_PATH + 8];
    sv_output_beside(h5_path, ".md", path, sizeof path);
    sv_atomic_file f;
    int rc = sv_atomic_open(&f, path);
    if (rc != SV_OK)
        return rc;
    fprintf(f.fp, "# specverify bench\n\n`%s`\n\n", command);
    device_line(f.fp, d);
    fprintf(f.fp, "\n");
    table(f.fp, d, pts, n);
    return sv_atomic_commit(&f);
}

#endif

int sv_cmd_bench(int argc, char **argv)
{
    bench_args a;
    memset(&a, 0, sizeof a);
    int help = 0;
    int rc = parse_args(argc, argv, &a, &help);
    if (help) {
        usage(stdout);
        return SV_OK;
    }
    if (rc != SV_OK)
        return rc;
    /* sizes and outputs are checked before any device is looked for */
    int32_t mB = 0, mK = 0, mV = 0;
    for (int i = 0; i < MAX_AXIS; i++) {
        mB = i < a.n_B && a.B[i] > mB ? a.B[i] : mB;
        mK = i < a.n_K && a.K[i] > mK ? a.K[i] : mK;
        mV = i < a.n_V && a.V[i] > mV ? a.V[i] : mV;
    }
    if ((rc = sv_rows_bytes("bench: the largest input", (uint64_t)mB, mK, mV, NULL)) != SV_OK ||
        (a.out && (rc = outputs_ready(a.out)) != SV_OK))
        return rc;
    /* a host sampler is bad usage on any build: say so before "no CUDA" */
    rc = parse_samplers(a.sampler_list, &a);
    if (rc != SV_OK)
        return rc;
#ifndef SV_HAVE_CUDA
    return sv_fail(SV_EENV, "bench needs CUDA, and this specverify was built without it "
                   "(no nvcc at configure time)");
#else
    /* cuda_fused's knobs set in the environment lead the command, so that
     * the line recorded beside the numbers reproduces them */
    sv_fused_tuning tuning;
    char knobs[160];
    if (sv_fused_tuning_read(&tuning, knobs, sizeof knobs) != 0)
        return sv_fail(SV_EBAD, "%s", knobs);
    const int tuned = sv_fused_tuning_describe(&tuning, knobs, sizeof knobs) > 0;
    char command[1024];
    snprintf(command, sizeof command, "%s%sspecverify", knobs, tuned ? " " : "");
    for (int i = 0; i < argc; i++)
        snprintf(command + strlen(command), sizeof command - strlen(command), " %s", argv[i]);
    sv_bench_device dev;
    rc = sv_bench_device_query(&dev);
    if (rc != SV_OK || sv_preflight()) /* a device found: the run could start */
        return rc;
    device_line(stdout, &dev);
    if (tuned)
        printf("cuda_fused tuned by the environment: %s\n", knobs);
    const size_t total = (size_t)a.n_samplers * a.n_B * a.n_K * a.n_V * a.n_accept;
    sv_bench_point *pts = calloc(total, sizeof *pts);
    if (!pts)
        return sv_fail(SV_EENV, "out of memory for %zu points", total);
    size_t done = 0;
    for (int iv = 0; rc == SV_OK && iv < a.n_V; iv++)
        for (int ik = 0; rc == SV_OK && ik < a.n_K; ik++)
            for (int ib = 0; rc == SV_OK && ib < a.n_B; ib++)
                for (int ia = 0; rc == SV_OK && ia < a.n_accept; ia++) {
                    sv_bench_input in;
                    if (a.recorded.path)
                        rc = sv_bench_input_recorded(&in, a.B[ib], a.K[ik], a.recorded_spec,
                                                     a.recorded_steps, a.input);
                    else
                        rc = sv_bench_input_make(&in, a.B[ib], a.K[ik], a.V[iv], a.accept[ia]);
                    if (rc == SV_OK && a.input != SV_INPUT_PROBS && !a.recorded.path)
                        rc = sv_bench_input_logits(&in, a.input, a.T, a.top_k, a.top_p);
                    for (int is = 0; rc == SV_OK && is < a.n_samplers; is++) {
                        fprintf(stderr, "[%zu/%zu] %s B=%d K=%d V=%d accept=%g input=%s\n",
                                done + 1, total, a.samplers[is]->name, a.B[ib], a.K[ik], in.V,
                                in.accept, sv_input_name(a.input));
                        rc = sv_bench_run_point(&a.opt, a.samplers[is], &in, &pts[done]);
                        if (rc == SV_OK)
                            done++;
                    }
                    sv_bench_input_free(&in);
                }
    /* what finished is reported and kept even when a later point failed */
    table(stdout, &dev, pts, done);
    sv_outputs_status written = {0}; /* each file is attempted when another fails */
    if (a.out && done > 0) {
        sv_outputs_note(&written, sv_bench_write_h5(a.out, &dev, pts, done, command));
        sv_outputs_note(&written, write_md(a.out, &dev, pts, done, command));
        if (written.rc == SV_OK) { /* then the plots, whose failure is told apart */
            fprintf(stderr, "wrote %s%s\n", a.out, rc == SV_OK ? "" : " (the points before the failure)");
            sv_outputs_note(&written, sv_bench_plot_beside(rc, a.out, &dev, pts, done, NULL));
        }
    }
    free(pts);
    return sv_outputs_end(&written, rc);
#endif
}
