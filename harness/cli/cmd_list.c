/* cmd_list.c: `specverify list`: samplers, suites and case families. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "sv_cli.h"
#include "sv_cases.h"
#include "sv_store.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: specverify list [--plugin LIB]... [--python FILE.py:NAME]... [--suite NAME]\n"
            "                      [--json FILE]\n"
            "\n"
            "Prints the samplers (name, memory space, origin, description), the suites\n"
            "and the case families with their parameters.\n"
            "\n"
            "  --plugin LIB   load samplers from a plugin first (repeatable)\n"
            SV_PYTHON_HELP
            "  --suite NAME   print only that suite's cases, one per line: spec and draws\n"
            "  --json FILE    the same as data (list_format 1, docs/formats.md#list-json):\n"
            "                 samplers, suites with their cases, families with their keys\n"
            "  -h, --help     this text\n"
            "\n"
            "Examples:\n"
            "  specverify list\n"
            "  specverify list --suite smoke\n"
            "  specverify list --suite smoke --json /dev/stdout\n");
}

static const struct option options[] = {
    {"plugin", required_argument, NULL, 'p'},
    {"suite", required_argument, NULL, 's'},
    {"json", required_argument, NULL, 'j'},
    SV_PYTHON_OPTIONS,
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};
static const char optstring[] = ":h";
/* the flags, for `run` to check an experiment's keys against before it runs */
const sv_command_flags sv_list_flags = {optstring, options};

int sv_cmd_list(int argc, char **argv)
{
    int opt;
    const char *suite_name = NULL, *json = NULL;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, optstring, options, NULL)) != -1) {
        switch (opt) {
        case 'p': {
            char err[1024];
            if (sv_plugin_load(optarg, err, sizeof err) != 0)
                return sv_fail(SV_EBAD, "%s", err);
            break;
        }
        case 's':
            suite_name = optarg;
            break;
        case 'j':
            if (sv_output_flag("list", "--json", &json, optarg) != SV_OK)
                return SV_EBAD; /* it said why */
            break;
        case 'h':
            usage(stdout);
            return SV_OK;
        default: {
            int rc = SV_OK;
            if (!sv_python_option(opt, optarg, &rc))
                return sv_option_error("list", opt, options, argv);
            if (rc != SV_OK)
                return rc;
        }
        }
    }
    if (optind < argc)
        return sv_fail(SV_EBAD, "list: unexpected argument '%s'", argv[optind]);
    int loaded = json ? sv_atomic_check(json) : SV_OK; /* before any work */
    if (loaded == SV_OK)
        loaded = sv_python_load("list");
    if (loaded != SV_OK)
        return loaded;
    if (suite_name) { /* for scripts: one case per line */
        const sv_suite *s = sv_suite_find(suite_name);
        char hint[240];
        if (!s)
            return sv_fail(SV_EBAD, "list: unknown suite '%s' (smoke, ci, full)%s", suite_name,
                           sv_suggest_among(suite_name, "smoke, ci, full", hint, sizeof hint));
        if (sv_preflight())
            return SV_OK;
        for (size_t j = 0; j < s->n_entries; j++)
            printf("%s %llu\n", s->entries[j].spec, (unsigned long long)s->entries[j].draws);
        return json ? sv_list_json(json, s) : SV_OK;
    }

    if (sv_preflight())
        return SV_OK;
    printf("samplers:\n");
    for (size_t i = 0; i < sv_registry_count(); i++) {
        const sv_sampler *s = sv_registry_get(i);
        const char *origin = sv_registry_origin(i);
        if (strcmp(origin, "built-in") != 0 && strcmp(origin, "broken") != 0)
            origin = "plugin";
        char rule[48] = "";
        if (s->rule != SV_RULE_CHAIN) /* the chain rule goes without saying */
            snprintf(rule, sizeof rule, " [rule: %s]", sv_rule_name(s->rule));
        if (s->inputs & SV_INPUT_OWN_DRAFTS)
            snprintf(rule + strlen(rule), sizeof rule - strlen(rule), " [draws its drafts]");
        char words[1024]; /* a plugin's description: its words, escaped */
        printf("  %-28s %-5s %-9s %s%s%s\n", s->name, sv_memspace_name(s->memspace), origin,
               sv_escaped(words, sizeof words, s->description), (s->inputs & ~SV_INPUT_OWN_DRAFTS)
                                   ? " [takes logits: verify/bench --input]" : "", rule);
    }
    printf("\nsuites:\n");
    for (size_t i = 0; i < sv_suite_count(); i++) {
        const sv_suite *s = sv_suite_get(i);
        uint64_t draws = 0;
        for (size_t j = 0; j < s->n_entries; j++)
            draws += s->entries[j].draws;
        printf("  %-8s %2zu cases, %6.3g M draws: %s\n", s->name, s->n_entries, draws / 1e6,
               s->description);
    }
    printf("  %-8s the hard variants' cases, each at the draws the power formula asks for "
           "power 1 - 1e-6 (1e8 and more; 'verify --suite deep --plan' prints them)\n", "deep");
    printf("\ncase families (--case 'family:key=value,...'):\n");
    sv_families_print(stdout);
    fflush(stdout); /* the text first, then the JSON, also on one stream (/dev/stdout) */
    return json ? sv_list_json(json, NULL) : SV_OK;
}
