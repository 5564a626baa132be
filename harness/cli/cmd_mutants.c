/* cmd_mutants.c: `specverify mutants`: every broken variant through the suite.
 * The detection table says, per variant and check, the smallest p-value seen,
 * the power predicted before sampling, and CAUGHT or MISSED. The GPU's
 * broken variants run where a CUDA device is usable; elsewhere the table
 * says they did not run, and why. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sv_cli.h"
#include "sv_cases.h"
#include "sv_check.h"
#include "sv_stats.h"
#include "sv_store.h"
#include "mutants_table.h"

/* Variants that need more draws than a suite gives, or a case built for them
 * (smoke has none; ci has cumshort and tinytail): how many is in the table,
 * and --full runs them on the case named here for that many. */

static void take(mutant_row *m, int check, double p, int failed)
{
    if (isnan(m->min_p[check]) || p < m->min_p[check])
        m->min_p[check] = p;
    m->failed[check] |= (signed char)failed;
}

/* The checks of the last run of every case, folded into the row. */
static void fold(mutant_row *m, const sv_report *r)
{
    for (size_t i = 0; i < r->n_cases; i++) {
        const sv_run_eval *ev = &r->cases[i].runs[r->cases[i].n_runs - 1];
        double split = r->split_alpha;
        take(m, C_CONTRACT, ev->contract_verdict == SV_FAIL ? 0.0 : 1.0,
             ev->contract_verdict == SV_FAIL);
        if (ev->chain && ev->seq_chi2.df > 0) {
            double p = fmin(ev->seq_chi2.p, ev->seq_g.p);
            take(m, C_SEQ, p, ev->seq_verdict == SV_FAIL);
        }
        for (int32_t k = 0; k <= ev->K; k++) {
            const sv_position_eval *pe = &ev->pos[k];
            if (pe->N == 0)
                continue;
            if (pe->chi2.df > 0) {
                double p = fmin(pe->chi2.p, pe->g.p);
                take(m, C_FIT, p, p < split);
            }
            take(m, C_TV, pe->tv_p, pe->tv_p < split);
        }
        if (ev->length.df > 0)
            take(m, C_LENGTH, ev->length.p, ev->length_verdict == SV_FAIL);
        if (ev->indep_seq.df > 0)
            take(m, C_INDEP, ev->indep_seq.p, ev->indep_seq_verdict == SV_FAIL);
        /* the probes of mixed batches: composition is deterministic (FAIL or
         * 1); seed's p is the chance that a sampler following its seeds
         * repeats every probed sequence, when all were repeated */
        if (ev->batch_probed > 0)
            take(m, C_BATCH, ev->batch_verdict == SV_FAIL ? 0.0 : 1.0,
                 ev->batch_verdict == SV_FAIL);
        if (ev->seed_probed > 0)
            take(m, C_SEED, ev->seed_same == ev->seed_probed ? ev->seed_chance : 1.0,
                 ev->seed_verdict == SV_FAIL);
        if (ev->indep_pos.df > 0)
            take(m, C_INDEP, ev->indep_pos.p, ev->indep_pos_verdict == SV_FAIL);
        m->caught |= r->cases[i].verdict == SV_FAIL;
        for (int j = 0; j < r->cases[i].n_runs; j++)
            m->draws += r->cases[i].runs[j].draws;
    }
}

/* Power predicted before sampling over the given cases, and the fewest draws
 * any one of them needs for the target power. A negative split is minus the
 * family-wise rate, to be split over these cases' p-values. */
static int predict(mutant_row *m, const char *const *specs, const uint64_t *draws, size_t n,
                   double split, double target)
{
    double miss = 1.0;
    int known = 0;
    m->needed = NAN;
    if (split < 0) {
        size_t n_tests = 0;
        for (size_t i = 0; i < n; i++) {
            sv_case *c = NULL;
            char err[512];
            if (sv_case_from_spec(specs[i], &c, err, sizeof err) != 0)
                return sv_fail(SV_EBAD, "%s", err);
            n_tests += sv_tests_per_case(c);
            sv_case_free(c);
        }
        split = sv_bonferroni(-split, n_tests);
    }
    for (size_t i = 0; i < n; i++) {
        sv_case *c = NULL;
        char err[512];
        if (sv_case_from_spec(specs[i], &c, err, sizeof err) != 0)
            return sv_fail(SV_EBAD, "%s", err);
        sv_power_report cp;
        int rc = sv_case_power(m->sampler->name, c, draws[i], split, target, &cp);
        if (rc == SV_OK && cp.known) {
            known = 1;
            miss *= 1.0 - cp.power;
            if (isnan(m->needed) || cp.needed < m->needed) {
                m->needed = cp.needed;
                snprintf(m->needed_case, sizeof m->needed_case, "%s", c->name);
            }
        }
        sv_case_free(c);
        if (rc != SV_OK)
            return rc;
    }
    m->power = known ? 1.0 - miss : NAN;
    return SV_OK;
}

static void usage(FILE *out)
{
    fprintf(out,
        "usage: specverify mutants [--suite NAME] [--full] [--variants LIST] [--out DIR]\n"
        "                          [--json FILE]\n"
        "                          [--seed S] [--alpha A] [--power P] [--batch B] [--threads T]\n"
        "\n"
        "Runs every deliberately broken sampler (specverify list: origin 'broken')\n"
        "through the suite and prints the detection table: per variant and check the\n"
        "smallest p-value, the power predicted before sampling, the draws the best\n"
        "case needs for power P, and CAUGHT or MISSED. Writes DIR/mutants-SUITE.md,\n"
        "DIR/mutants-SUITE.h5 and DIR/mutants-SUITE.json. The GPU's broken variant (cuda_fused_shared_uniform,\n"
        "in a build with CUDA) runs where a CUDA device is usable; elsewhere the\n"
        "table lists it as not run, with the reason. A variant that takes logits input\n"
        "(argmax_when_mixed, top_p_from_first, greedy_sampled_when_mixed) runs with\n"
        "logits-f32 input on the logits suite's V = 1000 cases, mixed in each batch.\n"
        "\n"
        "  --suite NAME     suite (default ci)\n"
        "  --full           also run the hard variants (float16_ratio, accept_zero_target,\n"
        "                   oov_float_rounding, race_float32_truncated, tree_cdf_boundary,\n"
        "                   drafts_bf16)\n"
        "                   on their named case for as many draws as power P needs\n"
        "  --variants LIST  comma-separated subset of the broken variants\n"
        "  --out DIR        where the table goes (default: the current folder)\n"
        "  --json FILE      the table as data here instead of DIR/mutants-SUITE.json\n"
        "                   (mutants_format 1, docs/formats.md#mutants-files)\n"
        "  --power P        target power for the draws column (default 1 - 1e-6)\n"
        "  --seed, --alpha, --batch, --threads  as for verify\n"
        SV_ISOLATION_HELP
        SV_SHARD_HELP
        "\n"
        "A shard runs every variant's share and writes no table: merge writes it, with\n"
        "the same variants run there (a GPU's needs a device in every shard and the\n"
        "merge, or leave it out with --variants).\n"
        "\n"
        "SIGINT or SIGTERM stops the run at the next batch: the variants that ran\n"
        "(the last on the draws it finished) are printed and written to FILE.partial,\n"
        "marked partial, leaving an earlier FILE whole; a second signal ends it at once.\n"
        "\n"
        "Exit status: 0 every variant that ran caught (hard ones only count with\n"
        "--full), 1 a variant missed, 2 bad usage, 3 a GPU variant named in --variants\n"
        "with no CUDA device, 128 + the signal when interrupted.\n"
        "\n"
        "Examples:\n"
        "  specverify mutants --suite smoke --variants residual_swapped\n"
        "  specverify mutants --suite smoke --variants residual_swapped,ratio_inverted --out mutants\n");
}

static int selected(const char *list, const char *name)
{
    if (!list)
        return 1;
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)); p += n)
        if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return 1;
    return 0;
}

/* --variants: every item a broken variant; an empty list or item is a
 * mistake (a list from an unset variable), never "all" or "none". */
static int check_variants(const char *list)
{
    if (!*list)
        return sv_fail(SV_EBAD, "mutants: --variants: the list is empty (give broken variants, "
                       "comma-separated: see specverify list; leave the flag out for all)");
    for (const char *item = list;; item++) {
        size_t n = strcspn(item, ",");
        if (n == 0)
            return sv_fail(SV_EBAD, "mutants: --variants: '%s' has an empty item", list);
        int known = 0;
        for (size_t i = 0; i < sv_registry_broken_count(); i++) {
            const char *name = sv_registry_broken_get(i)->name;
            known |= strlen(name) == n && strncmp(name, item, n) == 0;
        }
        if (!known)
            return sv_fail(SV_EBAD, "mutants: '%.*s' is not a broken variant (see specverify "
                           "list)", (int)(n > 200 ? 200 : n), item);
        item += n;
        if (!*item)
            return SV_OK;
    }
}

/* 1 if variant s runs: selected, and not a GPU one without a device. */
static int runs_here(const char *list, const sv_sampler *s, int gpu)
{
    return selected(list, s->name) && (gpu || s->memspace != SV_MEM_CUDA);
}

enum { O_SUITE = 1000, O_FULL, O_VARIANTS, O_OUT, O_SEED, O_ALPHA, O_POWER, O_BATCH,
       O_THREADS, O_JSON };
static const struct option options[] = {
    {"suite", required_argument, NULL, O_SUITE},
    {"full", no_argument, NULL, O_FULL},
    {"variants", required_argument, NULL, O_VARIANTS},
    {"out", required_argument, NULL, O_OUT},
    {"json", required_argument, NULL, O_JSON},
    {"seed", required_argument, NULL, O_SEED},
    {"alpha", required_argument, NULL, O_ALPHA},
    {"power", required_argument, NULL, O_POWER},
    {"batch", required_argument, NULL, O_BATCH},
    {"threads", required_argument, NULL, O_THREADS},
    SV_ISOLATION_OPTIONS,
    SV_SHARD_OPTIONS,
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};
static const char optstring[] = ":h";
/* the flags, for `run` to check an experiment's keys against before it runs */
const sv_command_flags sv_mutants_flags = {optstring, options};

static int mutants_command(int argc, char **argv, sv_cmd_shard *sh);

int sv_cmd_mutants(int argc, char **argv)
{
    return sv_mutants_command(argc, argv, NULL);
}

int sv_mutants_command(int argc, char **argv, const sv_shard_hooks *merge)
{
    sv_cmd_shard sh;
    int rc = sv_cmd_shard_init(&sh, argc, argv, merge);
    if (rc == SV_OK)
        rc = mutants_command(argc, argv, &sh);
    sv_cmd_shard_free(&sh);
    return rc;
}

static int mutants_command(int argc, char **argv, sv_cmd_shard *sh)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const char *suite_name = "ci", *variants = NULL, *out_dir = NULL;
    const char *json = NULL;
    uint64_t seed = 1, v;
    double alpha = 1e-6, target = 1.0 - 1e-6;
    int32_t batch = 4096, threads = cores > 0 ? (int32_t)cores : 1;
    sv_isolation iso = {0, SV_CALL_TIMEOUT_DEFAULT};
    int full = 0, opt, rc = SV_OK;
    opterr = 0;
    while (rc == SV_OK && (opt = getopt_long(argc, argv, optstring, options, NULL)) != -1) {
        switch (opt) {
        case O_SUITE: suite_name = optarg; break;
        case O_FULL: full = 1; break;
        case O_VARIANTS: variants = optarg; break;
        case O_OUT: rc = sv_output_flag("mutants", "--out", &out_dir, optarg); break;
        case O_JSON: rc = sv_output_flag("mutants", "--json", &json, optarg); break;
        case O_SEED: rc = sv_parse_u64("--seed", optarg, 0, UINT64_MAX, &seed); break;
        case O_ALPHA: rc = sv_parse_double("--alpha", optarg, 0.0, 1.0, 1, &alpha); break;
        case O_POWER: rc = sv_parse_double("--power", optarg, 0.0, 1.0, 1, &target); break;
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
                !sv_cmd_shard_option(opt, optarg, sh, &rc))
                rc = sv_option_error("mutants", opt, options, argv);
        }
    }
    if (rc == SV_OK && optind < argc)
        rc = sv_fail(SV_EBAD, "mutants: unexpected argument '%s'", argv[optind]);
    if (rc != SV_OK)
        return rc;
    const sv_suite *suite = sv_suite_find(suite_name);
    char hint[240];
    if (!suite)
        return sv_fail(SV_EBAD, "mutants: unknown suite '%s' (smoke, ci, full)%s", suite_name,
                       sv_suggest_among(suite_name, "smoke, ci, full", hint, sizeof hint));
    if (variants && (rc = check_variants(variants)) != SV_OK)
        return rc;
    const int shard = sh->text != NULL; /* a shard writes counts, not the table */
    struct stat st;
    if (!shard && out_dir && stat(out_dir, &st) != 0 && mkdir(out_dir, 0777) != 0)
        return sv_fail(SV_EBAD, "mutants: cannot create the output folder %s: %s", out_dir,
                       strerror(errno));
    /* the current folder by default: never the repository's committed results/ */
    char md_path[1200], h5_path[1200], json_path[1200];
    int len = snprintf(md_path, sizeof md_path, "%s%smutants-%s%s.md", out_dir ? out_dir : "",
                       out_dir ? "/" : "", suite_name, full ? "-full" : "");
    snprintf(h5_path, sizeof h5_path, "%s%smutants-%s%s.h5", out_dir ? out_dir : "",
             out_dir ? "/" : "", suite_name, full ? "-full" : "");
    snprintf(json_path, sizeof json_path, "%s%smutants-%s%s.json", out_dir ? out_dir : "",
             out_dir ? "/" : "", suite_name, full ? "-full" : "");
    if (json && snprintf(json_path, sizeof json_path, "%s", json) >= (int)sizeof json_path)
        return sv_fail(SV_EBAD, "mutants: --json %.60s...: the path is too long", json);
    if (len < 0 || (size_t)len + sizeof ".partial" > sizeof md_path)
        return sv_fail(SV_EBAD, "mutants: --out %.60s...: the path is too long",
                       out_dir ? out_dir : ".");
    /* an output that cannot be written fails now, not after hours of sampling */
    if (!shard && ((rc = sv_atomic_check(md_path)) != SV_OK ||
                   (rc = sv_atomic_check(json_path)) != SV_OK ||
                   (rc = sv_h5_check(h5_path)) != SV_OK))
        return rc;

    size_t n_cases = suite->n_entries;
    const char *specs[64];
    uint64_t draws[64];
    for (size_t i = 0; i < n_cases && i < 64; i++) {
        specs[i] = suite->entries[i].spec;
        draws[i] = suite->entries[i].draws;
    }
    /* the GPU's variants: without a usable device, named ones are an error of
     * the environment (exit 3, before anything runs), the rest are listed as
     * not run */
    char why[200] = "", not_run[400] = "";
    const int gpu = sv_cuda_usable(why, sizeof why);
    for (size_t i = 0; i < sv_registry_broken_count() && !gpu; i++) {
        const sv_sampler *s = sv_registry_broken_get(i);
        if (s->memspace != SV_MEM_CUDA || !selected(variants, s->name))
            continue;
        if (variants)
            return sv_fail(SV_EENV, "mutants: %s needs a CUDA device: %s", s->name, why);
        size_t used = strlen(not_run);
        snprintf(not_run + used, sizeof not_run - used, "%s%s", used ? ", " : "", s->name);
    }
    if (not_run[0]) {
        size_t used = strlen(not_run);
        snprintf(not_run + used, sizeof not_run - used, " (needs a CUDA device: %s)", why);
    }
    if (sv_preflight()) /* outputs writable, the device there where named */
        return SV_OK;
    mutant_row rows[64];
    size_t n_rows = 0, n_planned = 0;
    for (size_t i = 0; i < sv_registry_broken_count(); i++)
        n_planned += runs_here(variants, sv_registry_broken_get(i), gpu);
    int interrupted = 0;
    sv_interrupt_install();
    if ((rc = sv_cmd_shard_open(sh, "mutants", NULL, seed, alpha)) != SV_OK)
        return rc;
    uint64_t shard_draws = 0;
    for (size_t i = 0; i < sv_registry_broken_count() && n_rows < 64 && rc == SV_OK; i++) {
        const sv_sampler *s = sv_registry_broken_get(i);
        if (!runs_here(variants, s, gpu))
            continue;
        if ((interrupted = sv_interrupted()) != 0)
            break; /* between variants: the next one does not start */
        mutant_row *m = &rows[n_rows++];
        memset(m, 0, sizeof *m);
        m->sampler = s;
        for (int c = 0; c < N_CHECKS; c++)
            m->min_p[c] = NAN;
        const sv_hard_case *h = sv_hard_find(s->name);
        m->is_hard = h != NULL;

        sv_verify_config cfg = {.sampler = s, .suite = suite_name, .specs = specs,
                                .draws = draws, .n_cases = n_cases, .seed = seed,
                                .alpha = alpha, .batch = batch, .threads = threads,
                                .progress = 1, .rerun_suspects = 1,
                                .in_process = iso.in_process,
                                .call_timeout = iso.call_timeout};
        sv_tree tree; /* a tree rule's variant: the default tree, independent siblings (the
                       * sibling law tree_siblings_replaced gets wrong) */
        if (sv_rule_is_tree(s->rule)) {
            if ((rc = sv_tree_parse(SV_TREE_DEFAULT, SV_SIBLINGS_IID, &tree)) != SV_OK)
                break;
            cfg.tree = &tree;
        }
        const char *hard_spec[1], *logits_specs[16];
        uint64_t hard_draws[1], logits_draws[16];
        if (sv_mutants_takes_logits(s)) { /* its bug lives in the logits path */
            cfg.n_cases = sv_mutants_logits_cases(suite_name, logits_specs, logits_draws, 16);
            cfg.specs = logits_specs;
            cfg.draws = logits_draws;
            cfg.input = SV_INPUT_LOGITS_F32;
        }
        if (h && full) { /* its own case, as many draws as the power formula says */
            hard_spec[0] = h->spec;
            rc = predict(m, hard_spec, (const uint64_t[]){1}, 1, -alpha, target);
            if (rc != SV_OK)
                break;
            hard_draws[0] = isfinite(m->needed) ? (uint64_t)m->needed : 1000000;
            cfg.specs = hard_spec;
            cfg.draws = hard_draws;
            cfg.n_cases = 1;
        }
        sv_shard_at at; /* a shard's or merge's: this variant's cases, numbered on */
        if ((cfg.shard = sv_cmd_shard_next(sh, cfg.n_cases, s->name, &at)) && shard)
            cfg.rerun_suspects = 0; /* merge re-runs a suspect, as the whole run would */
        sv_report *r = NULL;
        fprintf(stderr, "mutants: %s\n", s->name);
        rc = sv_verify(&cfg, &r);
        shard_draws += rc == SV_OK ? r->total_draws : 0;
        if (rc != SV_OK)
            break;
        fold(m, r);
        if ((interrupted = r->interrupted) != 0) {
            /* the power of what ran: the cases that ran, the last on its draws */
            uint64_t ran[64];
            for (size_t j = 0; j < r->n_cases && j < 64; j++)
                ran[j] = j + 1 < r->n_cases ? cfg.draws[j] : r->cases[j].runs[0].draws;
            m->cut_short = 1;
            rc = r->n_cases ? predict(m, cfg.specs, ran, r->n_cases, r->split_alpha, target)
                            : SV_OK;
            sv_report_free(r);
            break;
        }
        rc = predict(m, cfg.specs, cfg.draws, cfg.n_cases, r->split_alpha, target);
        sv_report_free(r);
    }
    if (shard || rc != SV_OK) {
        char what[128];
        snprintf(what, sizeof what, "%zu variants, %llu draws", n_rows,
                 (unsigned long long)shard_draws);
        return sv_cmd_shard_close(sh, rc, interrupted, what);
    }
    /* an interrupted run writes FILE.partial, leaving an earlier FILE whole */
    char partial[256];
    if (interrupted) {
        size_t whole = n_rows - (n_rows && rows[n_rows - 1].cut_short);
        snprintf(partial, sizeof partial, "interrupted by %s: %zu of %zu variants ran whole%s",
                 sv_signal_name(interrupted), whole, n_planned,
                 whole < n_rows ? ", the next cut short" : "");
        char whole_md[sizeof md_path], whole_h5[sizeof h5_path];
        memcpy(whole_md, md_path, sizeof md_path);
        memcpy(whole_h5, h5_path, sizeof h5_path);
        sv_atomic_partial(whole_md, md_path, sizeof md_path); /* room checked above */
        sv_atomic_partial(whole_h5, h5_path, sizeof h5_path);
    }
    printf("specverify %s mutants: suite %s%s, seed %llu, family-wise false-alarm rate %g\n\n",
           SV_VERSION, suite_name, full ? " (--full)" : "", (unsigned long long)seed, alpha);
    sv_mutants_print(rows, n_rows, stdout, 0);
    printf("\ncells: smallest p over the cases (* below the split threshold); power: predicted "
           "P(caught); draws for: draws of the best case for power %g\n", target);
    const char *note = interrupted ? partial : NULL;
    if (not_run[0])
        printf("\nnot run: %s\n", not_run);
    if (interrupted)
        printf("\nPARTIAL: %s\n", partial);
    size_t missed = 0;
    for (size_t i = 0; i < n_rows; i++)
        missed += !rows[i].caught && (!rows[i].is_hard || full);
    /* the table is out; each file is still attempted when the other fails */
    sv_outputs_status written = {0};
    sv_outputs_note(&written, sv_mutants_write_markdown(md_path, rows, n_rows, suite_name, seed, alpha,
                                             target, full, note, not_run));
    sv_outputs_note(&written, sv_mutants_write_h5(h5_path, rows, n_rows, suite_name, seed, alpha, target,
                                       note, not_run));
    sv_outputs_note(&written, sv_mutants_write_json(json_path, rows, n_rows, suite_name, seed,
                                                    alpha, target, full, note, not_run));
    if (written.rc == SV_OK)
        printf("wrote %s, %s and %s\n", md_path, h5_path, json_path);
    if (interrupted) {
        fprintf(stderr, "specverify: %s; partial results in %s and %s\n", partial, md_path,
                h5_path);
        return sv_outputs_end(&written, 128 + interrupted);
    }
    return sv_outputs_end(&written, missed ? SV_EVERIFY : SV_OK);
}
