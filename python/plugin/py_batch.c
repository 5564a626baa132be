/* py_batch.c: one batch in the shared memory the worker reads. Each array
 * is copied once, at a 64-byte boundary, inputs first, then the outputs
 * (with what the harness put there); the request names each one's place
 * and carries the batch's numbers (64-bit ones as decimal strings: JSON's
 * numbers are doubles). After the call the outputs are copied back, and
 * the inputs compared with the harness's: a sampler that wrote into the
 * copy it was handed (torch lets a tensor over read-only memory be
 * written) is told, as a write to its inputs is for a C sampler. Sizes
 * follow the layout: padded rows span (B - 1) strides and one sequence's
 * rows (a stride may be 0: one row set for all), packed rows are cu[B] + B
 * target and cu[B] draft rows. */
#include <stdio.h>
#include <string.h>
#include "py_plugin.h"

/* inputs first (compared after the call), then the outputs; a tree batch
 * (contract version 6) adds its parents and the accepted path's slots, a
 * sampler drawing its own drafts (version 8) its draft uniforms and the
 * drafts' slots */
enum { ROWS_TARGET, ROWS_DRAFT, DRAFT_TOKENS, NUM_DRAFTS, CU, INDICES, SEEDS, SEEDED, TEMPS,
       TOP_KS, TOP_PS, BONUS, PARENTS, DRAFT_UNIFORMS, OUT_TOKENS, OUT_ACCEPTED, OUT_PATH,
       OUT_DRAFTS, N_ARRAYS };
static const char *const names[N_ARRAYS] = {
    "rows_target", "rows_draft", "draft_tokens", "num_drafts", "cu_num_drafts", "indices",
    "seeds", "seeded", "temperatures", "top_ks", "top_ps", "bonus", "parents",
    "draft_uniforms", "out_tokens", "out_accepted", "out_path", "out_drafts"};
/* what a change to each input is called in the sampler's finding */
static const char *const what[N_ARRAYS] = {
    "rows (target row", "rows (draft row", "draft tokens", "draft counts", "draft offsets",
    "sequence indices", "seeds", "seeded flags", "temperatures", "top-k values",
    "top-p values", "bonus tokens", "tree parents", "draft uniforms"};

typedef struct place {
    const void *at;  /* in the harness's memory; NULL: not in this batch */
    size_t bytes, offset;
} place;

/* Where each array lies in the shared memory; the bytes all of it takes. */
static size_t plan(const sv_batch *bt, const int32_t *bonus, place *p)
{
    const size_t B = (size_t)bt->B, K = (size_t)bt->K, V = (size_t)bt->V;
    const int packed = bt->layout == SV_LAYOUT_PACKED && bt->cu_num_drafts;
    const size_t drafted = packed ? (size_t)bt->cu_num_drafts[B] : B * K;
    const size_t elem = sv_input_value_bytes(bt->input);
    const int logits = bt->input != SV_INPUT_PROBS;
    const size_t slots = packed ? drafted + B : B * (K + 1);
    p[ROWS_TARGET] = (place){logits ? bt->target_logits : (const void *)bt->target,
                             (packed ? (drafted + B) * V
                              : B ? (B - 1) * (size_t)bt->target_stride + (K + 1) * V : 0) * elem, 0};
    p[ROWS_DRAFT] = (place){logits ? bt->draft_logits : (const void *)bt->draft,
                            (packed ? drafted * V
                             : B ? (B - 1) * (size_t)bt->draft_stride + K * V : 0) * elem, 0};
    p[DRAFT_TOKENS] = (place){bt->draft_tokens, drafted * sizeof(int32_t), 0};
    p[NUM_DRAFTS] = (place){bt->num_drafts, B * sizeof(int32_t), 0};
    p[CU] = (place){bt->cu_num_drafts, (B + 1) * sizeof(int32_t), 0};
    p[INDICES] = (place){bt->indices, B * sizeof(uint64_t), 0};
    p[SEEDS] = (place){bt->seeds, B * sizeof(uint64_t), 0};
    p[SEEDED] = (place){bt->seeded, B, 0};
    p[TEMPS] = (place){bt->temperatures, B * sizeof(double), 0};
    p[TOP_KS] = (place){bt->top_ks, B * sizeof(int32_t), 0};
    p[TOP_PS] = (place){bt->top_ps, B * sizeof(double), 0};
    p[BONUS] = (place){bonus, B * sizeof(int32_t), 0};
    p[PARENTS] = (place){bt->parents, drafted * sizeof(int32_t), 0};
    p[DRAFT_UNIFORMS] = (place){bt->draft_uniforms, drafted * sizeof(double), 0};
    p[OUT_TOKENS] = (place){bt->out_tokens, slots * sizeof(int32_t), 0};
    p[OUT_ACCEPTED] = (place){bt->out_accepted, B * sizeof(int32_t), 0};
    p[OUT_PATH] = (place){bt->out_path, slots * sizeof(int32_t), 0};
    p[OUT_DRAFTS] = (place){bt->draft_uniforms ? bt->out_drafts : NULL,
                            drafted * sizeof(int32_t), 0};
    size_t at = 0;
    for (int i = 0; i < N_ARRAYS; i++) {
        if (!p[i].at)
            continue;
        p[i].offset = at;
        at += (p[i].bytes + 63) / 64 * 64;
    }
    return at ? at : 64;
}

static void add_u64(cJSON *o, const char *name, uint64_t v)
{
    char text[24];
    snprintf(text, sizeof text, "%llu", (unsigned long long)v);
    cJSON_AddStringToObject(o, name, text);
}

cJSON *sv_py_pack(sv_pyw *w, const sv_batch *bt, const int32_t *bonus, int slot)
{
    place p[N_ARRAYS];
    const size_t total = plan(bt, bonus, p);
    if (sv_pyw_memory(w, total) != 0)
        return NULL;
    cJSON *req = cJSON_CreateObject(), *arrays = cJSON_AddObjectToObject(req, "arrays");
    cJSON_AddStringToObject(req, "op", "call");
    cJSON_AddNumberToObject(req, "slot", slot);
    cJSON_AddNumberToObject(req, "size", (double)w->size);
    cJSON_AddNumberToObject(req, "B", bt->B);
    cJSON_AddNumberToObject(req, "K", bt->K);
    cJSON_AddNumberToObject(req, "V", bt->V);
    cJSON_AddNumberToObject(req, "input", bt->input);
    const int packed = bt->layout == SV_LAYOUT_PACKED && bt->cu_num_drafts;
    cJSON_AddNumberToObject(req, "layout", packed ? SV_LAYOUT_PACKED : SV_LAYOUT_PADDED);
    add_u64(req, "seed", bt->seed);
    add_u64(req, "first_index", bt->first_index);
    cJSON_AddNumberToObject(req, "target_stride", (double)bt->target_stride);
    cJSON_AddNumberToObject(req, "draft_stride", (double)bt->draft_stride);
    cJSON_AddNumberToObject(req, "temperature", bt->temperature);
    cJSON_AddNumberToObject(req, "top_k", bt->top_k);
    cJSON_AddNumberToObject(req, "top_p", bt->top_p);
    cJSON_AddNumberToObject(req, "siblings", bt->siblings);
    for (int i = 0; i < N_ARRAYS; i++) {
        if (!p[i].at) {
            cJSON_AddNullToObject(arrays, names[i]);
            continue;
        }
        memcpy(w->mem + p[i].offset, p[i].at, p[i].bytes);
        cJSON *where = cJSON_AddArrayToObject(arrays, names[i]);
        cJSON_AddItemToArray(where, cJSON_CreateNumber((double)p[i].offset));
        cJSON_AddItemToArray(where, cJSON_CreateNumber((double)p[i].bytes));
    }
    return req;
}

int sv_py_unpack(sv_pyw *w, const sv_batch *bt, const int32_t *bonus, char *said, size_t len)
{
    place p[N_ARRAYS];
    plan(bt, bonus, p);
    memcpy(bt->out_tokens, w->mem + p[OUT_TOKENS].offset, p[OUT_TOKENS].bytes);
    memcpy(bt->out_accepted, w->mem + p[OUT_ACCEPTED].offset, p[OUT_ACCEPTED].bytes);
    if (p[OUT_PATH].at)
        memcpy(bt->out_path, w->mem + p[OUT_PATH].offset, p[OUT_PATH].bytes);
    if (p[OUT_DRAFTS].at)
        memcpy(bt->out_drafts, w->mem + p[OUT_DRAFTS].offset, p[OUT_DRAFTS].bytes);
    for (int i = 0; i < OUT_TOKENS; i++) {
        if (!p[i].at || memcmp(w->mem + p[i].offset, p[i].at, p[i].bytes) == 0)
            continue;
        size_t first = 0; /* the first byte it changed */
        const unsigned char *a = w->mem + p[i].offset, *b = p[i].at;
        while (a[first] == b[first])
            first++;
        if (i == ROWS_TARGET || i == ROWS_DRAFT) {
            const size_t row = first / (sv_input_value_bytes(bt->input) * (size_t)bt->V);
            snprintf(said, len, "modified its input %s %zu of the batch's rows, which are "
                     "read-only)", what[i], row);
        } else {
            snprintf(said, len, "modified its input %s (they are read-only)", what[i]);
        }
        return -1;
    }
    return 0;
}
