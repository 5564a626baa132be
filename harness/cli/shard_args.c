/* shard_args.c: verify's --shard I/N and --shard-file FILE (issue 28), and
 * the command a shard file names its run by: verify's arguments without
 * those two, the same in every shard of the run. */
#include <stdlib.h>
#include <string.h>
#include "sv_cli.h"

int sv_parse_shard(const char *flag, const char *text, uint32_t *index, uint32_t *count)
{
    char *end = NULL;
    unsigned long i = strtoul(text, &end, 10), n = 0;
    int ok = end != text && *end == '/' && text[0] != '-';
    if (ok) {
        const char *rest = end + 1;
        n = strtoul(rest, &end, 10);
        ok = end != rest && *end == '\0' && rest[0] != '-';
    }
    if (!ok || n < 1 || n > 1000000 || i < 1 || i > n)
        return sv_fail(SV_EBAD, "%s '%s': give I/N, shard I of N, 1 <= I <= N <= 1000000 "
                       "(e.g. 2/7)", flag, text);
    *index = (uint32_t)(i - 1);
    *count = (uint32_t)n;
    return SV_OK;
}

int sv_shard_command(int argc, char **argv, const char ***out, size_t *n)
{
    const char **cmd = calloc((size_t)argc + 1, sizeof *cmd);
    if (!cmd)
        return sv_fail(SV_EENV, "out of memory for the command");
    size_t k = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--shard") == 0 || strcmp(a, "--shard-file") == 0) {
            i++; /* and its value */
            continue;
        }
        if (strncmp(a, "--shard=", 8) == 0 || strncmp(a, "--shard-file=", 13) == 0)
            continue;
        cmd[k++] = a;
    }
    *out = cmd;
    *n = k;
    return SV_OK;
}
