/* calibrate_json.c: `calibrate --json FILE`: the uniformity tests, the
 * rates of small p-values and of false alarms with their intervals, and the
 * verdict, as data (docs/formats.md, "Calibrate JSON"). */
#include <cjson/cJSON.h>
#include "calibrate_runs.h"
#include "sv_report.h"

static void rate_json(cJSON *o, uint64_t count, uint64_t of, const double ci[2])
{
    cJSON_AddNumberToObject(o, "count", (double)count);
    cJSON_AddNumberToObject(o, "of", (double)of);
    sv_json_number(o, "rate", of ? (double)count / (double)of : 0.0);
    sv_json_number(o, "ci_lo", ci[0]); /* null: GSL could not give it */
    sv_json_number(o, "ci_hi", ci[1]);
}

int calibrate_write_json(const char *path, const calibrate_result *r)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "calibrate_format", 1);
    cJSON_AddStringToObject(root, "specverify_version", SV_VERSION);
    sv_json_text(root, "sampler", r->sampler); /* a plugin's name */
    cJSON_AddStringToObject(root, "suite", r->suite);
    cJSON_AddNumberToObject(root, "seed", (double)r->seed);
    cJSON_AddNumberToObject(root, "runs", (double)r->runs);
    cJSON_AddNumberToObject(root, "runs_planned", (double)r->runs_planned);
    cJSON_AddNumberToObject(root, "family_alpha", r->alpha);
    sv_json_number(root, "split_alpha", r->split);
    cJSON_AddNumberToObject(root, "p_values", (double)r->p_values);
    cJSON_AddNumberToObject(root, "tests_per_run", (double)r->tests_per_run);
    cJSON *ks = cJSON_AddObjectToObject(root, "ks");
    sv_json_number(ks, "stat", r->ks_stat);
    sv_json_number(ks, "p", r->ks_p);
    cJSON *bins = cJSON_AddObjectToObject(root, "chi2_bins");
    sv_json_number(bins, "stat", r->bins_stat);
    cJSON_AddNumberToObject(bins, "df", 9);
    sv_json_number(bins, "p", r->bins_p);
    cJSON *counts = cJSON_AddArrayToObject(bins, "counts");
    for (int b = 0; b < 10; b++)
        cJSON_AddItemToArray(counts, cJSON_CreateNumber((double)r->bins[b]));
    rate_json(cJSON_AddObjectToObject(root, "small_p"), r->small, r->p_values, r->small_ci);
    cJSON *fa = cJSON_AddObjectToObject(root, "false_alarms");
    rate_json(fa, r->failed_runs, r->runs, r->fail_ci);
    sv_json_number(fa, "p", r->fail_p);
    cJSON_AddNumberToObject(root, "seed_ignored_checks", (double)r->same_checks);
    if (r->same_checks)
        sv_json_text(root, "seed_ignored", r->same_which); /* names a case's spec */
    cJSON_AddStringToObject(root, "verdict", r->verdict);
    cJSON_AddBoolToObject(root, "partial", r->interrupted_by != NULL);
    if (r->interrupted_by)
        cJSON_AddStringToObject(root, "interrupted_by", r->interrupted_by);
    return sv_write_json(root, path);
}
