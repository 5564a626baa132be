/* sv_cli.h: the command line. The commands (cmd_*.c), their flags (which
 * `run` checks an experiment file against), getopt's refusals in words,
 * numbers and lists from the command line, the sampler a command runs. */
#ifndef SV_CLI_H
#define SV_CLI_H

#include <stdint.h>
#include <stdio.h>
#include "sv_base.h"
#include "sv_check.h"
#include "sv_registry.h"
#include "sv_run.h"
#include "sv_syntax.h"
#include <getopt.h>
#include <stddef.h>

/* ---- options.c: getopt_long's refusals -------------------------------------------- */
struct option;
/* SV_EBAD, saying what getopt_long refused (it returned refusal, ':' or '?';
 * opterr 0, optstring starting with ':') and where `specverify command
 * --help` is: a missing value, an unknown or ambiguous option, a value given
 * to an option that takes none. */
int sv_option_error(const char *command, int refusal, const struct option *options,
                    char **argv);

/* ---- suggest.c: "did you mean ...?" for a mistyped name ------------------------
 * "; did you mean 'smoke'?" for the known names nearest to name (none near:
 * ""), into out; returns out, for a message's %s. */
const char *sv_suggest_sampler(const char *name, char *out, size_t len);
/* the same among names, a list as "smoke, ci, full" (suites, commands) */
const char *sv_suggest_among(const char *word, const char *names, char *out, size_t len);

/* ---- verify_outputs.c: verify's report files ------------------------------- */
/* SV_EBAD when --json and --junit name one file, however spelt. */
int sv_verify_distinct_outputs(const char *json, const char *junit);
/* The JSON (junit 0) or JUnit report to path, named in name; an interrupted
 * run writes FILE.partial instead, leaving an earlier FILE whole. */
int sv_verify_write_report(const sv_report *r, const char *path, int junit, char *name,
                           size_t len);
/* --shard I/N: this shard's part of each case's first run, its raw counts
 * written to shard_file (NULL: shard-I-of-N.h5) under the command that
 * names the run; the verdicts are merge's. */
int sv_verify_shard(const sv_verify_config *whole, const char *shard_file, uint32_t index,
                    uint32_t count, const char *const *command, size_t n_command);

/* ---- sampler_args.c: the sampler a command runs, and its input ------------- */
/* The sampler named, or with name NULL the one sampler the loaded plugins
 * brought (ref when they brought none); SV_EBAD naming the command when the
 * name is unknown or the plugins brought several. */
/* sweep's default --sampler list: "ref", then each sampler a plugin or
 * --python brought ("ref,mine"), into out; returns out. */
const char *sv_sweep_default_samplers(char *out, size_t len);
int sv_sampler_choose(const char *command, const char *name, const sv_sampler **out);
/* "probs", "logits-f32" or "logits-bf16" -> an sv_input; SV_EBAD naming the flag. */
int sv_parse_input(const char *flag, const char *text, int32_t *input);
/* --batches mixed|uniform (uniform: 1) and --seeding mixed|all|none (an sv_seeding). */
int sv_parse_batches(const char *flag, const char *text, int *uniform);
int sv_parse_seeding(const char *flag, const char *text, int *seeding);
/* mutants_logits.c: whether mutants gives a variant logits input, and the
 * cases it then runs (the logits suite's V = 1000 ones); returns how many. */
int sv_mutants_takes_logits(const sv_sampler *s);
size_t sv_mutants_logits_cases(const char *suite, const char **specs, uint64_t *draws,
                               size_t max);
#define SV_BATCHES_HELP                                                                    \
    "  --batches KIND  mixed (default): each batch interleaves the cases of one\n"          \
    "                  vocabulary, every sequence its own rows, drafts (0..K), seed and\n"  \
    "                  sampling rule, in the layouts the sampler takes (contract v3);\n"   \
    "                  uniform: one case per batch, one row set broadcast (stride 0),\n"   \
    "                  as before contract v3, for comparison (docs/verify.md#batches)\n"   \
    "  --seeding S     mixed batches: mixed (default: half the sequences seeded\n"         \
    "                  requests), all, or none\n"
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
int sv_cmd_replay(int argc, char **argv); /* cmd_replay.c */
int sv_cmd_merge(int argc, char **argv);
int sv_cmd_calibrate(int argc, char **argv);
int sv_cmd_mutants(int argc, char **argv);
int sv_cmd_bench(int argc, char **argv);
int sv_cmd_sweep(int argc, char **argv);
int sv_cmd_compare(int argc, char **argv);
int sv_cmd_run(int argc, char **argv);
int sv_cmd_plot(int argc, char **argv);
/* Reads and checks an experiment file from an open stream as `run` does
 * before it runs anything (path names it in messages); runs nothing. SV_OK,
 * or SV_EBAD / SV_EENV with FILE:LINE. What tests/fuzz drives. */
int sv_experiment_check(FILE *file, const char *path, const char *out_root);
/* `specverify preflight COMMAND ...` (preflight.c): the command's checks of
 * its arguments, then exit before the first draw. sv_preflight() is 1 in
 * such a process: each command returns SV_OK where its run would begin.
 * sv_preflight_cases builds each spec (a recording's first and last step),
 * SV_EBAD naming the first that cannot be built. */
int sv_cmd_preflight(int argc, char **argv);
int sv_preflight(void);
int sv_preflight_cases(const char *command, const char *const *specs, size_t n);
/* 1 when a CUDA device can be used here; else 0 and why in why. */
int sv_cuda_usable(char *why, size_t len);
/* SV_EENV, naming the sampler, when it is a CUDA one and no device is there. */
struct sv_sampler;
int sv_preflight_device(const char *command, const struct sv_sampler *sampler);

/* verify --power: the run's predicted power against a variant (cmd_power.c),
 * printed, and as JSON to json (NULL: none) */
int sv_print_power(const char *variant, const char *const *specs, const uint64_t *draws,
                   size_t n, double alpha, double target, FILE *out, const char *json);
/* list --json: the samplers, suites and families as data (list_json.c);
 * only: that suite alone (list --suite NAME) */
struct sv_suite;
int sv_list_json(const char *path, const struct sv_suite *only);

/* ---- isolation_args.c: --in-process, --call-timeout and --sandbox, the
 * same in every command that runs the sampler under test (verify,
 * calibrate, mutants, sweep). */

enum { SV_O_IN_PROCESS = 900, SV_O_CALL_TIMEOUT, SV_O_SANDBOX };

/* Three getopt_long entries for a command's option table. */
#define SV_ISOLATION_OPTIONS                                           \
    {"in-process", no_argument, NULL, SV_O_IN_PROCESS},                \
    {"call-timeout", required_argument, NULL, SV_O_CALL_TIMEOUT},      \
    {"sandbox", required_argument, NULL, SV_O_SANDBOX}

#define SV_CALL_TIMEOUT_DEFAULT 600.0

#define SV_ISOLATION_HELP                                                                   \
    "  --call-timeout S  stop a sampler call that has not returned after S seconds and\n"   \
    "                  FAIL the case, naming the call (default 600; 0: no limit)\n"          \
    "  --in-process    call the sampler in this process, not in a child of its own:\n"      \
    "                  for a debugger, or a little speed; an exit, an abort or a crash\n"   \
    "                  on a thread of the sampler's then ends the run without reports,\n"   \
    "                  and a call that passes --call-timeout ends it too\n"         \
    "                  (docs/isolation.md)\n"                                          \
    "  --sandbox MODE  the layers that confine the sampler's process (its memory,\n"    \
    "                  signals, files; the report's header names them): auto, every\n" \
    "                  layer this machine allows (default); strict, exit 3 unless\n"   \
    "                  all of them; off, none (docs/isolation.md)\n"

/* ---- tree_args.c: --tree and --siblings, for the tree rules' samplers
 * (verify, calibrate, mutants, sweep) ---- */

enum { SV_O_TREE = 970, SV_O_SIBLINGS };

#define SV_TREE_OPTIONS                                                \
    {"tree", required_argument, NULL, SV_O_TREE},                      \
    {"siblings", required_argument, NULL, SV_O_SIBLINGS}

#define SV_TREE_HELP                                                                        \
    "  --tree SHAPE    a tree sampler's tree (specverify list: [rule: tree...]): children\n" \
    "                  per node at each depth, e.g. 3x2x1 (default), or 4x1x1 for four\n"  \
    "                  independent drafts (multi-draft); at most 16 nodes. Each case\n"    \
    "                  runs it cut to its K and is judged by depth (docs/rules.md)\n"      \
    "  --siblings iid|distinct  siblings drawn independently (default) or without\n"      \
    "                  replacement; the sampler is told which\n"

typedef struct sv_tree_args {
    const char *shape; /* NULL: SV_TREE_DEFAULT for a tree sampler */
    const char *siblings;
} sv_tree_args;
/* 1 when opt is --tree or --siblings (kept in a; checked by sv_tree_resolve). */
int sv_tree_option(int opt, const char *arg, sv_tree_args *a);
/* The tree a run of `sampler` drafts: *out filled and SV_OK for a tree
 * rule's sampler (*tree = out), *tree = NULL for the others; SV_EBAD when
 * the shape or siblings are bad, or given for a sampler of another rule,
 * or the input is logits (a tree's rows are probabilities). */
int sv_tree_resolve(const char *command, const sv_tree_args *a, const sv_sampler *sampler,
                    int32_t input, sv_tree *out, const sv_tree **tree);

/* ---- hard_cases.c: the variants only many draws catch, and their cases ------- */
typedef struct sv_hard_case {
    const char *variant, *spec;
} sv_hard_case;
size_t sv_hard_count(void);
const sv_hard_case *sv_hard_get(size_t i); /* NULL past the last */
const sv_hard_case *sv_hard_find(const char *variant);
/* The broken variant case `spec` was built to catch, if a sampler of `rule`
 * can have it; NULL for every other case. */
const char *sv_hard_built_for(const char *spec, uint32_t rule);
/* verify: notes in r each case built for a rare bug that ran below the draws
 * `target` power against it needs (short_cases.c). */
int sv_note_short_cases(sv_report *r, const char *const *specs, size_t n, double target);

/* ---- deep_suite.c: verify --suite deep and --plan --------------------------- */
struct sv_verify_config;
/* The deep suite for sampler s: each hard case of its rule once (specs,
 * why: the variant it is sized for) at the draws the power formula asks for
 * power `target` under the suite's split of alpha; at most max cases. */
int sv_deep_suite(const sv_sampler *s, double alpha, double target, const char **specs,
                  uint64_t *draws, const char **why, size_t max, size_t *n);
/* What cfg's run will take: per case its draws, the sampler's rate on one
 * core here (2^17 draws), and the wall time on 1 core, 1 GPU and `gpus`. */
int sv_print_plan(const struct sv_verify_config *cfg, const char *const *why, int gpus,
                  FILE *out);

/* ---- shard_args.c: --shard I/N and --shard-file FILE (verify), merge --------- */
/* "I/N" into a 0-based index and the count; SV_EBAD naming flag otherwise. */
int sv_parse_shard(const char *flag, const char *text, uint32_t *index, uint32_t *count);
/* argv[0..argc) without --shard, --shard-file and their values: what names
 * the run in its shard files (*out malloc'ed; its strings are argv's). */
int sv_shard_command(int argc, char **argv, const char ***out, size_t *n);
struct sv_shard_hooks;
struct sv_verify_config;
/* mpi_verify.c (builds with MPI): under mpirun (its environment says more
 * than one process) MPI_Init and this rank of size, else 0 of 1; */
int sv_mpi_launched(int *rank, int *size);
/* each rank its shard of cfg's run, the counts reduced to rank 0, which
 * calls report with the sums in place of the runs; */
int sv_mpi_verify(const struct sv_verify_config *cfg, int rank, int size,
                  int (*report)(const struct sv_verify_config *cfg, void *ctx), void *ctx);
/* and MPI_Finalize, or, after an error on this rank, MPI_Abort of every rank. */
void sv_mpi_end(int rc);
/* verify with a merge's hooks (cmd_merge.c): argv as the shards stored it. */
int sv_verify_command(int argc, char **argv, const struct sv_shard_hooks *merge);

/* ---- shard_run.c: --shard I/N of mutants, sweep and calibrate; merge's side -- */
/* The cases a command runs, numbered in the order it meets them (mutants:
 * each variant's; sweep: each point's), in one shard file; merge replays the
 * command with each number's summed counts in its place. */
typedef struct sv_cmd_shard {
    const char *text, *file;      /* --shard I/N and --shard-file, when given */
    uint32_t index, count;        /* shard `index` (0-based) of `count` */
    const char **command;         /* the run's name: argv but the shard flags */
    size_t n_command;
    const sv_shard_hooks *merge;  /* a merge's hooks, or NULL */
    struct sv_shard_writer *w;    /* the shard file, while it is written */
    size_t slot;                  /* the next case's number */
    char path[64];                /* the default file: shard-I-of-N.h5 */
} sv_cmd_shard;
/* sv_cmd_shard_next's hooks: the base's, case numbers moved by offset, each
 * case labelled with whose it is (a variant, a sampler) so that a merge whose
 * command meets other cases than the shards' (a GPU variant run there, not
 * here) says so instead of giving one's counts to another. */
typedef struct sv_shard_at {
    sv_shard_hooks hooks, base;
    size_t offset;
    char label[128];
} sv_shard_at;
enum { SV_O_SHARD = 960, SV_O_SHARD_FILE };
#define SV_SHARD_OPTIONS                                                \
    {"shard", required_argument, NULL, SV_O_SHARD},                     \
    {"shard-file", required_argument, NULL, SV_O_SHARD_FILE}
#define SV_SHARD_HELP                                                                     \
    "  --shard I/N     run shard I of N (each case's I-th contiguous share of its\n"       \
    "                  sequences) and write its raw counts to a shard file, not a\n"      \
    "                  verdict; 'specverify merge' of the N files prints and writes what\n" \
    "                  the whole run would (docs/shards.md)\n"                            \
    "  --shard-file FILE  where (default shard-I-of-N.h5)\n"
/* Keeps the command (argv before getopt permutes it) and a merge's hooks. */
int sv_cmd_shard_init(sv_cmd_shard *s, int argc, char **argv, const sv_shard_hooks *merge);
/* 1 if opt is --shard or --shard-file (taken, *rc its parse), else 0. */
int sv_cmd_shard_option(int opt, const char *value, sv_cmd_shard *s, int *rc);
/* After parsing: refuses --shard-file alone; with --shard, opens the file,
 * naming the run's sampler (NULL: its cases' labels do), seed and alpha. */
int sv_cmd_shard_open(sv_cmd_shard *s, const char *command, const char *sampler, uint64_t seed,
                      double alpha);
/* The hooks for the next n_cases cases, whose they are in label (held in
 * *at), or NULL for a whole run that is neither a shard nor a merge. */
const sv_shard_hooks *sv_cmd_shard_next(sv_cmd_shard *s, size_t n_cases, const char *label,
                                        sv_shard_at *at);
/* A shard: the file kept when rc is SV_OK and nothing interrupted, and a
 * line saying so (what: what ran); else removed. Returns the status. */
int sv_cmd_shard_close(sv_cmd_shard *s, int rc, int interrupted, const char *what);
void sv_cmd_shard_free(sv_cmd_shard *s);
/* mutants, sweep and calibrate with a merge's hooks (cmd_merge.c). */
int sv_mutants_command(int argc, char **argv, const sv_shard_hooks *merge);
int sv_sweep_command(int argc, char **argv, const sv_shard_hooks *merge);
struct sv_shard_set;
int sv_calibrate_command(int argc, char **argv, struct sv_shard_set *merge);

/* ---- python_args.c: --python and --python-config (verify, calibrate, list) ---- */

enum { SV_O_PYTHON = 950, SV_O_PYTHON_CONFIG, SV_O_PYTHON_EXE };

#define SV_PYTHON_OPTIONS                                              \
    {"python", required_argument, NULL, SV_O_PYTHON},                  \
    {"python-config", required_argument, NULL, SV_O_PYTHON_CONFIG},    \
    {"python-exe", required_argument, NULL, SV_O_PYTHON_EXE}

#define SV_PYTHON_HELP                                                                      \
    "  --python FILE.py:NAME  a Python sampler (or MODULE:NAME; repeatable): a function\n"  \
    "                  or class over a specverify.Batch, numpy or torch, run by its\n"      \
    "                  own interpreter in the sampler's sandboxed process (docs/python.md)\n" \
    "  --python-config JSON  keyword arguments for the Python samplers, e.g.\n"            \
    "                  '{\"eps\": 1e-6}' (a class is made with them once per thread)\n"    \
    "  --python-exe PATH  the Python that runs them: any CPython 3.9 or later with numpy,\n" \
    "                  in a venv or not (default: $SPECVERIFY_PYTHON, else the first\n"    \
    "                  python3 on PATH that imports numpy)\n"

/* 1 when opt is one of the two (*rc then says whether its value was good). */
int sv_python_option(int opt, const char *arg, int *rc);
/* After the options: loads the Python samplers named, if any (SV_OK when
 * none); SV_EBAD when one cannot be loaded, SV_EENV without Python support. */
int sv_python_load(const char *command);
/* python_server.c: the Python samplers' fork server started (after the
 * environment sv_python_load sets): 1, or 0 where each run starts its own
 * interpreter (SV_PYTHON_FORK=0, or it could not be started). */
int sv_python_server_start(void);
/* How the Python samplers' interpreter starts, for the report's header:
 * "imported once; each run a fork of that process", or "started for each run (WHY)". */
const char *sv_python_server_state(void);
/* The --python specs given (FILE.py:NAME), in order: their count. */
size_t sv_python_specs(const char *const **out);
/* The --python-config given, or NULL. */
const char *sv_python_config(void);
/* reproduce.c: what loads sampler s, as words that follow a command:
 * " --plugin LIB", or " --python S..." with the run's --python-config and
 * the interpreter where it was named (not found on PATH), shell-quoted;
 * "" for a built-in sampler. */
void sv_sampler_source(const sv_sampler *s, char *out, size_t len);
/* "specverify verify" + sv_sampler_source + " --sampler NAME [--input M]
 * [--batches uniform] [--seeding X] [--tree T --siblings S]", shell-quoted,
 * for a run's FAIL lines; then one case's whole command. */
void sv_reproduce_prefix(const sv_sampler *s, int32_t input, int uniform, int seeding,
                         const char *tree, char *out, size_t len);
/* python_exe.c: chooses the interpreter (given: --python-exe or NULL) and
 * sets SV_PYTHON_EXE for the plugin: SV_OK, SV_EBAD for a given one that is
 * no Python 3.9+ with numpy, SV_EENV when PATH has none. Then its path and
 * version ("3.11.2"), or NULL before a choice. */
int sv_python_exe_choose(const char *given, const char *command);
const char *sv_python_exe(void);
const char *sv_python_version(void);
/* The interpreter where --python-exe or SPECVERIFY_PYTHON named it (a
 * command that runs a case again must name it too), else NULL. */
const char *sv_python_exe_named(void);

typedef struct sv_isolation {
    int in_process;
    double call_timeout;
} sv_isolation;

/* Takes getopt_long's opt when it is one of the three (--sandbox sets the
 * process's sandbox mode, and under strict finds at once whether this
 * machine allows it: SV_EENV if not): returns 1 (with *rc
 * SV_OK or SV_EBAD and a message), else 0. */
int sv_isolation_option(int opt, const char *arg, sv_isolation *iso, int *rc);

/* ---- recorded_args.c: the command-line options that turn a recording into
 * cases (--recorded FILE[:GROUP], --steps, --T, --top-k, --top-p,
 * --mismatch-T), shared by verify and bench. */

typedef struct sv_recorded_opts {
    const char *path;       /* --recorded FILE[:GROUP]; NULL: none given */
    const char *steps;      /* --steps LIST|FROM:TO; NULL: every step */
    const char *T, *top_k, *top_p, *mismatch_T, *K; /* as given; NULL: defaults */
} sv_recorded_opts;

/* Any pipeline option without --recorded is an error (exit 2). */
int sv_recorded_opts_check(const sv_recorded_opts *o);

/* "recorded:file=...[,group=..][,K=..][,T=..][,top_k=..][,top_p=..][,mismatch_T=..]",
 * every step. Checks the file's layout now, so a bad file fails before any
 * draw. Returns SV_OK or SV_EBAD. */
int sv_recorded_base_spec(const sv_recorded_opts *o, char *out, size_t len, int64_t *steps);

/* One spec per selected step (at most max): *specs is an array of strings
 * for sv_recorded_specs_free. */
int sv_recorded_expand(const sv_recorded_opts *o, size_t max, char ***specs, size_t *n);
void sv_recorded_specs_free(char **specs, size_t n);

#endif
