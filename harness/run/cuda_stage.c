/* cuda_stage.c: copy host batches to the device and back for CUDA samplers.
 *
 * Fixed-row cases broadcast one row set (stride 0) to every sequence: it is
 * copied once and kept while the host pointer stays the same. Markov cases
 * give every sequence its own rows: they are copied with every batch. A
 * tree's parents go down as the draft tokens do, and its out_path down
 * (poisoned) and back as out_tokens. With device staging (cuda_dstage.c)
 * the drafts are drawn on the device and the outputs checked and counted
 * there, and come back only for a batch the host must count. Every
 * CUDA call is checked and a failure says which call and CUDA's message.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>
#include "cuda_stage.h"
#include "cuda_dstage.h"
#include "sv_run.h"

/* A device buffer that grows to the largest size asked for. */
typedef struct device_buffer {
    void *ptr;
    size_t bytes;
    const void *host_source; /* what a kept copy holds (broadcast rows), or NULL */
} device_buffer;

/* Contract v3's per-sequence arrays, each in a buffer of its own. */
enum { A_NUM_DRAFTS, A_CU, A_INDICES, A_SEEDS, A_SEEDED, A_TEMPERATURES, A_TOP_KS, A_TOP_PS,
       N_ARRAYS };

struct sv_cuda_stage {
    const sv_sampler *inner;
    void *inner_state;
    cudaStream_t stream;
    device_buffer target, draft, tokens, out_tokens, out_accepted, parents, out_path;
    device_buffer arrays[N_ARRAYS];
    /* inputs laid out once for every batch (a mix's rows and arrays): copied
     * to the device at the first batch that points into them, then kept */
    const char *resident_host;
    size_t resident_bytes;
    device_buffer resident;
    int resident_ready;
    const sv_mix *mix; /* the mix the resident rows are laid out for, or NULL */
    int32_t max_B;
    sv_dstage *dev; /* device staging, or NULL */
};

int sv_cuda_device_count(char *why, size_t whylen)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        /* with no NVIDIA driver at all the runtime says "insufficient driver" */
        snprintf(why, whylen, "cudaGetDeviceCount: %s%s", cudaGetErrorString(e),
                 e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice
                     ? " (no usable NVIDIA driver or GPU on this machine)" : "");
        return 0;
    }
    if (n == 0)
        snprintf(why, whylen, "cudaGetDeviceCount found no CUDA device");
    return n;
}

static int stage_error(const char *what, size_t bytes, cudaError_t e)
{
    size_t free_bytes = 0, total = 0;
    if (e == cudaErrorMemoryAllocation && cudaMemGetInfo(&free_bytes, &total) == cudaSuccess)
        fprintf(stderr, "cuda stage: %s (%zu bytes asked, %zu of %zu free): %s\n", what, bytes,
                free_bytes, total, cudaGetErrorString(e));
    else
        fprintf(stderr, "cuda stage: %s: %s (%s)\n", what, cudaGetErrorString(e),
                cudaGetErrorName(e));
    return e == cudaErrorMemoryAllocation ? SV_SAMPLER_ENOMEM : SV_SAMPLER_EDEVICE;
}

/* Makes buf hold at least `bytes`; its contents are lost when it grows. */
static int reserve(device_buffer *buf, size_t bytes, const char *name)
{
    if (bytes <= buf->bytes)
        return SV_SAMPLER_OK;
    cudaFree(buf->ptr);
    buf->ptr = NULL;
    buf->bytes = 0;
    buf->host_source = NULL;
    cudaError_t e = cudaMalloc(&buf->ptr, bytes);
    if (e != cudaSuccess)
        return stage_error(name, bytes, e);
    buf->bytes = bytes;
    return SV_SAMPLER_OK;
}

/* Copies `bytes` from host to buf; a broadcast source already there is kept. */
static int upload(sv_cuda_stage *s, device_buffer *buf, const void *host, size_t bytes,
                  int broadcast, const char *name)
{
    if (broadcast && buf->host_source == host && bytes <= buf->bytes)
        return SV_SAMPLER_OK;
    int rc = reserve(buf, bytes, name);
    if (rc != SV_SAMPLER_OK)
        return rc;
    cudaError_t e = cudaMemcpyAsync(buf->ptr, host, bytes, cudaMemcpyHostToDevice, s->stream);
    if (e != cudaSuccess)
        return stage_error(name, bytes, e);
    buf->host_source = broadcast ? host : NULL;
    return SV_SAMPLER_OK;
}

/* ---- a mix's rows laid out on the device (sv_cuda_stage_use_mix) ---- */

static int on_device(sv_cuda_stage *s, char *to, const char *from, size_t bytes)
{
    cudaError_t e = cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, s->stream);
    return e == cudaSuccess ? SV_SAMPLER_OK : stage_error("laying out the mix's rows", bytes, e);
}

/* n rows from `rows` (or the poisoned row, n times) to `to`. */
static int rows_to(sv_cuda_stage *s, char *to, const char *rows, const char *poison, size_t n,
                   size_t row)
{
    int rc = SV_SAMPLER_OK;
    if (rows)
        return n ? on_device(s, to, rows, n * row) : SV_SAMPLER_OK;
    for (size_t k = 0; k < n && rc == SV_SAMPLER_OK; k++)
        rc = on_device(s, to + k * row, poison, row);
    return rc;
}

/* One layout's period as mix_rows.c lays it out, at `at` on the device,
 * from the cases' rows there (cases[i]: target rows, then draft rows), then
 * its aliased copies after it, each part copied from the first. */
static int lay_out_layout(sv_cuda_stage *s, int32_t layout, char *at, char *const *cases,
                          const char *poison)
{
    const sv_mix *m = s->mix;
    const size_t row = (size_t)m->V * sv_input_value_bytes(m->input), K = (size_t)m->K;
    const int packed = layout == SV_LAYOUT_PACKED;
    char *target = at, *draft = at + sv_mix_draft_rows_offset(m, layout);
    int rc = SV_SAMPLER_OK;
    for (int32_t sl = 0; sl < m->period && rc == SV_SAMPLER_OK; sl++) {
        const size_t d = (size_t)m->drafts[sl], cK = (size_t)m->cases[m->case_of[sl]]->K;
        const char *c = cases[m->case_of[sl]];
        char *t = target + (packed ? (size_t)m->cu[sl] + (size_t)sl : (size_t)sl * (K + 1)) * row;
        rc = rows_to(s, t, c, NULL, d + 1, row);
        if (rc == SV_SAMPLER_OK && !packed)
            rc = rows_to(s, t + (d + 1) * row, NULL, poison, K - d, row);
        if (!m->draft_probs || rc != SV_SAMPLER_OK)
            continue;
        char *q = draft + (packed ? (size_t)m->cu[sl] : (size_t)sl * K) * row;
        rc = rows_to(s, q, c + (cK + 1) * row, NULL, d, row);
        if (rc == SV_SAMPLER_OK && !packed)
            rc = rows_to(s, q + d * row, NULL, poison, K - d, row);
    }
    const size_t part[2] = {sv_mix_target_bytes(m, layout), sv_mix_draft_bytes(m, layout)};
    char *first[2] = {target, draft};
    for (int p = 0; p < 2; p++)
        for (int32_t c = 1; part[p] && c < m->copies && rc == SV_SAMPLER_OK; c++)
            rc = on_device(s, first[p] + (size_t)c * part[p], first[p], part[p]);
    return rc;
}

/* Each case's rows (K + 1 target rows, K draft rows: as the case gives
 * them, in logits or probabilities) copied to the device once. */
static int copy_cases(sv_cuda_stage *s, device_buffer *rows, char **at)
{
    const sv_mix *m = s->mix;
    const size_t size = sv_input_value_bytes(m->input), V = (size_t)m->V;
    size_t bytes = V * size; /* the poisoned row first */
    for (int32_t i = 0; i < m->n_cases; i++)
        bytes += (2 * (size_t)m->cases[i]->K + 1) * V * size;
    int rc = reserve(rows, bytes, "the mix's case rows");
    char *poison = calloc(V + 1, size); /* V + 1: never an allocation of 0 bytes */
    if (rc == SV_SAMPLER_OK && !poison)
        rc = SV_SAMPLER_ENOMEM;
    for (size_t i = 0; poison && i < V; i++) { /* as mix_rows.c poisons them */
        if (m->input == SV_INPUT_LOGITS_BF16)
            ((uint16_t *)(void *)poison)[i] = 0x7fc0;
        else
            ((float *)(void *)poison)[i] = NAN;
    }
    cudaError_t e = cudaSuccess;
    if (rc == SV_SAMPLER_OK)
        e = cudaMemcpyAsync(rows->ptr, poison, V * size, cudaMemcpyHostToDevice, s->stream);
    size_t off = V * size;
    for (int32_t i = 0; i < m->n_cases && rc == SV_SAMPLER_OK && e == cudaSuccess; i++) {
        const sv_case *c = m->cases[i];
        const size_t K = (size_t)c->K, target = (K + 1) * V * size, draft = K * V * size;
        char *to = (char *)rows->ptr + off;
        at[i] = to;
        if (c->input != SV_INPUT_PROBS) /* target logits, then draft logits */
            e = cudaMemcpyAsync(to, c->input_logits, target + draft, cudaMemcpyHostToDevice,
                                s->stream);
        else {
            e = cudaMemcpyAsync(to, c->target, target, cudaMemcpyHostToDevice, s->stream);
            if (e == cudaSuccess && m->draft_probs)
                e = cudaMemcpyAsync(to + target, c->draft, draft, cudaMemcpyHostToDevice,
                                    s->stream);
        }
        off += target + draft;
    }
    /* the poisoned row must stay readable until the copies are done */
    if (e == cudaSuccess && rc == SV_SAMPLER_OK)
        e = cudaStreamSynchronize(s->stream);
    free(poison);
    if (e != cudaSuccess)
        return stage_error("copying the mix's case rows", bytes, e);
    return rc;
}

/* The resident inputs of a mix on the device: each case's rows copied once,
 * every layout's slots laid out from them there, then the per-slot arrays
 * (a few bytes a slot) copied as the host wrote them. */
static int lay_out_mix(sv_cuda_stage *s)
{
    const sv_mix *m = s->mix;
    device_buffer rows = {0};
    char **cases = calloc((size_t)m->n_cases, sizeof *cases);
    int rc = cases ? reserve(&s->resident, s->resident_bytes, "the laid-out rows")
                   : SV_SAMPLER_ENOMEM;
    if (rc == SV_SAMPLER_OK)
        rc = copy_cases(s, &rows, cases);
    size_t at = 0;
    for (int32_t i = 0; i < m->n_layouts && rc == SV_SAMPLER_OK; i++) {
        const char *poison = rows.ptr;
        rc = lay_out_layout(s, m->layout_list[i], (char *)s->resident.ptr + at, cases, poison);
        at += sv_mix_layout_span_bytes(m, m->layout_list[i]);
    }
    if (rc == SV_SAMPLER_OK && at < s->resident_bytes) {
        cudaError_t e = cudaMemcpyAsync((char *)s->resident.ptr + at, s->resident_host + at,
                                        s->resident_bytes - at, cudaMemcpyHostToDevice,
                                        s->stream);
        rc = e == cudaSuccess ? SV_SAMPLER_OK
                              : stage_error("copying the mix's arrays", s->resident_bytes - at, e);
    }
    /* the case rows are freed once the layout from them is done */
    if (rc == SV_SAMPLER_OK) {
        cudaError_t e = cudaStreamSynchronize(s->stream);
        rc = e == cudaSuccess ? SV_SAMPLER_OK : stage_error("laying out the mix's rows", 0, e);
    }
    cudaFree(rows.ptr);
    free(cases);
    return rc;
}

void sv_cuda_stage_use_mix(sv_cuda_stage *s, const sv_mix *m)
{
    s->mix = m;
}

/* Where `bytes` at host live on the device: in the resident copy when they
 * lie in it, else copied into buf (kept when broadcast and unchanged). */
static int place(sv_cuda_stage *s, device_buffer *buf, const void *host, size_t bytes,
                 int broadcast, const char *name, const void **dev)
{
    *dev = NULL;
    if (!host || bytes == 0)
        return SV_SAMPLER_OK;
    const char *h = host;
    if (s->resident_host && h >= s->resident_host &&
        h + bytes <= s->resident_host + s->resident_bytes) {
        if (!s->resident_ready) {
            int rc = s->mix ? lay_out_mix(s)
                            : upload(s, &s->resident, s->resident_host, s->resident_bytes, 0,
                                     "copying the laid-out rows");
            if (rc != SV_SAMPLER_OK)
                return rc;
            s->resident_ready = 1;
        }
        *dev = (const char *)s->resident.ptr + (h - s->resident_host);
        return SV_SAMPLER_OK;
    }
    int rc = upload(s, buf, host, bytes, broadcast, name);
    *dev = buf->ptr;
    return rc;
}

void sv_cuda_stage_free(sv_cuda_stage *s)
{
    if (!s)
        return;
    sv_dstage_close(s->dev); /* its counts back before the stream goes */
    if (s->inner_state)
        s->inner->destroy(s->inner_state);
    device_buffer *bufs[] = {&s->target, &s->draft,    &s->tokens,  &s->out_tokens,
                             &s->out_accepted, &s->parents, &s->out_path, &s->resident};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        cudaFree(bufs[i]->ptr);
    for (int i = 0; i < N_ARRAYS; i++)
        cudaFree(s->arrays[i].ptr);
    if (s->stream)
        cudaStreamDestroy(s->stream);
    free(s);
}

int sv_cuda_stage_init(const sv_sampler *inner, const sv_limits *limits, const void *resident,
                       size_t resident_bytes, sv_cuda_stage **out, char *err, size_t errlen)
{
    *out = NULL;
    sv_cuda_stage *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of host memory for a CUDA stage");
        return SV_SAMPLER_ENOMEM;
    }
    s->inner = inner;
    s->max_B = limits->max_B;
    s->resident_host = resident;
    s->resident_bytes = resident ? resident_bytes : 0;
    cudaError_t e = cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking);
    if (e != cudaSuccess) {
        snprintf(err, errlen, "cudaStreamCreate: %s", cudaGetErrorString(e));
        free(s);
        return SV_SAMPLER_EDEVICE;
    }
    int rc = inner->init(&s->inner_state, limits);
    if (rc != SV_SAMPLER_OK) {
        snprintf(err, errlen, "sampler %s: init failed with status %d", inner->name, rc);
        s->inner_state = NULL;
        sv_cuda_stage_free(s);
        return rc;
    }
    *out = s;
    return SV_SAMPLER_OK;
}

/* The batch's per-sequence arrays on the device, into db. */
static int place_arrays(sv_cuda_stage *s, const sv_batch *hb, sv_batch *db)
{
    const size_t B = (size_t)hb->B;
    struct {
        const void *host;
        size_t bytes;
        const void **dev;
    } a[N_ARRAYS] = {
        {hb->num_drafts, B * sizeof(int32_t), (const void **)&db->num_drafts},
        {hb->cu_num_drafts, (B + 1) * sizeof(int32_t), (const void **)&db->cu_num_drafts},
        {hb->indices, B * sizeof(uint64_t), (const void **)&db->indices},
        {hb->seeds, B * sizeof(uint64_t), (const void **)&db->seeds},
        {hb->seeded, B, (const void **)&db->seeded},
        {hb->temperatures, B * sizeof(double), (const void **)&db->temperatures},
        {hb->top_ks, B * sizeof(int32_t), (const void **)&db->top_ks},
        {hb->top_ps, B * sizeof(double), (const void **)&db->top_ps},
    };
    for (int i = 0; i < N_ARRAYS; i++) {
        int rc = place(s, &s->arrays[i], a[i].host, a[i].bytes, 0, "copying per-sequence arrays",
                       a[i].dev);
        if (rc != SV_SAMPLER_OK)
            return rc;
    }
    return SV_SAMPLER_OK;
}

int sv_cuda_stage_verify(sv_cuda_stage *s, const sv_batch *hb)
{
    const size_t B = (size_t)hb->B, K = (size_t)hb->K, V = (size_t)hb->V;
    if (B == 0)
        return SV_SAMPLER_OK;
    /* the rows: probabilities, or logits (float or bfloat16) in a logits mode */
    const int logits = hb->input != SV_INPUT_PROBS;
    const size_t elem = sv_input_value_bytes(hb->input);
    const void *target = logits ? hb->target_logits : hb->target;
    const void *draft = logits ? hb->draft_logits : hb->draft;
    const int packed = hb->layout == SV_LAYOUT_PACKED && hb->cu_num_drafts;
    const size_t drafted = packed ? (size_t)hb->cu_num_drafts[B] : B * K;
    /* padded rows span (B - 1) strides plus one row set (a stride of 0: one
     * row set); packed rows are d_b + 1 target and d_b draft rows each */
    const size_t target_elems = packed ? (drafted + B) * V
                                       : (B - 1) * (size_t)hb->target_stride + (K + 1) * V;
    const size_t draft_elems = !draft ? 0
                               : packed ? drafted * V
                                        : (B - 1) * (size_t)hb->draft_stride + K * V;
    const size_t slots = packed ? drafted + B : B * (K + 1);
    sv_batch db = *hb;
    const void *dt = NULL, *dd = NULL, *dx = NULL;
    int rc = place(s, &s->target, target, target_elems * elem, hb->target_stride == 0 && !packed,
                   "copying target rows", &dt);
    if (rc == SV_SAMPLER_OK)
        rc = place(s, &s->draft, draft, draft_elems * elem, hb->draft_stride == 0 && !packed,
                   "copying draft rows", &dd);
    if (rc == SV_SAMPLER_OK && s->dev)
        rc = sv_dstage_drafts(s->dev, hb, (const int32_t **)&dx);
    else if (rc == SV_SAMPLER_OK && drafted > 0)
        rc = place(s, &s->tokens, hb->draft_tokens, drafted * sizeof(int32_t), 0,
                   "copying draft tokens", &dx);
    /* the outputs go down too: the runner poisoned them, and a sampler that
     * leaves one unwritten must be seen, not given the last batch's value */
    if (rc == SV_SAMPLER_OK)
        rc = upload(s, &s->out_tokens, hb->out_tokens, slots * sizeof(int32_t), 0,
                    "copying poisoned output tokens");
    if (rc == SV_SAMPLER_OK)
        rc = upload(s, &s->out_accepted, hb->out_accepted, B * sizeof(int32_t), 0,
                    "copying poisoned accepted counts");
    const void *dp = NULL; /* a tree's (contract version 6) */
    if (rc == SV_SAMPLER_OK && hb->parents && drafted > 0)
        rc = place(s, &s->parents, hb->parents, drafted * sizeof(int32_t), 0,
                   "copying the tree's parents", &dp);
    else if (rc == SV_SAMPLER_OK && hb->parents) /* trees of no nodes: a pointer all the same */
        rc = reserve(&s->parents, sizeof(int32_t), "the tree's parents");
    if (rc == SV_SAMPLER_OK && hb->out_path)
        rc = upload(s, &s->out_path, hb->out_path, slots * sizeof(int32_t), 0,
                    "copying the poisoned path");
    if (rc == SV_SAMPLER_OK)
        rc = place_arrays(s, hb, &db);
    if (rc != SV_SAMPLER_OK)
        return rc;

    if (logits) {
        db.target_logits = dt;
        db.draft_logits = dd;
    } else {
        db.target = dt;
        db.draft = dd;
    }
    db.draft_tokens = dx ? dx : s->tokens.ptr;
    db.out_tokens = s->out_tokens.ptr;
    db.out_accepted = s->out_accepted.ptr;
    db.parents = hb->parents ? (dp ? dp : s->parents.ptr) : NULL;
    db.out_path = hb->out_path ? s->out_path.ptr : NULL;
    db.stream = s->stream;

    rc = s->inner->verify(s->inner_state, &db);
    if (rc != SV_SAMPLER_OK)
        return rc;
    if (s->dev) { /* checked and counted there: the outputs come back only to be counted here */
        rc = sv_dstage_finish(s->dev, hb->B, db.out_tokens, db.out_accepted);
        if (rc != SV_SAMPLER_OK || !sv_dstage_fallback(s->dev))
            return rc;
    }
    cudaError_t e = cudaMemcpyAsync(hb->out_tokens, db.out_tokens, slots * sizeof(int32_t),
                                    cudaMemcpyDeviceToHost, s->stream);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(hb->out_accepted, db.out_accepted, B * sizeof(int32_t),
                            cudaMemcpyDeviceToHost, s->stream);
    if (e == cudaSuccess && hb->out_path)
        e = cudaMemcpyAsync(hb->out_path, db.out_path, slots * sizeof(int32_t),
                            cudaMemcpyDeviceToHost, s->stream);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(s->stream);
    if (e != cudaSuccess)
        return stage_error("copying outputs back", 0, e);
    return SV_SAMPLER_OK;
}

int sv_cuda_stage_use_device(sv_cuda_stage *s, sv_staging_slot *slot, char *err, size_t errlen)
{
    if (s->dev)
        return SV_SAMPLER_OK;
    return sv_dstage_open(slot, s->mix, s->max_B, s->stream, &s->dev, err, errlen);
}

int sv_cuda_stage_read_drafts(const sv_cuda_stage *s, int32_t B, int32_t *out)
{
    return s->dev ? sv_dstage_read_drafts(s->dev, B, out) : SV_SAMPLER_EINVAL;
}
