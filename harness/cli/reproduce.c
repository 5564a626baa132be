/* reproduce.c: the command line that runs one case of a verify run alone
 * (issue 39): every FAIL names it, as hypothesis hands back a falsifying
 * example. The run's sampler (with the --plugin or --python it came from),
 * input, batches, seeding and tree, here; the case, seed and draws, by the
 * report per case (sv_report_reproduce). Every word is shell-quoted
 * (sv_shell_quote). */
#include <string.h>
#include "sv_cli.h"

static void word(char *out, size_t len, size_t *used, const char *flag, const char *value)
{
    const int n = snprintf(out + *used, len - *used, " %s ", flag);
    if (n > 0 && (size_t)n < len - *used)
        *used = sv_shell_quote(out, len, *used + (size_t)n, value);
}

void sv_sampler_source(const sv_sampler *s, char *out, size_t len)
{
    size_t used = 0;
    const char *origin = NULL;
    out[0] = '\0';
    for (size_t i = 0; i < sv_registry_count(); i++)
        if (sv_registry_get(i) == s)
            origin = sv_registry_origin(i);
    const char *const *specs = NULL;
    const size_t n_python = sv_python_specs(&specs);
    if (origin && strcmp(origin, "built-in") != 0 && strcmp(origin, "broken") != 0) {
        if (n_python && strstr(origin, "sv_python")) {
            for (size_t i = 0; i < n_python; i++) /* the Python samplers the run loaded */
                word(out, len, &used, "--python", specs[i]);
            /* its keyword arguments, and an interpreter that PATH would not
             * find again (the Python API's own, a venv's): without them the
             * case runs another sampler, or fails to import */
            if (sv_python_config())
                word(out, len, &used, "--python-config", sv_python_config());
            if (sv_python_exe_named())
                word(out, len, &used, "--python-exe", sv_python_exe_named());
        } else {
            word(out, len, &used, "--plugin", origin);
        }
    }
}

void sv_reproduce_prefix(const sv_sampler *s, int32_t input, int uniform, int seeding,
                         const char *tree, char *out, size_t len)
{
    size_t used = (size_t)snprintf(out, len, "specverify verify");
    sv_sampler_source(s, out + used, len - used);
    used += strlen(out + used);
    word(out, len, &used, "--sampler", s->name);
    if (input != SV_INPUT_PROBS)
        word(out, len, &used, "--input", sv_input_name(input));
    if (uniform)
        word(out, len, &used, "--batches", "uniform");
    static const char *const seedings[] = {"mixed", "all", "none"};
    if (!uniform && seeding > 0 && seeding < 3)
        word(out, len, &used, "--seeding", seedings[seeding]);
    if (tree && tree[0]) { /* "3x2x1 iid": the shape, then the siblings */
        char shape[96];
        snprintf(shape, sizeof shape, "%s", tree);
        char *space = strchr(shape, ' ');
        if (space)
            *space = '\0';
        word(out, len, &used, "--tree", shape);
        if (space)
            word(out, len, &used, "--siblings", space + 1);
    }
}
