/* preflight.c: `specverify preflight COMMAND ARGS...`: the command checks
 * what it is given as it would before its first draw (flag values, suite,
 * every case built, sampler found, input files, outputs writable), then
 * stops there with exit 0, having drawn nothing and run no sampler code
 * beyond a plugin's load probe. `run` preflights every run of an
 * experiment before the first one starts, so that a bad value in its last
 * run is refused at once, not after hours of the runs before it. */
#include <stdio.h>
#include <string.h>
#include "cuda_stage.h"
#include "sv_cases.h"
#include "sv_cli.h"

static int preflight_on;

int sv_preflight(void)
{
    return preflight_on;
}

static int is_recorded(const char *spec)
{
    return strncmp(spec, "recorded:", 9) == 0;
}

int sv_preflight_cases(const char *command, const char *const *specs, size_t n)
{
    /* a recording's steps share its file and sizes, and each is read in a
     * child of its own: its first and last stand for it */
    size_t first = n, last = n;
    for (size_t i = 0; i < n; i++)
        if (is_recorded(specs[i])) {
            first = first == n ? i : first;
            last = i;
        }
    for (size_t i = 0; i < n; i++) {
        if (is_recorded(specs[i]) && i != first && i != last)
            continue;
        char err[2048];
        sv_case *c = NULL;
        if (sv_case_from_spec(specs[i], &c, err, sizeof err) != 0)
            return sv_fail(SV_EBAD, "%s: %s", command, err);
        sv_case_free(c);
    }
    return SV_OK;
}

int sv_cuda_usable(char *why, size_t len)
{
#ifdef SV_HAVE_CUDA
    return sv_cuda_device_count_isolated(why, len) > 0; /* asked in a child */
#else
    snprintf(why, len, "this specverify was built without CUDA");
    return 0;
#endif
}

int sv_preflight_device(const char *command, const sv_sampler *sampler)
{
    char why[200];
    if (sampler->memspace != SV_MEM_CUDA || sv_cuda_usable(why, sizeof why))
        return SV_OK;
    return sv_fail(SV_EENV, "%s: sampler %s needs a CUDA device: %s", command, sampler->name,
                   why);
}

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} commands[] = {{"verify", sv_cmd_verify},     {"sweep", sv_cmd_sweep},
                {"bench", sv_cmd_bench},       {"compare", sv_cmd_compare},
                {"mutants", sv_cmd_mutants},   {"calibrate", sv_cmd_calibrate},
                {"list", sv_cmd_list}};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: specverify preflight COMMAND [options]\n"
            "\n"
            "Checks a command's arguments as the command does before its first draw, and\n"
            "runs nothing: flag values, the suite, every case built (a recording's first\n"
            "and last step), the sampler found (a plugin's load probe runs), input files\n"
            "read, outputs writable, --budget's floor; a CUDA device where a CUDA sampler,\n"
            "bench or a GPU variant needs one. COMMAND is one that `specverify run` runs:\n"
            "verify, sweep, bench, compare (its files are not read: an earlier run may\n"
            "write them), mutants, calibrate, list. `run` preflights every run of an\n"
            "experiment before the first starts. See docs/run.md.\n"
            "\n"
            "Exit status: 0 the command would run, 2 bad usage or input (the message\n"
            "names what), 3 environment (no device, a sampler that cannot load).\n"
            "\n"
            "Examples:\n"
            "  specverify preflight verify --suite ci --json report.json\n"
            "  specverify preflight sweep --case logits:V=1000,K=5 --T 0.2,0.7,1.5\n");
}

int sv_cmd_preflight(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return SV_OK;
    }
    if (argc < 2) {
        usage(stderr);
        return sv_fail(SV_EBAD, "preflight: give the command to check");
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0) {
            preflight_on = 1;
            return commands[i].run(argc - 1, argv + 1);
        }
    return sv_fail(SV_EBAD, "preflight: '%s' is not a command `run` runs (verify, sweep, "
                   "bench, compare, mutants, calibrate, list)", argv[1]);
}
