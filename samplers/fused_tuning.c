/* fused_tuning.c: cuda_fused's experiment knobs from the environment. */
#include "fused_tuning.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* Variable `name` as an integer in [lo, hi]; *value keeps its default when
 * unset. 0, or -1 with err said. */
static int read_int(const char *name, long lo, long hi, const char *allowed, long *value,
                    char *err, size_t errlen)
{
    const char *text = getenv(name);
    if (!text)
        return 0;
    char *end = NULL;
    errno = 0;
    const long v = strtol(text, &end, 10);
    /* digits only, as every number specverify reads: no space, sign or hex */
    if (!(*text >= '0' && *text <= '9') || *end != '\0' || errno != 0 || v < lo || v > hi) {
        snprintf(err, errlen, "environment variable %s='%s' is not %s", name, text, allowed);
        return -1;
    }
    *value = v;
    return 0;
}

int sv_fused_tuning_read(sv_fused_tuning *t, char *err, size_t errlen)
{
    long prune = 1, depth = 1, splits = 0, early = 1;
    if (read_int("SV_FUSED_PRUNE", 0, 1, "0 or 1", &prune, err, errlen) ||
        read_int("SV_FUSED_DEPTH", 1, 2, "1 or 2", &depth, err, errlen) ||
        read_int("SV_FUSED_SPLITS", 1, SV_FUSED_MAX_SPLITS, "an integer from 1 to 65535",
                 &splits, err, errlen) ||
        read_int("SV_FUSED_EARLY", 0, 1, "0 or 1", &early, err, errlen))
        return -1;
    t->prune = (int)prune;
    t->depth = (int)depth;
    t->splits = (int32_t)splits;
    t->early = (int)early;
    return 0;
}

int sv_fused_tuning_describe(const sv_fused_tuning *t, char *buf, size_t len)
{
    const struct {
        const char *name;
        long value, by_default;
    } knobs[] = {{"SV_FUSED_PRUNE", t->prune, 1},
                 {"SV_FUSED_DEPTH", t->depth, 1},
                 {"SV_FUSED_SPLITS", t->splits, 0},
                 {"SV_FUSED_EARLY", t->early, 1}};
    size_t at = 0;
    int set = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof knobs / sizeof knobs[0] && at < len; i++)
        if (knobs[i].value != knobs[i].by_default)
            at += (size_t)snprintf(buf + at, len - at, "%s%s=%ld", set++ ? " " : "",
                                   knobs[i].name, knobs[i].value);
    return set;
}
