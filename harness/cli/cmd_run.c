/* cmd_run.c: `specverify run FILE.ini`: an experiment file, one or more runs
 * of specverify commands with their axes, parsed by inih (Debian's libinih).
 *
 *     [experiment]
 *     description = what the experiment asks
 *
 *     [run seedlab-T]
 *     command = sweep
 *     case = logits:V=1000,K=5
 *     T = 0.2,0.7,1,1.5
 *     out = acceptance-vs-temperature/seedlab-T
 *
 * In a run, every key but `command` and `args` becomes a flag, in file
 * order: `key = value` is --key value, `key =` alone is --key, a key given
 * twice is passed twice. Each key is checked against the command's own
 * flags (its getopt_long table) as the file is read, and each run's values
 * by its own command (`specverify preflight`, run_exec.c) before the first
 * run starts, so a bad one stops the experiment before anything runs.
 * `args` holds positional arguments
 * (compare's files), split at spaces. Outputs (out, json, junit, plot) are
 * put under --out-root and must stay there: no absolute path, no '..', no
 * link on the way that leads out of it (their real paths are checked).
 * Inputs (recorded, plugin, latency, a recorded: case's file=, args) are
 * relative to the experiment file's folder, as a file's own references are.
 * Each run is this program run again (run_exec.c). */
#include <errno.h>
#include <stdarg.h>
#include <getopt.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "experiment.h"
#include "sv_cli.h"
#include "sv_input.h"
#include "sv_store.h"

/* inih's reader (fgets-like), counting lines so that the handler knows
 * where it is; inih splits a line longer than its buffer, so such a line is
 * an error here rather than a silent misreading. */
static char *read_line(char *buf, int size, void *stream)
{
    experiment *x = stream;
    char *got = fgets(buf, size, x->file);
    if (!got)
        return NULL;
    x->lines_read++;
    size_t len = strlen(buf);
    if (len == (size_t)size - 1 && buf[len - 1] != '\n' && !feof(x->file) && !x->long_line)
        x->long_line = x->lines_read;
    return got;
}

/* Records the handler's first error, at the current line; returns 0 for inih. */
static int bad(experiment *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(experiment *x, const char *fmt, ...)
{
    if (x->error[0])
        return 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->error, sizeof x->error, fmt, ap);
    va_end(ap);
    x->error_line = x->lines_read;
    return 0;
}

static const struct {
    const char *name;
    const sv_command_flags *flags;
} run_commands[] = {{"verify", &sv_verify_flags},   {"sweep", &sv_sweep_flags},
                    {"bench", &sv_bench_flags},     {"compare", &sv_compare_flags},
                    {"mutants", &sv_mutants_flags}, {"calibrate", &sv_calibrate_flags},
                    {"list", &sv_list_flags}};

static const sv_command_flags *known_command(const char *name)
{
    for (size_t i = 0; i < sizeof run_commands / sizeof run_commands[0]; i++)
        if (strcmp(name, run_commands[i].name) == 0)
            return run_commands[i].flags;
    return NULL;
}

static int add_word(experiment *x, run_spec *r, const char *word)
{
    if (r->argc >= MAX_RUN_ARGS)
        return bad(x, "run '%s' has more than %d arguments", r->name, MAX_RUN_ARGS);
    r->argv[r->argc] = strdup(word);
    if (!r->argv[r->argc])
        return bad(x, "out of memory");
    r->argc++;
    return 1;
}

static int in_list(const char *name, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(name, list[i]) == 0)
            return 1;
    return 0;
}

/* Flags that name an output, put under --out-root. */
int experiment_is_output(const char *name)
{
    static const char *const outputs[] = {"out", "json", "junit", "plot"};
    return in_list(name, outputs, sizeof outputs / sizeof outputs[0]);
}

/* Flags that name a file read, relative to the experiment file. */
static int is_input_flag(const char *name)
{
    static const char *const inputs[] = {"recorded", "plugin", "latency"};
    return in_list(name, inputs, sizeof inputs / sizeof inputs[0]);
}

/* The command's own name for key, as getopt_long reads --key[=value] with
 * the command's table (an abbreviation is known by its whole name); NULL,
 * with the command's refusal at this line, where the command would refuse it. */
static const char *flag_name(experiment *x, const run_spec *r, const char *key,
                             const char *value)
{
    char command[sizeof r->command], word[MAX_TEXT];
    snprintf(command, sizeof command, "%s", r->command);
    snprintf(word, sizeof word, value[0] ? "--%s=%s" : "--%s", key, value);
    char *argv[] = {command, word, NULL};
    int index = -1;
    optind = 0; /* glibc: start afresh */
    opterr = 0;
    int c = getopt_long(2, argv, r->flags->optstring, r->flags->options, &index);
    if (c == '?' || c == ':' || index < 0) { /* the key is not empty: "--" is never the word */
        sv_option_error(r->command, c, r->flags->options, argv);
        bad(x, "[run %s]: %s", r->name, sv_error_message());
        return NULL;
    }
    return r->flags->options[index].name;
}

/* An output's path stays under --out-root: relative, with no '..'. */
static int output_inside(experiment *x, const run_spec *r, const char *name, const char *value)
{
    const char *why = value[0] == '/' ? "an absolute path" : NULL;
    for (const char *p = value; !why && *p;) { /* each component */
        size_t n = strcspn(p, "/");
        if (n == 2 && strncmp(p, "..", 2) == 0)
            why = "a '..'";
        p += n + (p[n] == '/');
    }
    if (!why)
        return 1;
    return bad(x, "[run %s]: %s = %s: %s; outputs stay inside --out-root (%s), so give a path "
               "under it", r->name, name, value, why, x->out_root ? x->out_root : "none given");
}

/* base/value, or value itself when it is absolute or there is no base. */
static int join(experiment *x, const run_spec *r, const char *base, const char *value,
                char *out, size_t len)
{
    int n = value[0] == '/' || !base || !base[0]
                ? snprintf(out, len, "%s", value)
                : snprintf(out, len, "%s/%s", base, value);
    if (n >= 0 && (size_t)n < len)
        return 1;
    return bad(x, "[run %s]: %s/%s: the path is longer than %zu characters", r->name,
               base ? base : "", value, len - 1);
}

/* A recorded: case spec with its file= relative to the experiment file. */
static int case_input(experiment *x, const run_spec *r, const char *value, char *out,
                      size_t len)
{
    const char *file = NULL;
    for (const char *p = strncmp(value, "recorded:", 9) == 0 ? value + 9 : NULL; p && !file;) {
        if (strncmp(p, "file=", 5) == 0)
            file = p + 5;
        if ((p = strchr(p, ',')) != NULL)
            p++;
    }
    if (!file || file[0] == '/' || !x->dir[0])
        return join(x, r, NULL, value, out, len);
    int n = snprintf(out, len, "%.*s%s/%s", (int)(file - value), value, x->dir, file);
    if (n >= 0 && (size_t)n < len)
        return 1;
    return bad(x, "[run %s]: case = %s: longer than %zu characters with the file's folder",
               r->name, value, len - 1);
}

/* inih calls this for every key (section = "" before any header); builds
 * with INI_CALL_HANDLER_ON_NEW_SECTION also call it with key NULL at each
 * header, which opens nothing here. Returning 0 makes ini_parse report
 * this line. */
static int on_key(void *user, const char *section, const char *key, const char *value)
{
    experiment *x = user;
    if (!key)
        return 1;
    if (x->error[0])
        return 0; /* the first error is the one reported */
    if (strcmp(section, "experiment") == 0) {
        if (strcmp(key, "description") == 0) {
            sv_escape(x->description, sizeof x->description, value, strlen(value)); /* printed */
            return 1;
        }
        return bad(x, "[experiment] has no key '%s' (only description)", key);
    }
    if (strncmp(section, "run ", 4) != 0 || section[4] == '\0')
        return bad(x, "section [%s]: sections are [experiment] and [run NAME]", section);
    const char *name = section + 4;
    run_spec *r = x->n_runs ? &x->runs[x->n_runs - 1] : NULL;
    if (!r || strcmp(r->name, name) != 0) {
        for (int i = 0; i < x->n_runs; i++)
            if (strcmp(x->runs[i].name, name) == 0)
                return bad(x, "[run %s] appears twice", name);
        if (x->n_runs == MAX_RUNS)
            return bad(x, "more than %d runs", MAX_RUNS);
        r = &x->runs[x->n_runs++];
        snprintf(r->name, sizeof r->name, "%s", name);
    }
    if (strcmp(key, "command") == 0) {
        if (r->command[0] || r->argc)
            return bad(x, "[run %s]: command must come first, and once", name);
        if (!(r->flags = known_command(value)))
            return bad(x, "[run %s]: unknown command '%s' (verify, sweep, bench, compare, "
                          "mutants, calibrate, list)", name, value);
        snprintf(r->command, sizeof r->command, "%s", value);
        return 1;
    }
    if (!r->command[0])
        return bad(x, "[run %s]: '%s' before 'command ='", name, key);
    char path[MAX_TEXT];
    if (strcmp(key, "args") == 0) { /* positional, split at spaces: files read */
        char copy[MAX_TEXT], *save = NULL;
        snprintf(copy, sizeof copy, "%s", value);
        for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
            if (w[0] == '-') /* a flag here would pass the checks below by */
                return bad(x, "[run %s]: args = %s: '%s' is a flag; give flags as keys "
                              "(key = value)", name, value, w);
            if (!join(x, r, x->dir, w, path, sizeof path) || !add_word(x, r, path))
                return 0;
        }
        return 1;
    }
    if (key[0] == '\0')
        return bad(x, "[run %s]: a value with no key ('= %s')", name, value);
    const char *flag = flag_name(x, r, key, value);
    if (!flag)
        return 0;
    char word[96];
    snprintf(word, sizeof word, "--%s", flag);
    if (!add_word(x, r, word))
        return 0;
    if (value[0] == '\0')
        return 1;
    int ok;
    if (experiment_is_output(flag))
        ok = output_inside(x, r, flag, value) && join(x, r, x->out_root, value, path, sizeof path);
    else if (is_input_flag(flag))
        ok = join(x, r, x->dir, value, path, sizeof path);
    else if (strcmp(flag, "case") == 0)
        ok = case_input(x, r, value, path, sizeof path);
    else
        ok = join(x, r, NULL, value, path, sizeof path);
    return ok && add_word(x, r, path);
}

static void experiment_free(experiment *x)
{
    for (int i = 0; i < x->n_runs; i++)
        for (int j = 0; j < x->runs[i].argc; j++)
            free(x->runs[i].argv[j]);
}

/* Reads and checks the experiment in file (path names it in messages):
 * SV_OK with x filled, or SV_EBAD / SV_EENV with FILE:LINE. Either way
 * experiment_free(x) releases what was read. */
static int experiment_read(experiment *x, FILE *file, const char *path, const char *out_root)
{
    memset(x, 0, sizeof *x);
    x->path = path;
    x->out_root = out_root;
    const char *slash = strrchr(path, '/'); /* "/x.ini": the root folder */
    if (slash)
        snprintf(x->dir, sizeof x->dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
    x->file = file;
    int line = ini_parse_stream(read_line, x, on_key, x);
    x->file = NULL;
    int rc = SV_OK;
    if (x->long_line && (line <= 0 || x->long_line <= line)) {
        rc = sv_fail(SV_EBAD, "%s:%d: line longer than %d characters", x->path, x->long_line,
                     INI_MAX_LINE - 2);
    } else if (line > 0) {
        if (x->error[0] && x->error_line <= line)
            rc = sv_fail(SV_EBAD, "%s:%d: %s", x->path, x->error_line, x->error);
        else
            rc = sv_fail(SV_EBAD, "%s:%d: syntax error (want [section], key = value or a "
                         "comment)", x->path, line);
    } else if (line < 0) {
        rc = sv_fail(SV_EENV, "run: reading %s: out of memory", x->path);
    } else if (x->n_runs == 0) {
        rc = sv_fail(SV_EBAD, "%s: no [run NAME] section: nothing to run", x->path);
    }
    for (int i = 0; rc == SV_OK && i < x->n_runs; i++)
        if (!x->runs[i].command[0])
            rc = sv_fail(SV_EBAD, "%s: [run %s] has no 'command ='", x->path, x->runs[i].name);
    return rc;
}

int sv_experiment_check(FILE *file, const char *path, const char *out_root)
{
    static experiment x; /* large: not on the stack */
    int rc = experiment_read(&x, file, path, out_root);
    experiment_free(&x);
    return rc;
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: specverify run FILE.ini [--only NAME] [--out-root DIR] [--dry-run|--check]\n"
            "\n"
            "Runs an experiment file: each [run NAME] section is one specverify command\n"
            "(command = verify|sweep|bench|compare|mutants|calibrate|list); its other keys\n"
            "are the command's flags (key = value gives --key value, key = alone gives\n"
            "--key, args = holds positional arguments). Every key is checked against the\n"
            "command's flags, then every run by its command (specverify preflight: values,\n"
            "cases, inputs, outputs, device) before the first run starts. Files read\n"
            "(recorded, plugin, latency, args) are relative to FILE's folder. See\n"
            "docs/run.md.\n"
            "\n"
            "  --only NAME     run only [run NAME]\n"
            "  --out-root DIR  put the outputs (out, json, junit, plot) under DIR (default\n"
            "                  out); they must stay inside it: no absolute path, no '..'\n"
            "  --dry-run       print the commands, run nothing (the keys checked)\n"
            "  --check         make the output folders and check every run as above; run\n"
            "                  nothing\n"
            "\n"
            "Exit status: 0 every run succeeded, 1 a verification failed (the other runs\n"
            "still run), 2 bad usage, a bad file or a run's bad arguments (nothing runs),\n"
            "3 environment; a run that exits 2 or 3 stops the experiment.\n"
            "\n"
            "Examples:\n"
            "  specverify run experiments/acceptance-vs-temperature.ini --dry-run\n"
            "  specverify run experiments/acceptance-vs-temperature.ini --only logits-seedlab-T\n"
            "  specverify run experiments/best-k.ini --check\n");
}

int sv_cmd_run(int argc, char **argv)
{
    enum { O_ONLY = 256, O_ROOT, O_DRY, O_CHECK };
    static const struct option options[] = {{"only", required_argument, 0, O_ONLY},
                                            {"out-root", required_argument, 0, O_ROOT},
                                            {"dry-run", no_argument, 0, O_DRY},
                                            {"check", no_argument, 0, O_CHECK},
                                            {"help", no_argument, 0, 'h'},
                                            {0, 0, 0, 0}};
    const char *only = NULL, *root = NULL;
    int dry = 0, check = 0, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
        switch (c) {
        case O_ONLY: only = optarg; break;
        case O_ROOT:
            if (sv_output_flag("run", "--out-root", &root, optarg) != SV_OK)
                return SV_EBAD;
            break;
        case O_DRY: dry = 1; break;
        case O_CHECK: check = 1; break;
        case 'h': usage(stdout); return SV_OK;
        default: return sv_option_error("run", c, options, argv);
        }
    }
    if (dry && check)
        return sv_fail(SV_EBAD, "run: give --dry-run (print the commands) or --check (check "
                       "each run), not both");
    if (optind != argc - 1) {
        usage(stderr);
        return sv_fail(SV_EBAD, "run: give exactly one experiment file");
    }
    if (!root)
        root = "out";
    char err[4200];
    int why = 0;
    FILE *file = sv_input_fopen(argv[optind], &why, err, sizeof err);
    if (!file && why == SV_INPUT_NOT_FILE)
        return sv_fail(SV_EBAD, "run: %s", err);
    if (!file)
        return sv_fail(SV_EBAD, "run: cannot open %s: %s", argv[optind], strerror(errno));
    static experiment x; /* large: not on the stack */
    int rc = experiment_read(&x, file, argv[optind], root);
    fclose(file);
    int found = 0;
    for (int i = 0; rc == SV_OK && only && i < x.n_runs; i++)
        found |= strcmp(only, x.runs[i].name) == 0;
    if (rc == SV_OK && only && !found)
        rc = sv_fail(SV_EBAD, "%s: no [run %s]", x.path, only);
    if (rc == SV_OK)
        rc = experiment_outputs_inside(&x, only);
    if (rc == SV_OK && !dry && (rc = experiment_make_folders(&x, only)) == SV_OK)
        rc = experiment_preflight(&x, only);
    char shown[4 * MAX_TEXT + 1];
    if (rc == SV_OK && check)
        printf("%s: every run's arguments checked; nothing ran\n",
               sv_escaped(shown, sizeof shown, x.path));
    if (rc != SV_OK || check) {
        experiment_free(&x);
        return rc;
    }

    if (x.description[0])
        printf("%s: %s\n", sv_escaped(shown, sizeof shown, x.path), x.description);
    int worst = SV_OK;
    for (int i = 0; i < x.n_runs; i++) {
        const run_spec *r = &x.runs[i];
        if (only && strcmp(only, r->name) != 0)
            continue;
        printf("== run %s (%d of %d): ", sv_escaped(shown, sizeof shown, r->name), i + 1,
               x.n_runs);
        experiment_print_command(stdout, r);
        if (dry)
            continue;
        int signal = 0, status = experiment_run_one(r, 0, &signal);
        if (status == -2) {
            worst = SV_EENV;
            break;
        }
        if (status == -1) {
            worst = sv_fail(SV_EENV, "%s: run %s: specverify %s was killed by signal %d (%s)",
                            x.path, r->name, r->command, signal, strsignal(signal));
            break;
        }
        if (status >= SV_EBAD) {
            worst = sv_fail(status == SV_EBAD ? SV_EBAD : SV_EENV,
                            "%s: run %s stopped the experiment with exit status %d", x.path,
                            r->name, status);
            break;
        }
        if (status > worst)
            worst = status;
    }
    experiment_free(&x);
    return worst;
}
