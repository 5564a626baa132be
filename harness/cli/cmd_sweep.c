/* cmd_sweep.c: `specverify sweep`: acceptance, tokens per step and speedup
 * over temperature and K, analytic and measured side by side. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sv_sweep.h"
#include "sv_cli.h"
#include "sv_cases.h"
#include "sv_plot.h"
#include "sv_store.h"
#include "sweep_points.h"


static void usage(FILE *out)
{
    fprintf(out,
            "usage: specverify sweep (--case SPEC | --recorded FILE[:GROUP]) [--T LIST|FROM:TO:N]\n"
            "                        [--K LIST] [--c LIST]\n"
            "                        [--sampler LIST] [--plugin LIB] [--python FILE.py:NAME]\n"
            "                        [--draws N] [--seed S] [--level L]\n"
            "                        [--threads T] [--batch B] [--out DIR] [--resume] [--json FILE]\n"
            "                        [--B LIST --target-us T0[,T1]\n"
            "                         (--latency BENCH.h5[:SAMPLER] | --sampler-us S0[,S1])]\n"
            "\n"
            "For every (T, K): the acceptance alpha_k of each draft position, analytic\n"
            "(sum of min(p_k, q_k); sum p_k q_k for an exact-match sampler; the chain\n"
            "rule's for a block verifier, which has no closed form: docs/rules.md)\n"
            "and measured by running the sampler (Wilson interval\n"
            "at --level), the expected tokens per step E, and the speedup E / (K c + 1)\n"
            "for each draft/target cost ratio c; then the best K for each (T, c).\n"
            "With --B, the sampler's own time per step s(B) enters the speedup,\n"
            "E / (K c + 1 + s(B) / t(B)), t(B) the target's forward time per step: the\n"
            "tables then show where speculation stops paying as the batch grows.\n"
            "\n"
            "  --case SPEC     a case with a temperature parameter for --T (logits, onehot...)\n"
            "  --recorded FILE[:GROUP]  every step of a recording (docs/record.md):\n"
            "                  the draws are spread evenly over the steps; alpha_k analytic\n"
            "                  is then the mean over steps of alpha_k, each step weighted\n"
            "                  by its chance to reach draft k (as the measured one counts)\n"
            "  --T LIST        temperatures, '0.2,0.7,1' or a range FROM:TO:N (N points)\n"
            "  --K LIST        drafts per step (default: the case's)\n"
            "  --c LIST        draft/target cost ratios (default 0,0.05,0.1,0.2)\n"
            "  --sampler LIST  the sampler that measures (default ref; with --plugin or\n"
            "                  --python, ref and the samplers they bring), or several, e.g.\n"
            "                  'ref,ref_exact,ref_block': each sweeps the same points (its\n"
            "                  files in DIR/NAME), then a table of their tokens per step\n"
            "                  side by side (DIR/rules.md): rules compared (docs/rules.md)\n"
            "  --plugin LIB    load samplers from a shared library (repeatable)\n"
            SV_PYTHON_HELP
            "  --draws N       draws per point (default 200000)\n"
            "  --level L       confidence of the intervals (default 0.95)\n"
            "  --out DIR       write DIR/sweep.h5 and DIR/sweep.md, rewritten after every\n"
            "                  point, so an interrupted sweep keeps what it finished, and\n"
            "                  plots (PNG, SVG) with DIR/plot.gp to redraw them\n"
            "  --json FILE     every sampler's points as data when the sweep ends (sweep_format\n"
            "                  1, docs/formats.md#sweep-json)\n"
            "  --resume        take the points already in DIR/sweep.h5 (same case, sampler,\n"
            "                  seed, draws and level) and run only the others\n"
            "  --B LIST        batch sizes for the batched speedup (no extra draws)\n"
            "  --target-us T0[,T1]  the target model's time per step, T0 + T1 B (us)\n"
            "  --latency FILE[:SAMPLER]  the sampler's time per step from a bench file\n"
            "                  (default sampler cuda_fused): the medians at the V nearest\n"
            "                  the case's, graph timings first, log-log interpolated in B\n"
            "  --sampler-us S0[,S1]  or the sampler's time as S0 + S1 B (us)\n"
            SV_TREE_HELP
            "                  (for the tree samplers of --sampler; K is then the depth)\n"
            SV_ISOLATION_HELP
            SV_SHARD_HELP
            "                  (a shard prints and writes no tables, files or plots: merge\n"
            "                  does, as the whole sweep would; not with --resume)\n"
            "\n"
            "Exit status: 0 done, 2 bad usage or input, 3 environment (gnuplot failed on\n"
            "the plots: the tables, sweep.h5 and sweep.md are written).\n"
            "\n"
            "Examples:\n"
            "  specverify sweep --case logits:V=1000,K=5 --T 0.2,0.7,1 --K 1,2 \\\n"
            "      --draws 20000 --out sweep\n"
            "  specverify sweep --case logits:V=1000,K=5 --T 0.5:1.5:3 --sampler ref,ref_race \\\n"
            "      --draws 20000 --out sweep-two\n");
}

/* "a,b,c" or, for ranges, "from:to:n" (n evenly spaced values, ends included). */
static int parse_values(const char *flag, const char *text, double min, double max, double *out,
                        int *n)
{
    double range[3];
    const int fields = sv_range_read(text, range, 3);
    if (fields == 2 || fields < 0)
        return sv_fail(SV_EBAD, "%s: '%s' is not FROM:TO:N (three numbers)", flag, text);
    if (fields == 3) {
        const double from = range[0], to = range[1], count = range[2];
        if (!(count >= 1 && count <= MAX_AXIS && count == floor(count)))
            return sv_fail(SV_EBAD, "%s: %s: the point count must be 1 to %d", flag, text,
                           MAX_AXIS);
        if (!(from >= min && to <= max && from <= to))
            return sv_fail(SV_EBAD, "%s: range %s must lie in [%s, %s], FROM <= TO", flag, text,
                           sv_number_show(min).s, sv_number_show(max).s);
        for (int i = 0; i < (int)count; i++)
            out[i] = count == 1 ? from : from + (to - from) * i / (count - 1);
        *n = (int)count;
        return SV_OK;
    }
    char items[MAX_AXIS][SV_LIST_ITEM];
    int rc = sv_split_list(flag, text, items, MAX_AXIS, n);
    for (int i = 0; rc == SV_OK && i < *n; i++)
        rc = sv_parse_double(flag, items[i], min, max, 0, &out[i]);
    return rc;
}

/* parse_values for whole numbers (K, B). */
static int parse_whole(const char *flag, const char *text, double min, double max, int32_t *out,
                       int *n)
{
    double v[MAX_AXIS];
    int rc = parse_values(flag, text, min, max, v, n);
    for (int i = 0; rc == SV_OK && i < *n; i++) {
        if (v[i] != floor(v[i]))
            rc = sv_fail(SV_EBAD, "%s: %g is not a whole number", flag, v[i]);
        out[i] = (int32_t)v[i];
    }
    return rc;
}

/* --B with its costs: the target's model, and the sampler's from a bench
 * file or a model; every (B, K) is looked up now, before any draw. */
static int parse_batch_axis(sweep_args *a, const char *B, const char *target_us,
                            const char *sampler_us, const char *latency)
{
    if (!B || !target_us || !!sampler_us == !!latency)
        return sv_fail(SV_EBAD, "--B needs --target-us and one of --latency or --sampler-us "
                       "(see 'specverify sweep --help')");
    int rc = parse_whole("--B", B, 1.0, 1 << 24, a->set.B, &a->set.n_B);
    if (rc == SV_OK)
        rc = sv_batch_cost_model("--target-us", target_us, a->set.cost.target_us);
    if (rc == SV_OK && a->set.cost.target_us[0] + a->set.cost.target_us[1] <= 0.0)
        rc = sv_fail(SV_EBAD, "--target-us %s: the target's time must be positive", target_us);
    if (rc == SV_OK && sampler_us) {
        rc = sv_batch_cost_model("--sampler-us", sampler_us, a->set.cost.sampler_us);
        snprintf(a->set.cost.source, sizeof a->set.cost.source, "model %g + %g B us",
                 a->set.cost.sampler_us[0], a->set.cost.sampler_us[1]);
    }
    /* the case's V and K pick the bench points and check the lookups */
    sv_case *c = NULL;
    if (rc == SV_OK)
        rc = sweep_first_case(a->spec, &c);
    if (rc == SV_OK && latency) {
        char path[1024];
        const char *colon = strrchr(latency, ':');
        snprintf(path, sizeof path, "%.*s", colon ? (int)(colon - latency) : (int)strlen(latency),
                 latency);
        rc = sv_batch_cost_load(&a->set.cost, path, colon ? colon + 1 : "cuda_fused", c->V);
    }
    for (int i = 0; rc == SV_OK && i < a->set.n_B; i++)
        for (int j = 0; rc == SV_OK && j < (a->n_K ? a->n_K : 1); j++) {
            double us;
            rc = sv_batch_cost_sampler_us(&a->set.cost, a->set.B[i], a->n_K ? a->K[j] : c->K, &us);
        }
    sv_case_free(c);
    return rc;
}

enum { O_CASE = 256, O_T, O_K, O_C, O_DRAWS, O_SEED, O_LEVEL, O_THREADS, O_BATCH, O_OUT,
       O_RESUME, O_JSON, O_B, O_TARGET_US, O_SAMPLER_US, O_LATENCY, O_RECORDED, O_PLUGIN };
static const struct option options[] = {
    {"case", required_argument, 0, O_CASE},   {"T", required_argument, 0, O_T},
    {"K", required_argument, 0, O_K},         {"c", required_argument, 0, O_C},
    {"sampler", required_argument, 0, 's'},   {"draws", required_argument, 0, O_DRAWS},
    {"seed", required_argument, 0, O_SEED},   {"level", required_argument, 0, O_LEVEL},
    {"threads", required_argument, 0, O_THREADS},
    {"batch", required_argument, 0, O_BATCH}, {"out", required_argument, 0, O_OUT},
    {"resume", no_argument, 0, O_RESUME},    {"json", required_argument, 0, O_JSON},
    {"B", required_argument, 0, O_B},         {"target-us", required_argument, 0, O_TARGET_US},
    {"sampler-us", required_argument, 0, O_SAMPLER_US},
    {"latency", required_argument, 0, O_LATENCY},
    {"recorded", required_argument, 0, O_RECORDED},
    {"plugin", required_argument, 0, O_PLUGIN},
    SV_PYTHON_OPTIONS,
    SV_ISOLATION_OPTIONS,
    SV_TREE_OPTIONS,
    SV_SHARD_OPTIONS,
    {"help", no_argument, 0, 'h'},            {0, 0, 0, 0}};
static const char optstring[] = ":s:h";
/* the flags, for `run` to check an experiment's keys against before it runs */
const sv_command_flags sv_sweep_flags = {optstring, options};

static int parse_args(int argc, char **argv, sweep_args *a, int *help)
{
    const char *T = NULL, *K = NULL, *c = "0,0.05,0.1,0.2", *sampler = NULL;
    const char *B = NULL, *target_us = NULL, *sampler_us = NULL, *latency = NULL;
    const char *recorded = NULL;
    uint64_t v;
    int opt, rc = SV_OK;
    a->draws = 200000, a->seed = 1, a->level = 0.95, a->batch = 4096;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    a->threads = cores > 0 ? (int32_t)cores : 1;
    a->iso = (sv_isolation){0, SV_CALL_TIMEOUT_DEFAULT};
    opterr = 0;
    optind = 1;
    while (rc == SV_OK && (opt = getopt_long(argc, argv, optstring, options, NULL)) != -1) {
        switch (opt) {
        case O_CASE: a->spec = optarg; break;
        case O_T: T = optarg; break;
        case O_K: K = optarg; break;
        case O_C: c = optarg; break;
        case 's': sampler = optarg; break;
        case O_DRAWS: rc = sv_parse_u64("--draws", optarg, 1, 1ull << 40, &a->draws); break;
        case O_SEED: rc = sv_parse_u64("--seed", optarg, 0, UINT64_MAX, &a->seed); break;
        case O_LEVEL: rc = sv_parse_double("--level", optarg, 0.0, 1.0, 1, &a->level); break;
        case O_THREADS:
            rc = sv_parse_u64("--threads", optarg, 1, 1024, &v);
            a->threads = (int32_t)v;
            break;
        case O_BATCH:
            rc = sv_parse_u64("--batch", optarg, 1, 1u << 20, &v);
            a->batch = (int32_t)v;
            break;
        case O_OUT: rc = sv_output_flag("sweep", "--out", &a->out, optarg); break;
        case O_RESUME: a->resume = 1; break;
        case O_JSON: rc = sv_output_flag("sweep", "--json", &a->json, optarg); break;
        case O_B: B = optarg; break;
        case O_TARGET_US: target_us = optarg; break;
        case O_SAMPLER_US: sampler_us = optarg; break;
        case O_LATENCY: latency = optarg; break;
        case O_RECORDED: recorded = optarg; break;
        case O_PLUGIN: {
            char err[1024];
            if (sv_plugin_load(optarg, err, sizeof err) != 0)
                rc = sv_fail(SV_EBAD, "%s", err);
            break;
        }
        case 'h': *help = 1; return SV_OK;
        default:
            if (!sv_isolation_option(opt, optarg, &a->iso, &rc) &&
                !sv_python_option(opt, optarg, &rc) &&
                !sv_tree_option(opt, optarg, &a->tree_args) &&
                !sv_cmd_shard_option(opt, optarg, a->shard, &rc))
                rc = sv_option_error("sweep", opt, options, argv);
        }
    }
    if (rc == SV_OK && optind < argc)
        rc = sv_fail(SV_EBAD, "sweep: unexpected argument '%s'", argv[optind]);
    if (rc == SV_OK && a->resume && a->shard->text)
        rc = sv_fail(SV_EBAD, "sweep: --resume takes points from DIR/sweep.h5, which a shard "
                     "does not write: leave out --resume or --shard");
    if (rc == SV_OK && a->json && !a->shard->text) /* before any draw */
        rc = sv_atomic_check(a->json);
    if (rc == SV_OK && a->resume && !a->out)
        rc = sv_fail(SV_EBAD, "--resume needs --out DIR: the sweep to resume is DIR/sweep.h5");
    if (rc == SV_OK && a->spec && recorded)
        rc = sv_fail(SV_EBAD, "sweep: give --case or --recorded, not both");
    if (rc == SV_OK && recorded) {
        char err[2048];
        int64_t steps;
        int has_step;
        if (sv_recorded_spec(recorded, a->recorded_spec, sizeof a->recorded_spec, err,
                             sizeof err) != 0 ||
            sv_recorded_spec_steps(a->recorded_spec, &steps, &has_step, err, sizeof err) != 0)
            rc = sv_fail(SV_EBAD, "%s", err);
        else if ((uint64_t)steps > a->draws)
            rc = sv_fail(SV_EBAD, "--draws %llu: fewer than the recording's %lld steps",
                         (unsigned long long)a->draws, (long long)steps);
        a->spec = a->recorded_spec;
    }
    if (rc == SV_OK && !a->spec)
        rc = sv_fail(SV_EBAD, "sweep needs --case SPEC or --recorded FILE (see 'specverify "
                     "sweep --help')");
    if (rc == SV_OK)
        rc = sv_python_load("sweep");
    char mine[MAX_SAMPLERS * SV_LIST_ITEM]; /* ref, then what --plugin and --python brought */
    if (rc == SV_OK && !sampler)
        sampler = sv_sweep_default_samplers(mine, sizeof mine);
    char names[MAX_SAMPLERS][SV_LIST_ITEM];
    if (rc == SV_OK)
        rc = sv_split_list("--sampler", sampler, names, MAX_SAMPLERS, &a->n_samplers);
    for (int i = 0; rc == SV_OK && i < a->n_samplers; i++) {
        char hint[240];
        if (!(a->samplers[i] = sv_registry_find(names[i])))
            rc = sv_fail(SV_EBAD, "--sampler: unknown sampler '%s'%s ('specverify list' shows "
                         "them)", names[i], sv_suggest_sampler(names[i], hint, sizeof hint));
        for (int j = 0; rc == SV_OK && j < i; j++)
            if (a->samplers[j] == a->samplers[i])
                rc = sv_fail(SV_EBAD, "--sampler: '%s' is listed twice", names[i]);
    }
    int trees = 0; /* --tree and --siblings are for the tree samplers of the list */
    for (int i = 0; rc == SV_OK && i < a->n_samplers; i++) {
        const sv_tree *tree = NULL;
        if (sv_rule_is_tree(a->samplers[i]->rule))
            rc = sv_tree_resolve("sweep", &a->tree_args, a->samplers[i], SV_INPUT_PROBS,
                                 &a->shape, &tree);
        trees += tree != NULL;
    }
    if (rc == SV_OK && !trees && (a->tree_args.shape || a->tree_args.siblings))
        rc = sv_fail(SV_EBAD, "sweep: %s is for a tree rule's sampler, and --sampler names "
                     "none ('specverify list' shows each sampler's rule)",
                     a->tree_args.shape ? "--tree" : "--siblings");
    if (rc == SV_OK)
        a->sampler = a->samplers[0];
    if (rc == SV_OK && T)
        rc = parse_values("--T", T, 0.0, 100.0, a->T, &a->n_T);
    if (rc == SV_OK && K)
        rc = parse_whole("--K", K, 1.0, SV_MAX_K, a->K, &a->n_K);
    if (rc == SV_OK)
        rc = parse_values("--c", c, 0.0, 100.0, a->set.c, &a->set.n_c);
    if (rc == SV_OK && (B || target_us || sampler_us || latency))
        rc = parse_batch_axis(a, B, target_us, sampler_us, latency);
    if (rc == SV_OK) /* the last check: tests/fuzz/fuzz_ranges.c stops at --B's */
        rc = sweep_check_points(a);
    return rc;
}

/* DIR/sweep.h5 and DIR/sweep.md, each replaced whole; each is attempted
 * when the other fails, and the failures noted in written. */
static void write_outputs(const sweep_args *a, const sweep_point *pts, size_t n, size_t total,
                          sv_outputs_status *written)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/sweep.h5", a->out);
    sv_outputs_note(written, sv_sweep_write_h5(path, &a->set, pts, n));
    snprintf(path, sizeof path, "%s/sweep.md", a->out);
    sv_atomic_file f;
    int rc = sv_atomic_open(&f, path);
    if (rc == SV_OK) {
        fprintf(f.fp, "# specverify sweep: %s, sampler %s, %llu draws per point, seed %llu\n\n",
                a->spec, a->sampler->name, (unsigned long long)a->draws,
                (unsigned long long)a->seed);
        if (n < total)
            fprintf(f.fp, "Partial: %zu of %zu points so far.\n\n", n, total);
        sv_sweep_tables(f.fp, &a->set, pts, n);
        rc = sv_atomic_commit(&f);
    }
    sv_outputs_note(written, rc);
}

/* DIR, made if missing, and its two files checked before the first point. */
static int outputs_ready(const char *dir)
{
    char path[4096];
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return sv_fail(SV_EBAD, "--out: cannot create the folder %s: %s", dir, strerror(errno));
    if (snprintf(path, sizeof path, "%s/sweep.h5", dir) >= (int)sizeof path)
        return sv_fail(SV_EBAD, "--out %.60s...: the path is too long", dir);
    int rc = sv_h5_check(path);
    snprintf(path, sizeof path, "%s/sweep.md", dir);
    return rc == SV_OK ? sv_atomic_check(path) : rc;
}

/* One sampler's sweep into *pts (n_done points), its tables on stdout, its
 * files in a->out when given. */
static int sweep_one(sweep_args *a, sweep_point **pts_out, size_t *n_done)
{
    int rc = SV_OK;
    *pts_out = NULL;
    *n_done = 0;
    a->tree = NULL; /* a tree sampler's tree; its shape named beside it in the files */
    snprintf(a->label, sizeof a->label, "%s", a->sampler->name);
    if (sv_rule_is_tree(a->sampler->rule)) {
        rc = sv_tree_resolve("sweep", &a->tree_args, a->sampler, SV_INPUT_PROBS, &a->shape,
                             &a->tree);
        if (rc != SV_OK)
            return rc;
        snprintf(a->label, sizeof a->label, "%s (tree %s, %s siblings)", a->sampler->name,
                 a->tree_args.shape ? a->tree_args.shape : SV_TREE_DEFAULT,
                 a->shape.siblings == SV_SIBLINGS_DISTINCT ? "distinct" : "iid");
    }
    const int shard = a->shard->text != NULL; /* counts only: merge writes the rest */
    if (a->out && !shard && (rc = outputs_ready(a->out)) != SV_OK)
        return rc;
    const int has_T = a->n_T > 0, has_K = a->n_K > 0;
    const int n_T = has_T ? a->n_T : 1, n_K = has_K ? a->n_K : 1;
    const size_t total = (size_t)n_T * (size_t)n_K;
    sweep_point *pts = calloc(total, sizeof *pts);
    if (!pts)
        return sv_fail(SV_EENV, "out of memory for %zu points", total);
    sv_sweep_earlier earlier = {0};
    a->set.run = (sv_sweep_run){a->spec, a->label, a->seed, a->draws, a->level,
                                a->sampler->rule};
    const sv_sweep_run *run = &a->set.run;
    sv_outputs_status written = {0}; /* after a failure the sweep goes on, unwritten */
    int32_t case_K = 0; /* without --K every point has the case's own K */
    if (a->resume) {
        rc = sv_sweep_earlier_load(a->out, run, &earlier);
        sv_case *c = NULL;
        if (rc == SV_OK && !has_K)
            rc = sweep_first_case(a->spec, &c);
        case_K = c ? c->K : 0;
        sv_case_free(c);
    }
    size_t done = 0, in_files = 0; /* points the files hold */
    for (int i = 0; rc == SV_OK && i < n_T; i++)
        for (int j = 0; rc == SV_OK && j < n_K; j++) {
            char spec[SV_CASE_NAME_MAX * 2];
            sweep_point_spec(a->spec, has_T, has_T ? a->T[i] : 0, has_K, has_K ? a->K[j] : 0, spec,
                       sizeof spec);
            pts[done].T = has_T ? a->T[i] : NAN;
            if (sv_sweep_earlier_take(&earlier, run, pts[done].T, has_K ? a->K[j] : case_K,
                                      &pts[done])) {
                fprintf(stderr, "[%zu/%zu] %s: from the earlier run\n", done + 1, total, spec);
                done++;
                continue;
            }
            fprintf(stderr, "[%zu/%zu] %s%s%s\n", done + 1, total, spec,
                    a->n_samplers > 1 ? ", sampler " : "", a->n_samplers > 1 ? a->sampler->name : "");
            rc = sweep_run_point(a, spec, &pts[done]);
            if (rc != SV_OK)
                break;
            done++;
            if (a->out && !shard && written.rc == SV_OK) {
                write_outputs(a, pts, done, total, &written);
                in_files = done;
            }
        }
    sv_sweep_earlier_free(&earlier);
    /* points taken from the earlier run after the last one run here (or all
     * of them: a run killed between writing sweep.h5 and sweep.md) */
    if (a->out && !shard && done > in_files && written.rc == SV_OK)
        write_outputs(a, pts, done, total, &written);
    if (done > 0 && !shard) {
        if (a->n_samplers > 1)
            printf("\n## sampler %s\n\n", a->sampler->name);
        sv_sweep_tables(stdout, &a->set, pts, done);
    }
    if (a->out && done > 0 && !shard) { /* the plots of what finished, even after a failure */
        char note[1024], title[SV_CASE_NAME_MAX + 64], spec[SV_CASE_NAME_MAX];
        sv_sweep_spec_title(a->spec, spec, sizeof spec);
        snprintf(title, sizeof title, "%s (%s)", spec, a->sampler->name);
        int prc = sv_sweep_plot(a->out, title, pts, done, a->set.c, a->set.n_c, a->level, note,
                                sizeof note);
        if (prc == SV_OK && !note[0] && written.rc == SV_OK)
            fprintf(stderr, "wrote %s: sweep.h5, sweep.md, plot.gp and its PNG, SVG and PDF plots\n",
                    a->out);
        prc = sv_gnuplot_status(rc, prc, note);
        if (rc == SV_OK)
            rc = prc;
    }
    *pts_out = pts;
    *n_done = done;
    return sv_outputs_end(&written, rc);
}

static int sweep_command(int argc, char **argv, sv_cmd_shard *sh);

int sv_cmd_sweep(int argc, char **argv)
{
    return sv_sweep_command(argc, argv, NULL);
}

int sv_sweep_command(int argc, char **argv, const sv_shard_hooks *merge)
{
    sv_cmd_shard sh;
    int rc = sv_cmd_shard_init(&sh, argc, argv, merge);
    if (rc == SV_OK)
        rc = sweep_command(argc, argv, &sh);
    sv_cmd_shard_free(&sh);
    return rc;
}

/* Every sampler's sweep; a shard's counts to its file. */
static int sweep_samplers(const sweep_args *a);

static int sweep_command(int argc, char **argv, sv_cmd_shard *sh)
{
    sweep_args a;
    memset(&a, 0, sizeof a);
    a.shard = sh;
    int help = 0;
    int rc = parse_args(argc, argv, &a, &help);
    if (help) {
        usage(stdout);
        return SV_OK;
    }
    if (rc == SV_OK && sv_preflight()) { /* every point's case built by parse_args */
        for (int i = 0; rc == SV_OK && i < a.n_samplers; i++)
            rc = sv_preflight_device("sweep", a.samplers[i]);
        sv_batch_cost_free(&a.set.cost);
        return rc;
    }
    if (rc == SV_OK)
        rc = sv_cmd_shard_open(sh, "sweep", NULL, a.seed, 0.0);
    if (rc != SV_OK) {
        sv_batch_cost_free(&a.set.cost);
        return rc;
    }
    if (sh->text) /* a shard stops at the next batch; a sweep's files are whole per point */
        sv_interrupt_install();
    rc = sweep_samplers(&a);
    const int interrupted = sv_interrupted();
    char what[128];
    snprintf(what, sizeof what, "%zu points, %llu draws each", sh->slot,
             (unsigned long long)a.draws);
    return sv_cmd_shard_close(sh, interrupted && rc == 128 + interrupted ? SV_OK : rc,
                              interrupted, what);
}

static int sweep_samplers(const sweep_args *a_)
{
    sweep_args a = *a_;
    int rc = SV_OK;
    const size_t planned = (size_t)(a.n_T ? a.n_T : 1) * (size_t)(a.n_K ? a.n_K : 1);
    const int json = a.json && !a.shard->text; /* a shard's counts go to merge */
    if (a.n_samplers == 1) {
        sweep_point *pts;
        size_t done;
        rc = sweep_one(&a, &pts, &done);
        if (json && (rc == SV_OK || done > 0)) { /* what finished, as the tables */
            const int jrc = sweep_write_json(&a, &a.label, &pts, &done, planned);
            rc = rc == SV_OK ? jrc : rc;
        }
        free(pts);
        sv_batch_cost_free(&a.set.cost);
        return rc;
    }
    /* side by side: each sampler's sweep in DIR/NAME, then one table of them */
    const char *out = a.out;
    char dirs[MAX_SAMPLERS][4096];
    sweep_point *pts[MAX_SAMPLERS] = {0};
    size_t done[MAX_SAMPLERS] = {0};
    char labels[MAX_SAMPLERS][sizeof a.label] = {{0}};
    if (out && !a.shard->text && mkdir(out, 0777) != 0 && errno != EEXIST)
        rc = sv_fail(SV_EBAD, "--out: cannot create the folder %s: %s", out, strerror(errno));
    for (int i = 0; rc == SV_OK && i < a.n_samplers; i++) {
        a.sampler = a.samplers[i];
        if (out) {
            snprintf(dirs[i], sizeof dirs[i], "%s/%s", out, a.sampler->name);
            a.out = dirs[i];
        }
        rc = sweep_one(&a, &pts[i], &done[i]);
        memcpy(labels[i], a.label, sizeof a.label);
        if (rc != SV_OK && rc != SV_EENV) /* gnuplot's failure keeps the numbers going */
            break;
    }
    if (done[0] > 0 && !a.shard->text) {
        int rrc = sv_sweep_rules(stdout, out, a.samplers, (const sv_sweep_point *const *)pts,
                                 done, a.n_samplers, a.spec, a.draws, a.seed);
        if (rc == SV_OK)
            rc = rrc;
    }
    /* and their acceptance against T in one figure, when every sampler swept
     * more than one temperature (a case without T, or one T, has no curve) */
    int all = 1, over_T = 0;
    for (int i = 0; i < a.n_samplers; i++)
        all &= done[i] > 0;
    for (size_t i = 1; all && i < done[0]; i++)
        over_T |= !isnan(pts[0][i].T) && !sv_same_T(pts[0][i].T, pts[0][0].T);
    if (all && over_T && out && !a.shard->text && rc == SV_OK) {
        int32_t K = 0;
        for (size_t i = 0; i < done[0]; i++)
            K = pts[0][i].K > K ? pts[0][i].K : K;
        char note[512];
        int prc = sv_sweep_compare_plot(out, a.spec, a.samplers, a.n_samplers, K, a.level, note,
                                        sizeof note);
        rc = sv_gnuplot_status(rc, prc, note);
    }
    if (json && (rc == SV_OK || done[0] > 0)) {
        const int jrc = sweep_write_json(&a, (const char(*)[sizeof a.label])labels, pts, done,
                                         planned);
        rc = rc == SV_OK ? jrc : rc;
    }
    for (int i = 0; i < MAX_SAMPLERS; i++) /* those not swept are NULL */
        free(pts[i]);
    sv_batch_cost_free(&a.set.cost);
    return rc;
}
