/* cmd_merge.c: `specverify merge SHARD.h5...` (issue 28): the shards of one
 * `verify|mutants|sweep|calibrate --shard I/N` run, checked (one run, every
 * shard once), their counts summed, and the run's reports printed and
 * written exactly as the whole run would have: the command itself runs
 * again with the shards' arguments, the summed counts in place of each
 * case's first run (re-runs of suspects run here, with the same sampler, as
 * the whole run would make them; calibrate takes each shard's runs). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "sv_cli.h"
#include "sv_report.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: specverify merge SHARD.h5...\n"
            "\n"
            "Merges the shard files of one 'specverify verify|mutants|sweep|calibrate\n"
            "--shard I/N' run (each written by one shard, on one machine, CI job or MPI\n"
            "rank) into its verdict, table or files: checks\n"
            "that they are the shards of one run (the same command but for --shard and\n"
            "--shard-file, the same version), each given once and none missing; sums each\n"
            "case's counts; and prints and writes (--json, --junit, as the command asked)\n"
            "what the whole run would have, byte for byte but for the seconds it took.\n"
            "A case SUSPECT on the summed counts is re-run here with a fresh seed and 4x\n"
            "the draws, as the whole run does (unless the command says --no-rerun): then\n"
            "the sampler must be here too (docs/shards.md).\n"
            "\n"
            "Exit status: the command's (verify's: 0 all passed, 1 a verification failed, 2 bad usage\n"
            "or input (a file that is no shard, a shard of another run, a shard given\n"
            "twice or missing, counts its run cannot have made, a link out of the file:\n"
            "each named), 3 environment).\n"
            "\n"
            "Examples:\n"
            "  specverify verify --suite smoke --shard 1/2 --shard-file s1.h5\n"
            "  specverify verify --suite smoke --shard 2/2 --shard-file s2.h5\n"
            "  specverify merge s1.h5 s2.h5\n");
}

int sv_cmd_merge(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return SV_OK;
        }
    for (int i = 1; i < argc; i++)
        if (argv[i][0] == '-')
            return sv_fail(SV_EBAD, "merge: unknown option '%s' (it takes shard files only; "
                           "see 'specverify merge --help')", argv[i]);
    if (argc < 2)
        return sv_fail(SV_EBAD, "merge: give the shard files of one run (see 'specverify merge "
                       "--help')");
    sv_shard_set *set = NULL;
    int rc = sv_shard_set_open((const char *const *)argv + 1, (size_t)argc - 1, &set);
    if (rc != SV_OK)
        return rc;
    size_t n = 0;
    const char *const *stored = sv_shard_set_command(set, &n);
    char **command = calloc(n + 1, sizeof *command); /* getopt permutes it */
    if (!command) {
        sv_shard_set_close(set);
        return sv_fail(SV_EENV, "out of memory for the command");
    }
    for (size_t i = 0; i < n; i++)
        command[i] = (char *)stored[i];
    sv_shard_hooks hooks = {0, (uint32_t)sv_shard_set_shards(set), NULL, sv_shard_give, set, 0,
                            0}; /* count: each case's shares are held to the run's cut */
    optind = 0; /* glibc: start afresh */
    if (n < 1)
        rc = sv_fail(SV_EBAD, "merge: %s holds no command", argv[1]);
    else if (strcmp(command[0], "verify") == 0)
        rc = sv_verify_command((int)n, command, &hooks);
    else if (strcmp(command[0], "mutants") == 0)
        rc = sv_mutants_command((int)n, command, &hooks);
    else if (strcmp(command[0], "sweep") == 0)
        rc = sv_sweep_command((int)n, command, &hooks);
    else if (strcmp(command[0], "calibrate") == 0)
        rc = sv_calibrate_command((int)n, command, set);
    else
        rc = sv_fail(SV_EBAD, "merge: %s holds the command '%.40s', which merge does not take "
                     "(verify, mutants, sweep, calibrate)", argv[1], command[0]);
    free(command);
    sv_shard_set_close(set);
    return rc;
}
