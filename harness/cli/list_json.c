/* list_json.c: `specverify list --json FILE`: the samplers, the suites with
 * their cases and draws, and the case families with their keys, as data
 * (docs/formats.md, "List JSON"), so that a script (the Python API's
 * cases()) reads fields, not aligned text. */
#include <math.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "families.h"
#include "sv_cli.h"
#include "sv_cases.h"
#include "sv_report.h"

static cJSON *samplers_json(void)
{
    cJSON *all = cJSON_CreateArray();
    for (size_t i = 0; i < sv_registry_count(); i++) {
        const sv_sampler *s = sv_registry_get(i);
        const char *origin = sv_registry_origin(i);
        if (strcmp(origin, "built-in") != 0 && strcmp(origin, "broken") != 0)
            origin = "plugin";
        cJSON *o = cJSON_CreateObject();
        sv_json_text(o, "name", s->name); /* a plugin's words: escaped */
        cJSON_AddStringToObject(o, "memspace", sv_memspace_name(s->memspace));
        cJSON_AddStringToObject(o, "origin", origin);
        cJSON_AddStringToObject(o, "rule", sv_rule_name(s->rule));
        cJSON_AddBoolToObject(o, "takes_logits", (s->inputs & ~SV_INPUT_OWN_DRAFTS) != 0);
        cJSON_AddBoolToObject(o, "own_drafts", (s->inputs & SV_INPUT_OWN_DRAFTS) != 0);
        sv_json_text(o, "description", s->description);
        cJSON_AddItemToArray(all, o);
    }
    return all;
}

static cJSON *suite_json(const sv_suite *s)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", s->name);
    cJSON_AddStringToObject(o, "description", s->description);
    cJSON *cases = cJSON_AddArrayToObject(o, "cases");
    for (size_t j = 0; j < s->n_entries; j++) {
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "spec", s->entries[j].spec);
        cJSON_AddNumberToObject(c, "draws", (double)s->entries[j].draws);
        cJSON_AddItemToArray(cases, c);
    }
    return o;
}

static cJSON *families_json(void)
{
    cJSON *all = cJSON_CreateArray();
    for (size_t i = 0; i < sv_family_count(); i++) {
        const sv_family *f = sv_family_get(i);
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", f->name);
        cJSON_AddStringToObject(o, "description", f->description);
        cJSON *keys = cJSON_AddArrayToObject(o, "keys");
        for (size_t j = 0; j < sv_family_param_count(f); j++) {
            const sv_family_param *p = &f->params[j];
            cJSON *k = cJSON_CreateObject();
            cJSON_AddStringToObject(k, "key", p->key);
            sv_json_number(k, "default", p->def);
            sv_json_number(k, "min", p->min); /* null: unbounded */
            sv_json_number(k, "max", p->max);
            cJSON_AddStringToObject(k, "help", p->help);
            cJSON_AddItemToArray(keys, k);
        }
        cJSON_AddItemToArray(all, o);
    }
    return all;
}

int sv_list_json(const char *path, const sv_suite *only)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "list_format", 1);
    cJSON_AddStringToObject(root, "specverify_version", SV_VERSION);
    cJSON *suites = cJSON_AddArrayToObject(root, "suites");
    if (only) { /* --suite NAME: that suite's cases alone */
        cJSON_AddItemToArray(suites, suite_json(only));
        return sv_write_json(root, path);
    }
    cJSON_AddItemToObject(root, "samplers", samplers_json());
    for (size_t i = 0; i < sv_suite_count(); i++)
        cJSON_AddItemToArray(suites, suite_json(sv_suite_get(i)));
    cJSON_AddItemToObject(root, "families", families_json());
    return sv_write_json(root, path);
}
