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
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>
#include "cuda_stage.h"
#include "cuda_dstage.h"

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
            int rc = upload(s, &s->resident, s->resident_host, s->resident_bytes, 0,
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
    return sv_dstage_open(slot, s->max_B, s->stream, &s->dev, err, errlen);
}

int sv_cuda_stage_read_drafts(const sv_cuda_stage *s, int32_t B, int32_t *out)
{
    return s->dev ? sv_dstage_read_drafts(s->dev, B, out) : SV_SAMPLER_EINVAL;
}
