/* bench_device.c: the device, and one timed point, with CUDA events.
 *
 * A point is timed launch by launch: events around the enqueue (or the graph
 * launch), a wait after each, so the GPU's idle time between launches is
 * never counted. For the built-in CUDA samplers (a launch without a wait) a
 * hold kernel keeps the stream waiting until the start event, the launch and
 * the stop event are all queued: the events then time the GPU's work, not
 * the host's launch latency. A graph holds GRAPH_STEPS steps back to back
 * and its time is reported per step, as a decode loop that replays graphs
 * sees it. Warm-up first; then repetitions until the median's relative
 * standard error (1.2533 sd / sqrt(n) / median, sd from the IQR) is below
 * the target, or the time limit. Cold numbers rotate through copies of the
 * inputs (sv_bench_cold_copies): between two uses of one copy the others'
 * launches read at least twice the L2, so its rows come from DRAM; a graph
 * then holds GRAPH_STEPS steps on successive copies, one graph per
 * GRAPH_STEPS copies. Only the draft tokens (B x K ints) are not rotated.
 * Every CUDA call is
 * checked; a failure names the call and CUDA's message. In a logits mode
 * the device holds the logit rows (no probability rows) and the floor is
 * every row once.
 */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sv_bench.h"
#include "sv_base.h"
#include "sv_registry.h"
#include "sv_cuda_enqueue.h"
#include "sv_cuda_kernels.h"

#define CHECK_CUDA(call)                                                                 \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) {                                                         \
            rc = sv_fail(SV_EENV, "bench: %s: %s (%s)", #call, cudaGetErrorString(e_),   \
                         cudaGetErrorName(e_));                                          \
            goto done;                                                                   \
        }                                                                                \
    } while (0)

int sv_bench_device_query(sv_bench_device *d)
{
    int rc = SV_OK, dev = 0, count = 0, mhz = 0;
    void *a = NULL, *b = NULL;
    cudaEvent_t start = NULL, stop = NULL;
    memset(d, 0, sizeof *d);
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0)
        return sv_fail(SV_EENV, "bench needs a CUDA device: %s",
                       e != cudaSuccess ? cudaGetErrorString(e) : "none found");
    struct cudaDeviceProp prop;
    CHECK_CUDA(cudaGetDevice(&dev));
    CHECK_CUDA(cudaGetDeviceProperties(&prop, dev));
    snprintf(d->name, sizeof d->name, "%s", prop.name);
    d->sm_count = prop.multiProcessorCount;
    d->memory_bytes = (double)prop.totalGlobalMem;
    d->l2_bytes = (double)prop.l2CacheSize;
    CHECK_CUDA(cudaDeviceGetAttribute(&mhz, cudaDevAttrClockRate, dev));
    d->clock_mhz = mhz / 1000;
    CHECK_CUDA(cudaDeviceGetAttribute(&mhz, cudaDevAttrMemoryClockRate, dev));
    d->memory_clock_mhz = mhz / 1000;
    CHECK_CUDA(cudaDeviceGetAttribute(&d->bus_width_bits, cudaDevAttrGlobalMemoryBusWidth, dev));
    d->peak_gbps = 2.0 * (double)mhz * 1e3 * d->bus_width_bits / 8.0 / 1e9;
    CHECK_CUDA(cudaDriverGetVersion(&d->driver_version));
    CHECK_CUDA(cudaRuntimeGetVersion(&d->runtime_version));

    /* copy bandwidth: 256 MiB device to device, best of 10, read + write */
    const size_t bytes = (size_t)256 << 20;
    CHECK_CUDA(cudaMalloc(&a, bytes));
    CHECK_CUDA(cudaMalloc(&b, bytes));
    CHECK_CUDA(cudaMemset(a, 1, bytes));
    CHECK_CUDA(cudaEventCreate(&start));
    CHECK_CUDA(cudaEventCreate(&stop));
    float best_ms = INFINITY;
    for (int i = 0; i < 11; i++) {
        float ms = 0.0f;
        CHECK_CUDA(cudaEventRecord(start, 0));
        CHECK_CUDA(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, 0));
        CHECK_CUDA(cudaEventRecord(stop, 0));
        CHECK_CUDA(cudaEventSynchronize(stop));
        CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
        if (i > 0 && ms < best_ms) /* the first is a warm-up */
            best_ms = ms;
    }
    d->copy_gbps = 2.0 * (double)bytes / (best_ms * 1e-3) / 1e9;
done:
    cudaFree(a);
    cudaFree(b);
    if (start)
        cudaEventDestroy(start);
    if (stop)
        cudaEventDestroy(stop);
    return rc;
}

/* cudaMalloc that says, when it fails, how much was asked and how much is free. */
static int device_alloc(void **ptr, size_t bytes, const char *what)
{
    cudaError_t e = cudaMalloc(ptr, bytes);
    if (e == cudaSuccess)
        return SV_OK;
    size_t free_bytes = 0, total = 0;
    cudaMemGetInfo(&free_bytes, &total);
    return sv_fail(SV_EENV, "bench: cannot allocate %s: %zu bytes asked, %zu of %zu free (%s)",
                   what, bytes, free_bytes, total, cudaGetErrorString(e));
}

#define GRAPH_STEPS 8
#define HOLD_MAX_CYCLES (4LL << 30) /* about 2 s: a host that never says go */

static int compare_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* The q-quantile of sorted t[0..n), interpolated. */
static double quantile(const double *t, int64_t n, double q)
{
    double pos = q * (double)(n - 1);
    int64_t lo = (int64_t)floor(pos);
    int64_t hi = lo + 1 < n ? lo + 1 : lo;
    return t[lo] + (pos - (double)lo) * (t[hi] - t[lo]);
}

/* The median's relative standard error from sorted times. */
static double median_noise(const double *t, int64_t n)
{
    double med = quantile(t, n, 0.5), iqr = quantile(t, n, 0.75) - quantile(t, n, 0.25);
    return 1.2533 * (iqr / 1.349) / sqrt((double)n) / med;
}

/* Points the batch at copy c of the inputs (copies NULL: the only one). */
static void use_copy(sv_batch *bt, void *const *copies, int64_t c)
{
    if (!copies)
        return;
    void *target = copies[2 * c], *draft = copies[2 * c + 1];
    if (bt->input != SV_INPUT_PROBS) {
        bt->target_logits = target;
        bt->draft_logits = draft;
    } else {
        bt->target = target;
        bt->draft = draft;
    }
}

int sv_bench_run_point(const sv_bench_options *opt, const sv_sampler *s, const sv_bench_input *in,
                       sv_bench_point *out)
{
    const int32_t B = in->B, K = in->K, V = in->V;
    const int logits = in->input != SV_INPUT_PROBS;
    const size_t value = (size_t)sv_bench_value_bytes(in->input); /* bytes per row entry */
    const size_t tbytes = (size_t)B * (K + 1) * V * value;
    const size_t dbytes = (size_t)B * K * V * value;
    int rc = SV_OK;
    void *state = NULL;
    void *d_target = NULL, *d_draft = NULL; /* copy 0 of the inputs */
    void **copies = NULL;                   /* cold: [2 * n_copies] target, draft */
    int64_t n_copies = 1, n_graphs = 0, graph_slots = 0; /* graphs made, allocated */
    int32_t *d_tokens = NULL, *d_out = NULL, *d_acc = NULL, *h_acc = NULL;
    uint64_t *d_rng = NULL;
    double *times = NULL;
    cudaStream_t stream = NULL;
    cudaEvent_t start = NULL, stop = NULL;
    cudaGraph_t *graphs = NULL;
    cudaGraphExec_t *execs = NULL;
    volatile int *hold_go = NULL, *hold_timed_out = NULL; /* mapped host memory */
    int *d_hold_go = NULL, *d_hold_timed_out = NULL;

    memset(out, 0, sizeof *out);
    snprintf(out->sampler, sizeof out->sampler, "%s", s->name);
    out->B = B, out->K = K, out->V = V;
    out->accept_target = in->accept, out->cold = opt->cold, out->graph = opt->graph;
    out->input = in->input;
    if (logits && !(s->inputs & SV_INPUT_BIT(in->input)))
        return sv_fail(SV_EBAD, "bench --input %s: sampler %s does not take that input",
                       sv_input_name(in->input), s->name);
    sv_cuda_enqueue_fn enqueue = sv_cuda_enqueue_for(s);
    out->through_verify = enqueue == NULL;
    if (opt->graph && !enqueue)
        return sv_fail(SV_EBAD, "bench --graph: sampler %s has no launch without a wait to "
                       "capture (only the built-in CUDA samplers do); leave out --graph",
                       s->name);

    CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK_CUDA(cudaEventCreate(&start));
    CHECK_CUDA(cudaEventCreate(&stop));
    if (rc == SV_OK)
        rc = device_alloc(&d_target, tbytes, "target rows");
    if (rc == SV_OK)
        rc = device_alloc(&d_draft, dbytes ? dbytes : 4, "draft rows");
    if (rc == SV_OK)
        rc = device_alloc((void **)&d_tokens, (size_t)B * (K ? K : 1) * sizeof(int32_t), "draft tokens");
    if (rc == SV_OK)
        rc = device_alloc((void **)&d_out, (size_t)B * (K + 1) * sizeof(int32_t), "output tokens");
    if (rc == SV_OK)
        rc = device_alloc((void **)&d_acc, (size_t)B * sizeof(int32_t), "accepted counts");
    if (rc == SV_OK)
        rc = device_alloc((void **)&d_rng, 2 * sizeof(uint64_t), "the seed");
    if (rc != SV_OK)
        goto done;
    /* Every copy goes on `stream`, ahead of the launches that read it. A
     * plain cudaMemcpy runs on the legacy stream, which a non-blocking
     * stream does not wait for, and may return before its data has landed
     * (from pageable memory, or device to device). */
    const enum cudaMemcpyKind up = cudaMemcpyHostToDevice;
    CHECK_CUDA(cudaMemcpyAsync(d_target, logits ? in->target_logits : (const void *)in->target,
                               tbytes, up, stream));
    if (dbytes)
        CHECK_CUDA(cudaMemcpyAsync(d_draft, logits ? in->draft_logits : (const void *)in->draft,
                                   dbytes, up, stream));
    CHECK_CUDA(cudaMemcpyAsync(d_tokens, in->draft_tokens, (size_t)B * K * sizeof(int32_t), up,
                               stream));
    const uint64_t rng_host[2] = {1, 0};
    CHECK_CUDA(cudaMemcpyAsync(d_rng, rng_host, sizeof rng_host, up, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream)); /* uploads done (and their errors seen) here */

    if (enqueue && !opt->no_hold) {
        CHECK_CUDA(cudaHostAlloc((void **)&hold_go, 2 * sizeof(int), cudaHostAllocMapped));
        hold_timed_out = hold_go + 1;
        hold_go[0] = 0, hold_timed_out[0] = 0;
        CHECK_CUDA(cudaHostGetDevicePointer((void **)&d_hold_go, (void *)hold_go, 0));
        d_hold_timed_out = d_hold_go + 1;
    }

    sv_limits limits = {B, K, V, NULL, 0};
    int src = s->init(&state, &limits);
    if (src != SV_SAMPLER_OK) {
        state = NULL;
        rc = sv_fail(SV_EVERIFY, "bench: sampler %s: init failed with status %d", s->name, src);
        goto done;
    }
    sv_batch bt = {.B = B, .K = K, .V = V,
                   .target = logits ? NULL : d_target, .target_stride = (int64_t)(K + 1) * V,
                   .draft = logits ? NULL : d_draft, .draft_stride = (int64_t)K * V,
                   .draft_tokens = d_tokens, .seed = 1, .first_index = 0, .out_tokens = d_out,
                   .out_accepted = d_acc, .stream = stream};
    if (logits) {
        bt.input = in->input;
        bt.target_logits = d_target;
        bt.draft_logits = d_draft;
        bt.temperature = in->T;
        bt.top_k = in->top_k;
        bt.top_p = in->top_p;
    }

    /* one checked run through the contract: status, and the acceptance achieved */
    src = s->verify(state, &bt);
    if (src != SV_SAMPLER_OK) {
        rc = sv_fail(SV_EVERIFY, "bench: sampler %s: verify returned status %d on B=%d, K=%d, "
                     "V=%d", s->name, src, B, K, V);
        goto done;
    }
    h_acc = malloc((size_t)B * sizeof(int32_t));
    if (!h_acc) {
        rc = sv_fail(SV_EENV, "bench: out of host memory");
        goto done;
    }
    CHECK_CUDA(cudaMemcpyAsync(h_acc, d_acc, (size_t)B * sizeof(int32_t), cudaMemcpyDeviceToHost,
                               stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    out->accept_measured = sv_bench_accept_rate(B, K, h_acc);
    out->floor_bytes = logits ? sv_bench_floor_bytes_logits(B, K, V, (int)value)
                              : sv_bench_floor_bytes(B, K, V, h_acc);

    if (opt->cold) { /* the copies to rotate through, copy 0 being the one above */
        int dev = 0, l2 = 0;
        size_t free_bytes = 0, total = 0;
        CHECK_CUDA(cudaGetDevice(&dev));
        CHECK_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
        CHECK_CUDA(cudaMemGetInfo(&free_bytes, &total));
        n_copies = sv_bench_cold_copies(out->floor_bytes, (double)l2);
        const double need = (double)(n_copies - 1) * (double)(tbytes + dbytes);
        if (need > 0.5 * (double)free_bytes) {
            rc = sv_fail(SV_EENV, "bench --cold: B=%d, K=%d, V=%d rotates through %lld copies of "
                         "its inputs (%zu bytes each) so that twice the L2 (%d bytes) is read "
                         "between two uses of one; the %.0f bytes more would take over half "
                         "the %zu bytes free: use --hot, or a smaller point",
                         B, K, V, (long long)n_copies, tbytes + dbytes, l2, need, free_bytes);
            goto done;
        }
        copies = calloc((size_t)(2 * n_copies), sizeof *copies);
        if (!copies) {
            rc = sv_fail(SV_EENV, "bench: out of host memory");
            goto done;
        }
        copies[0] = d_target, copies[1] = d_draft;
        for (int64_t c = 1; c < n_copies && rc == SV_OK; c++) {
            rc = device_alloc(&copies[2 * c], tbytes, "a cold copy of the target rows");
            if (rc == SV_OK)
                rc = device_alloc(&copies[2 * c + 1], dbytes ? dbytes : 4,
                                  "a cold copy of the draft rows");
            if (rc != SV_OK)
                goto done;
            CHECK_CUDA(cudaMemcpyAsync(copies[2 * c], d_target, tbytes, cudaMemcpyDeviceToDevice,
                                       stream));
            if (dbytes)
                CHECK_CUDA(cudaMemcpyAsync(copies[2 * c + 1], d_draft, dbytes,
                                           cudaMemcpyDeviceToDevice, stream));
        }
        CHECK_CUDA(cudaStreamSynchronize(stream)); /* the copies are not part of any timing */
    }
    out->cold_copies = n_copies;

    if (opt->graph) { /* cold: graph g holds steps on copies g * GRAPH_STEPS + step */
        graph_slots = (n_copies + GRAPH_STEPS - 1) / GRAPH_STEPS;
        graphs = calloc((size_t)graph_slots, sizeof *graphs);
        execs = calloc((size_t)graph_slots, sizeof *execs);
        if (!graphs || !execs) {
            rc = sv_fail(SV_EENV, "bench: out of host memory");
            goto done;
        }
        for (; n_graphs < graph_slots; n_graphs++) {
            CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
            for (int step = 0; step < GRAPH_STEPS && src == SV_SAMPLER_OK; step++) {
                use_copy(&bt, copies, (n_graphs * GRAPH_STEPS + step) % n_copies);
                src = enqueue(state, &bt, d_rng);
            }
            cudaError_t end = cudaStreamEndCapture(stream, &graphs[n_graphs]);
            if (src != SV_SAMPLER_OK) {
                rc = sv_fail(SV_EVERIFY, "bench: sampler %s: launch failed in graph capture",
                             s->name);
                goto done;
            }
            CHECK_CUDA(end);
            CHECK_CUDA(cudaGraphInstantiate(&execs[n_graphs], graphs[n_graphs], 0));
        }
    }

    const int64_t max_reps = 1000000;
    times = malloc((size_t)max_reps * sizeof(double));
    if (!times) {
        rc = sv_fail(SV_EENV, "bench: out of host memory for timings");
        goto done;
    }
    double spent = 0.0, started = sv_now();
    int64_t n = 0;
    for (int64_t rep = -10; n < max_reps; rep++) { /* ten warm-up launches first */
        if (hold_go) {
            hold_go[0] = 0;
            CHECK_CUDA((cudaError_t)sv_bench_hold_launch(d_hold_go, HOLD_MAX_CYCLES,
                                                         d_hold_timed_out, stream));
        }
        const int64_t turn = rep + 10; /* from 0 */
        CHECK_CUDA(cudaEventRecord(start, stream));
        if (n_graphs > 0) {
            CHECK_CUDA(cudaGraphLaunch(execs[turn % n_graphs], stream));
        } else {
            use_copy(&bt, copies, turn % n_copies);
            src = enqueue ? enqueue(state, &bt, d_rng) : s->verify(state, &bt);
            if (src != SV_SAMPLER_OK) {
                rc = sv_fail(SV_EVERIFY, "bench: sampler %s: status %d while timing", s->name,
                             src);
                goto done;
            }
        }
        CHECK_CUDA(cudaEventRecord(stop, stream));
        if (hold_go)
            __atomic_store_n(&hold_go[0], 1, __ATOMIC_SEQ_CST); /* go */
        CHECK_CUDA(cudaEventSynchronize(stop));
        if (hold_timed_out && hold_timed_out[0]) {
            rc = sv_fail(SV_EENV, "bench: the hold kernel gave up waiting for the host (about "
                         "2 s): the host stalled, or a profiler runs one kernel at a time (use "
                         "--no-hold there); this point's times are not trusted");
            goto done;
        }
        float ms = 0.0f;
        CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
        if (rep < 0)
            continue;
        times[n++] = (double)ms * 1e3 / (n_graphs > 0 ? GRAPH_STEPS : 1);
        spent = sv_now() - started;
        if (n >= 20 && (n & (n - 1)) == 0) { /* check the noise at powers of two */
            qsort(times, (size_t)n, sizeof *times, compare_double);
            if (median_noise(times, n) < opt->noise_target)
                break;
        }
        if (spent > opt->time_limit && n >= 10)
            break;
    }
    qsort(times, (size_t)n, sizeof *times, compare_double);
    out->reps = n;
    out->min_us = times[0];
    out->q25_us = quantile(times, n, 0.25);
    out->median_us = quantile(times, n, 0.5);
    out->q75_us = quantile(times, n, 0.75);
    out->noise = median_noise(times, n);
    CHECK_CUDA(cudaGetLastError());
done:
    for (int64_t g = 0; execs && graphs && g < graph_slots; g++) { /* a failed one too */
        if (execs[g])
            cudaGraphExecDestroy(execs[g]);
        if (graphs[g])
            cudaGraphDestroy(graphs[g]);
    }
    free(execs);
    free(graphs);
    for (int64_t c = 1; copies && c < n_copies; c++) { /* copy 0 is d_target, d_draft */
        cudaFree(copies[2 * c]);
        cudaFree(copies[2 * c + 1]);
    }
    free(copies);
    if (state)
        s->destroy(state);
    free(times);
    free(h_acc);
    cudaFree(d_target);
    cudaFree(d_draft);
    cudaFree(d_tokens);
    cudaFree(d_out);
    cudaFree(d_acc);
    cudaFree(d_rng);
    if (hold_go)
        cudaFreeHost((void *)hold_go);
    if (start)
        cudaEventDestroy(start);
    if (stop)
        cudaEventDestroy(stop);
    if (stream)
        cudaStreamDestroy(stream);
    return rc;
}
