/* sampler_args.c: which sampler a command runs and the input it is given,
 * with errors that name the command. */
#include <string.h>
#include "sv_cli.h"

int sv_parse_input(const char *flag, const char *text, int32_t *input)
{
    if ((*input = sv_input_find(text)) >= 0)
        return SV_OK;
    *input = SV_INPUT_PROBS;
    return sv_fail(SV_EBAD, "%s: '%s' is not an input mode (probs, logits-f32, logits-bf16)",
                   flag, text);
}

int sv_sampler_takes(const char *command, const sv_sampler *s, int32_t input)
{
    if (input == SV_INPUT_PROBS || (s->inputs & SV_INPUT_BIT(input)))
        return SV_OK;
    char takes[64] = "probs";
    for (int32_t m = 1; m < SV_N_INPUTS; m++)
        if (s->inputs & SV_INPUT_BIT(m)) {
            size_t used = strlen(takes);
            snprintf(takes + used, sizeof takes - used, ", %s", sv_input_name(m));
        }
    return sv_fail(SV_EBAD, "%s: sampler %s does not take %s input (it takes %s)", command,
                   s->name, sv_input_name(input), takes);
}

int sv_sampler_choose(const char *command, const char *name, const sv_sampler **out)
{
    /* samplers from plugins: origin neither "built-in" nor "broken" */
    size_t from_plugins = 0, last = 0;
    for (size_t i = 0; i < sv_registry_count(); i++)
        if (strcmp(sv_registry_origin(i), "built-in") != 0 &&
            strcmp(sv_registry_origin(i), "broken") != 0) {
            from_plugins++;
            last = i;
        }
    if (!name) { /* ref, or the one sampler a plugin brought */
        if (from_plugins > 1)
            return sv_fail(SV_EBAD, "%s: the plugins offer %zu samplers; choose one with "
                           "--sampler (see specverify list --plugin LIB)", command,
                           from_plugins);
        name = from_plugins ? sv_registry_get(last)->name : "ref";
    }
    char hint[240];
    if (!(*out = sv_registry_find(name)))
        return sv_fail(SV_EBAD, "%s: unknown sampler '%s'%s (see specverify list%s)", command,
                       name, sv_suggest_sampler(name, hint, sizeof hint),
                       from_plugins ? "" : "; plugins need --plugin");
    return SV_OK;
}

const char *sv_sweep_default_samplers(char *out, size_t len)
{
    size_t used = (size_t)snprintf(out, len, "ref");
    for (size_t i = 0; i < sv_registry_count() && used < len; i++)
        if (strcmp(sv_registry_origin(i), "built-in") != 0 &&
            strcmp(sv_registry_origin(i), "broken") != 0)
            used += (size_t)snprintf(out + used, len - used, ",%s", sv_registry_get(i)->name);
    return out;
}

int sv_parse_batches(const char *flag, const char *text, int *uniform)
{
    if (strcmp(text, "mixed") == 0 || strcmp(text, "uniform") == 0) {
        *uniform = text[0] == 'u';
        return SV_OK;
    }
    return sv_fail(SV_EBAD, "%s: '%s' is not a kind of batch (mixed: the cases of a vocabulary "
                   "interleaved, ragged, seeded and not; uniform: one case broadcast per batch)",
                   flag, text);
}

int sv_parse_seeding(const char *flag, const char *text, int *seeding)
{
    static const char *const names[] = {"mixed", "all", "none"};
    for (int i = 0; i < 3; i++)
        if (strcmp(text, names[i]) == 0) {
            *seeding = i; /* the sv_seeding values, in order */
            return SV_OK;
        }
    return sv_fail(SV_EBAD, "%s: '%s' is not a seeding (mixed, all, none)", flag, text);
}
