/* py_batch.c: one batch as the Python glue reads it: its numbers, and
 * memoryviews of its arrays over the harness's own memory (no copies; the
 * inputs read-only, as the harness maps them). Sizes follow the layout:
 * padded rows span (B - 1) strides and one sequence's rows (a stride may be
 * 0: one row set for all), packed rows are cu[B] + B target and cu[B]
 * draft rows. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>
#include "py_plugin.h"

static PyObject *view(const void *p, size_t bytes, int writable)
{
    if (!p)
        Py_RETURN_NONE;
    char *bytes_at;
    memcpy(&bytes_at, &p, sizeof bytes_at); /* a view of const memory, read-only below */
    return PyMemoryView_FromMemory(bytes_at, (Py_ssize_t)bytes,
                                   writable ? PyBUF_WRITE : PyBUF_READ);
}

PyObject *sv_py_batch(const sv_batch *bt, const int32_t *bonus)
{
    const size_t B = (size_t)bt->B, K = (size_t)bt->K, V = (size_t)bt->V;
    const int packed = bt->layout == SV_LAYOUT_PACKED && bt->cu_num_drafts;
    const size_t drafted = packed ? (size_t)bt->cu_num_drafts[B] : B * K;
    const size_t elem = sv_input_value_bytes(bt->input);
    const size_t target_rows = packed ? (drafted + B) * V
                               : B ? (B - 1) * (size_t)bt->target_stride + (K + 1) * V : 0;
    const size_t draft_rows = packed ? drafted * V
                              : B ? (B - 1) * (size_t)bt->draft_stride + K * V : 0;
    const size_t slots = packed ? drafted + B : B * (K + 1);
    const int logits = bt->input != SV_INPUT_PROBS;
    const void *target = logits ? bt->target_logits : (const void *)bt->target;
    const void *draft = logits ? bt->draft_logits : (const void *)bt->draft;
    return Py_BuildValue(
        "(iiiiiKKLLdid" "NNNNN" "NNNNNNNNN)", bt->B, bt->K, bt->V, bt->input,
        packed ? SV_LAYOUT_PACKED : SV_LAYOUT_PADDED, (unsigned long long)bt->seed,
        (unsigned long long)bt->first_index, (long long)bt->target_stride,
        (long long)bt->draft_stride, bt->temperature, bt->top_k, bt->top_p,
        view(target, target_rows * elem, 0), view(draft, draft_rows * elem, 0),
        view(bt->draft_tokens, drafted * sizeof(int32_t), 0),
        view(bt->out_tokens, slots * sizeof(int32_t), 1),
        view(bt->out_accepted, B * sizeof(int32_t), 1),
        view(bt->num_drafts, B * sizeof(int32_t), 0),
        view(bt->cu_num_drafts, (B + 1) * sizeof(int32_t), 0),
        view(bt->indices, B * sizeof(uint64_t), 0), view(bt->seeds, B * sizeof(uint64_t), 0),
        view(bt->seeded, B, 0), view(bt->temperatures, B * sizeof(double), 0),
        view(bt->top_ks, B * sizeof(int32_t), 0), view(bt->top_ps, B * sizeof(double), 0),
        view(bonus, B * sizeof(int32_t), 0));
}
