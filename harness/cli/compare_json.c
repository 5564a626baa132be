/* compare_json.c: `compare --json FILE`: every file against the first as
 * data (docs/formats.md, "Compare JSON"), written whole or not at all. */
#include <math.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "compare.h"
#include "sv_cli.h"
#include "sv_report.h"

static cJSON *file_json(const sv_compare_file *f)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "path", f->shown);
    cJSON_AddStringToObject(o, "label", f->label);
    cJSON_AddStringToObject(o, "device", f->device.name); /* escaped when read */
    return o;
}

static void point_json(cJSON *o, const sv_bench_point *p)
{
    cJSON_AddStringToObject(o, "sampler", p->sampler); /* escaped when read (bench_h5.c) */
    cJSON_AddNumberToObject(o, "B", p->B);
    cJSON_AddNumberToObject(o, "K", p->K);
    cJSON_AddNumberToObject(o, "V", p->V);
    sv_json_number(o, "accept_rate", p->accept_target); /* null: a recording's inputs */
    cJSON_AddStringToObject(o, "input", sv_input_name(p->input));
    cJSON_AddBoolToObject(o, "cold", p->cold);
    cJSON_AddBoolToObject(o, "graph", p->graph);
}

int sv_compare_json(const char *path, const sv_compare_file *files, int n_files,
                    sv_compare_row *const *rows, const size_t *n_rows, double min_diff,
                    const char *fail_on)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "compare_format", 1);
    cJSON_AddStringToObject(root, "specverify_version", SV_VERSION);
    cJSON_AddNumberToObject(root, "min_diff", min_diff);
    if (fail_on)
        cJSON_AddStringToObject(root, "fail_on", fail_on);
    cJSON_AddItemToObject(root, "base", file_json(&files[0]));
    cJSON *others = cJSON_AddArrayToObject(root, "others");
    size_t regressed = 0;
    for (int j = 1; j < n_files; j++) {
        cJSON *o = file_json(&files[j]);
        cJSON *points = cJSON_AddArrayToObject(o, "points");
        size_t faster = 0, slower = 0, same = 0, only_base = 0, only_other = 0;
        for (size_t i = 0; i < n_rows[j]; i++) {
            const sv_compare_row *r = &rows[j][i];
            cJSON *p = cJSON_CreateObject();
            point_json(p, r->base ? r->base : r->other);
            sv_json_number(p, "base_median_us", r->base ? r->base->median_us : NAN);
            sv_json_number(p, "median_us", r->other ? r->other->median_us : NAN);
            sv_json_number(p, "ratio", r->ratio);
            sv_json_number(p, "threshold", r->threshold);
            const char *v = r->verdict ? r->verdict : r->base ? "ONLY_BASE" : "ONLY_OTHER";
            cJSON_AddStringToObject(p, "verdict", v);
            cJSON_AddItemToArray(points, p);
            faster += strcmp(v, "FASTER") == 0;
            slower += strcmp(v, "SLOWER") == 0;
            same += strcmp(v, "SAME") == 0;
            only_base += strcmp(v, "ONLY_BASE") == 0;
            only_other += strcmp(v, "ONLY_OTHER") == 0;
        }
        cJSON *sum = cJSON_AddObjectToObject(o, "summary");
        cJSON_AddNumberToObject(sum, "faster", (double)faster);
        cJSON_AddNumberToObject(sum, "slower", (double)slower);
        cJSON_AddNumberToObject(sum, "same", (double)same);
        cJSON_AddNumberToObject(sum, "only_base", (double)only_base);
        cJSON_AddNumberToObject(sum, "only_other", (double)only_other);
        regressed += slower;
        cJSON_AddItemToArray(others, o);
    }
    cJSON_AddNumberToObject(root, "slower", (double)regressed);
    return sv_write_json(root, path);
}
