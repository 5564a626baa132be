/* mutants_json.c: `specverify mutants`'s detection table as JSON
 * (DIR/mutants-SUITE.json beside the Markdown and HDF5 files): each
 * variant's result, its power and draws, and each check's smallest p-value,
 * so that a script (the Python API's mutants()) reads numbers, not a
 * Markdown table. docs/formats.md has the fields. */
#include <cjson/cJSON.h>
#include "mutants_table.h"
#include "sv_report.h"

int sv_mutants_write_json(const char *path, const mutant_row *rows, size_t n, const char *suite,
                          uint64_t seed, double alpha, double target, int full,
                          const char *partial, const char *not_run)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "mutants_format", 1);
    cJSON_AddStringToObject(root, "specverify_version", SV_VERSION);
    cJSON_AddStringToObject(root, "suite", suite);
    cJSON_AddBoolToObject(root, "full", full);
    cJSON_AddNumberToObject(root, "seed", (double)seed);
    cJSON_AddNumberToObject(root, "family_alpha", alpha);
    cJSON_AddNumberToObject(root, "power_target", target);
    if (partial)
        cJSON_AddStringToObject(root, "partial", partial);
    cJSON_AddStringToObject(root, "not_run", not_run);
    cJSON *variants = cJSON_AddArrayToObject(root, "variants");
    for (size_t i = 0; i < n; i++) {
        const mutant_row *m = &rows[i];
        cJSON *v = cJSON_CreateObject();
        cJSON_AddItemToArray(variants, v);
        cJSON_AddStringToObject(v, "variant", m->sampler->name);
        cJSON_AddStringToObject(v, "result", sv_mutant_result(m));
        cJSON_AddBoolToObject(v, "caught", m->caught);
        cJSON_AddBoolToObject(v, "hard", m->is_hard);
        cJSON_AddNumberToObject(v, "draws", (double)m->draws);
        sv_json_number(v, "power", m->power);
        sv_json_number(v, "draws_for_target", m->needed);
        if (m->needed_case[0])
            cJSON_AddStringToObject(v, "best_case", m->needed_case);
        cJSON *checks = cJSON_AddObjectToObject(v, "checks");
        for (int c = 0; c < N_CHECKS; c++) {
            cJSON *check = cJSON_AddObjectToObject(checks, sv_mutant_check_names[c]);
            sv_json_number(check, "min_p", m->min_p[c]);
            cJSON_AddBoolToObject(check, "failed", m->failed[c] > 0);
        }
    }
    return sv_write_json(root, path);
}
