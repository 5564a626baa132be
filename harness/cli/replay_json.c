/* replay_json.c: `replay --json FILE`: what came of a replay as data
 * (docs/formats.md, "Replay JSON"), written whole or not at all. */
#include <stdio.h>
#include <cjson/cJSON.h>
#include "replay.h"
#include "sv_report.h"

/* What the sampler gave one sequence: n (null: it broke the contract) and
 * its own slots. */
static cJSON *row_json(const int32_t *row)
{
    cJSON *o = cJSON_CreateObject();
    if (row[0] < 0)
        cJSON_AddNullToObject(o, "n");
    else
        cJSON_AddNumberToObject(o, "n", row[0]);
    cJSON *tokens = cJSON_AddArrayToObject(o, "tokens");
    for (int32_t k = 0; row[0] >= 0 && k <= SV_MAX_K && row[1 + k] >= 0; k++)
        cJSON_AddItemToArray(tokens, cJSON_CreateNumber(row[1 + k]));
    return o;
}

int sv_replay_json(const char *path, const char *file, const replay_file *f,
                   const replay_outcome *o)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "replay_format", 1);
    cJSON_AddStringToObject(root, "specverify_version", SV_VERSION);
    sv_json_text(root, "file", file);
    sv_json_text(root, "sampler", f->sampler->name);
    /* the file's words, escaped once when read (replay_file.c) */
    cJSON_AddStringToObject(root, "run_sampler", f->sampler_name);
    cJSON_AddStringToObject(root, "kind", f->kind);
    cJSON_AddStringToObject(root, "case", f->case_name);
    cJSON_AddStringToObject(root, "run_finding", f->finding);
    cJSON_AddBoolToObject(root, "reproduced", o->reproduced);
    cJSON_AddBoolToObject(root, "contract_broken", o->broken);
    cJSON_AddBoolToObject(root, "sampler_failed", o->failed);
    cJSON_AddStringToObject(root, "says", o->says);
    cJSON *notes = cJSON_AddArrayToObject(root, "notes");
    for (int i = 0; i < o->n_notes; i++) /* escaped by the tallies */
        cJSON_AddItemToArray(notes, cJSON_CreateString(o->notes[i]));
    cJSON *batches = cJSON_AddArrayToObject(root, "batches");
    for (int p = 0; p < f->n_parts; p++) {
        const replay_part *pt = &f->parts[p];
        cJSON *b = cJSON_CreateObject();
        cJSON_AddNumberToObject(b, "size", pt->B);
        cJSON_AddStringToObject(b, "layout",
                                pt->layout == SV_LAYOUT_PACKED ? "packed" : "padded");
        char index[32]; /* a 64-bit index, exact: as text (a double holds 53 bits) */
        snprintf(index, sizeof index, "%llu", (unsigned long long)pt->indices[pt->target]);
        cJSON_AddStringToObject(b, "index", index);
        cJSON_AddNumberToObject(b, "place", pt->target);
        cJSON_AddNumberToObject(b, "same_as_run", o->same[p]);
        const size_t at = (size_t)pt->target * (SV_MAX_K + 2);
        cJSON_AddItemToObject(b, "run", row_json(pt->rows + at));
        cJSON_AddItemToObject(b, "again", row_json(o->got[p] + at));
        cJSON_AddItemToArray(batches, b);
    }
    return sv_write_json(root, path);
}
