/* cmd_power.c: `specverify verify --power VARIANT`: before sampling, how
 * likely is this run to catch the variant, and how many draws would make it
 * certain? From the variant's output distribution in closed form. */
#include <math.h>
#include <stdlib.h>
#include <cjson/cJSON.h>
#include "sv_cli.h"
#include "sv_report.h"
#include "sv_cases.h"
#include "sv_stats.h"

int sv_print_power(const char *variant, const char *const *specs, const uint64_t *draws,
                   size_t n, double alpha, double target, FILE *out, const char *json)
{
    sv_case **cases = calloc(n ? n : 1, sizeof *cases);
    if (!cases)
        return sv_fail(SV_EENV, "out of memory");
    size_t n_tests = 0;
    int rc = SV_OK;
    for (size_t i = 0; i < n && rc == SV_OK; i++) {
        char err[512];
        if (sv_case_from_spec(specs[i], &cases[i], err, sizeof err) != 0)
            rc = sv_fail(SV_EBAD, "%s", err);
        else
            n_tests += sv_tests_per_case(cases[i]);
    }
    double split = sv_bonferroni(alpha, n_tests), miss = 1.0;
    int known = 0;
    /* the same numbers as data (--json), for the Python API's power() */
    cJSON *root = json ? cJSON_CreateObject() : NULL, *jcases = NULL;
    if (root) {
        cJSON_AddNumberToObject(root, "power_format", 1);
        cJSON_AddStringToObject(root, "specverify_version", SV_VERSION);
        sv_json_text(root, "variant", variant);
        cJSON_AddNumberToObject(root, "family_alpha", alpha);
        cJSON_AddNumberToObject(root, "p_values", (double)n_tests);
        cJSON_AddNumberToObject(root, "split_alpha", split);
        cJSON_AddNumberToObject(root, "power_target", target);
        jcases = cJSON_AddArrayToObject(root, "cases");
    }
    if (rc == SV_OK) {
        fprintf(out, "power against %s: family-wise false-alarm rate %g over %zu p-values "
                "(each %.2g); draws for power %g\n\n", variant, alpha, n_tests, split, target);
        fprintf(out, "%-34s %3s %12s %10s %5s %9s %12s\n", "case", "pos", "N here", "w^2", "df",
                "power", "draws for");
    }
    for (size_t i = 0; i < n && rc == SV_OK; i++) {
        const sv_case *c = cases[i];
        sv_power_report cp;
        rc = sv_case_power(variant, c, draws[i], split, target, &cp);
        if (rc != SV_OK)
            break;
        cJSON *jc = root ? cJSON_CreateObject() : NULL;
        if (jc) {
            cJSON_AddItemToArray(jcases, jc);
            sv_json_text(jc, "name", c->name); /* a recording's path: escaped */
            cJSON_AddNumberToObject(jc, "draws", (double)draws[i]);
            cJSON_AddBoolToObject(jc, "known", cp.known);
            cJSON_AddBoolToObject(jc, "by_contract", cp.known && cp.by_contract);
            sv_json_number(jc, "power", cp.known ? cp.power : NAN);
            sv_json_number(jc, "draws_for_target", cp.known ? cp.needed : NAN);
            cJSON *jp = cJSON_AddArrayToObject(jc, "positions");
            for (int32_t k = 0; cp.known && !cp.by_contract && k <= c->K; k++) {
                cJSON *pos = cJSON_CreateObject();
                cJSON_AddItemToArray(jp, pos);
                cJSON_AddNumberToObject(pos, "position", k + 1);
                sv_json_number(pos, "N", cp.reach[k] * (double)draws[i]);
                sv_json_number(pos, "w2", cp.w2[k]);
                cJSON_AddNumberToObject(pos, "df", cp.df[k]);
                sv_json_number(pos, "power", cp.position_power[k]);
                sv_json_number(pos, "draws_for_target", cp.position_needed[k]);
            }
        }
        if (!cp.known) {
            fprintf(out, "%-34.34s   -  no closed form for this variant here\n", c->name);
            continue;
        }
        known = 1;
        miss *= 1.0 - cp.power;
        if (cp.by_contract) {
            fprintf(out, "%-34.34s   -  %12llu  contract check    %9.4f %12.3g\n", c->name,
                    (unsigned long long)draws[i], cp.power, cp.needed);
            continue;
        }
        for (int32_t k = 0; k <= c->K; k++)
            fprintf(out, "%-34.34s %3d %12.0f %10.3g %5d %9.4f %12.3g\n", k ? "" : c->name,
                    k + 1, cp.reach[k] * (double)draws[i], cp.w2[k], cp.df[k],
                    cp.position_power[k], cp.position_needed[k]);
    }
    if (rc == SV_OK && known)
        fprintf(out, "\nP(the run catches %s) = %.6f (positions and cases taken as independent)\n",
                variant, 1.0 - miss);
    else if (rc == SV_OK)
        fprintf(out, "\n%s has no closed-form output distribution: its power is unknown\n",
                variant);
    if (root) {
        sv_json_number(root, "power", rc == SV_OK && known ? 1.0 - miss : NAN);
        if (rc == SV_OK)
            rc = sv_write_json(root, json);
        else
            cJSON_Delete(root);
    }
    for (size_t i = 0; i < n; i++)
        sv_case_free(cases[i]);
    free(cases);
    return rc;
}
