/* seq_prep.cu: the prep kernel of a version 3 batch (sv_cuda_kernels.h,
 * sv_cuda_seqs_prep_launch): its per-sequence arrays, in device memory,
 * checked and turned into what the CUDA samplers' kernels read
 * (sv_cuda_seqs), once a batch, before any of them reads a row. One block:
 * a thread a sequence (strided), then thread 0 sums the drafts where the
 * batch gives no cu_num_drafts. */
#include <cuda_runtime.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include "sv_cuda_kernels.h"
#include "sv_early_launch.cuh"

#define PREP_THREADS 256

/* The workspace for batches of up to max_B: info, then cu [max_B + 1], the
 * (seed, index) pairs and the rules, each 16-byte aligned. */
struct prep_ws {
    sv_seq_info *info;
    int32_t *cu;
    sv_seq_rng *rng;
    sv_seq_rule *rules;
};

static size_t align16(size_t n)
{
    return (n + 15u) & ~(size_t)15u;
}

static prep_ws prep_ws_of(void *ws, int32_t max_B)
{
    char *at = static_cast<char *>(ws);
    prep_ws w;
    w.info = reinterpret_cast<sv_seq_info *>(at);
    at += align16(sizeof(sv_seq_info));
    w.cu = reinterpret_cast<int32_t *>(at);
    at += align16((size_t)(max_B + 1) * sizeof(int32_t));
    w.rng = reinterpret_cast<sv_seq_rng *>(at);
    at += align16((size_t)max_B * sizeof(sv_seq_rng));
    w.rules = reinterpret_cast<sv_seq_rule *>(at);
    return w;
}

extern "C" size_t sv_cuda_seqs_bytes(int32_t max_B)
{
    const size_t B = (size_t)(max_B > 0 ? max_B : 1);
    return align16(sizeof(sv_seq_info)) + align16((B + 1) * sizeof(int32_t)) +
           align16(B * sizeof(sv_seq_rng)) + B * sizeof(sv_seq_rule);
}

/* Sequence b's rule from its temperature, top-k and top-p; false when they
 * are out of range (T negative or not finite, top_p not above 0). */
__device__ static bool rule_of(double T, int32_t top_k, double top_p, int32_t V, sv_seq_rule *r)
{
    if (!(T >= 0.0 && T <= DBL_MAX) || !(top_p > 0.0))
        return false;
    r->greedy = T == 0.0;
    r->cut = !r->greedy && ((top_k > 0 && top_k < V) || top_p < 1.0);
    r->top_k = top_k;
    r->top_p = top_p;
    r->scale = r->greedy ? sv_softmax_scale{1.0f, 0.0f, FLT_MAX} : sv_softmax_scale_of(T);
    return true;
}

__global__ static void __launch_bounds__(PREP_THREADS)
    prep_kernel(sv_batch bt, prep_ws w, int rules, int has_draft, int *bad)
{
    early_launch_wait(); /* the kernel before has finished with the workspace */
    early_launch_release();
    __shared__ int wrong;
    if (threadIdx.x == 0)
        wrong = 0;
    __syncthreads();
    const int32_t B = bt.B, *cu = bt.cu_num_drafts;
    for (int32_t b = (int32_t)threadIdx.x; b < B; b += (int32_t)blockDim.x) {
        const int32_t d = bt.num_drafts ? bt.num_drafts[b] : cu ? cu[b + 1] - cu[b] : bt.K;
        bool ok = d >= 0 && d <= bt.K &&
                  (!cu || (cu[b + 1] - cu[b] == d && (b > 0 || cu[0] == 0)));
        /* cu[b + 1]: the batch's, or b K + K, or (the running sum below) d_b */
        w.cu[b + 1] = cu ? cu[b + 1] : bt.num_drafts ? d : (b + 1) * bt.K;
        w.rng[b].seed = bt.seeds ? bt.seeds[b] : bt.seed;
        w.rng[b].index = bt.indices ? bt.indices[b] : bt.first_index + (uint64_t)b;
        if (rules)
            ok = ok && rule_of(bt.temperatures ? bt.temperatures[b] : bt.temperature,
                               bt.top_ks ? bt.top_ks[b] : bt.top_k,
                               bt.top_ps ? bt.top_ps[b] : bt.top_p, bt.V, &w.rules[b]);
        if (!ok)
            wrong = 1; /* every writer writes 1 */
    }
    __syncthreads();
    if (threadIdx.x != 0)
        return;
    w.cu[0] = 0;
    /* num_drafts without cu_num_drafts, which the contract gives in both
     * layouts: summed by one thread, slowly, as no harness batch is */
    if (!cu && bt.num_drafts && !wrong)
        for (int32_t b = 0; b < B; b++)
            w.cu[b + 1] += w.cu[b];
    sv_seq_info info;
    info.ok = !wrong;
    info.total = wrong ? 0 : w.cu[B];
    info.n_target_rows = info.total + B;
    info.n_rows = info.n_target_rows + (has_draft ? info.total : 0);
    *w.info = info;
    if (wrong)
        *bad = 1;
}

extern "C" int sv_cuda_seqs_prep_launch(const sv_batch *bt, void *ws, int32_t max_B, int rules,
                                        int *bad, int early, sv_cuda_seqs *seqs)
{
    const prep_ws w = prep_ws_of(ws, max_B);
    const bool logits = bt->input != SV_INPUT_PROBS;
    const bool has_draft = logits ? bt->draft_logits != nullptr : bt->draft != nullptr;
    seqs->cu = w.cu;
    seqs->rng = w.rng;
    seqs->rules = rules ? w.rules : nullptr;
    seqs->info = w.info;
    seqs->layout = bt->layout;
    seqs->B = bt->B;
    /* what the host sees without reading the arrays: whether any rule may
     * cut, and whether every one surely weighs and cuts nothing */
    const bool batch_cuts = (bt->top_k > 0 && bt->top_k < bt->V) || bt->top_p < 1.0;
    const bool all_greedy = !bt->temperatures && bt->temperature == 0.0;
    seqs->may_cut = rules && !all_greedy && (bt->top_ks || bt->top_ps || batch_cuts);
    seqs->plain = rules && !bt->temperatures && bt->temperature > 0.0 && !seqs->may_cut;
    return (int)launch_early(early != 0, dim3(1), dim3(PREP_THREADS), (cudaStream_t)bt->stream,
                             prep_kernel, *bt, w, rules, (int)has_draft, bad);
}
