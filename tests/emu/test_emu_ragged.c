/* test_emu_ragged.c: the CUDA samplers on version 3 batches (issue 25), on
 * the CPU (tests/emu's kernels and stand-in runtime, the samplers' host
 * sides unchanged, called as the harness calls them: init, verify).
 *
 * A ragged batch: every sequence its own number of drafts (0 to K), its own
 * rows, seed and index, and in a logits mode its own temperature, top-k and
 * top-p (greedy, plain, top-k and top-p sequences side by side), in the
 * padded and in the packed layout. For every sequence, token for token, the
 * CUDA sampler must give what its CPU twin (ref for cuda_naive, ref_race
 * for cuda_fused, ref_logits in the logits modes) gives for that sequence
 * alone, in a one-sequence batch of version 2 style; and it must write
 * nothing but the sequence's own d_b + 1 slots (canaries after each padded
 * sequence's slots and after the outputs). The batch-wide seed, first
 * index and rule are ones no sequence has, so a kernel that reads them
 * instead of the sequence's own fails.
 *
 * Also: per-sequence arrays the samplers cannot take are refused (EINVAL),
 * and the next good batch passes; a bad draft token within d_b refuses the
 * batch and writes -1 in that sequence's slots alone, while the padded
 * layout's -1 drafts past d_b are no bad input. Deterministic.
 *
 * The rows, draft tokens, per-sequence arrays and outputs go to device
 * memory and back (cudaMalloc, cudaMemcpy), as an SV_MEM_CUDA sampler is
 * given them (samplers/cuda_seqs.h). Built with
 * SV_RAGGED_EMULATED (test_emu_ragged) it runs on tests/emu, on every
 * machine; built without (test_gpu_ragged, label gpu) the same checks run
 * the real samplers on a GPU, where a rounding tie could part a kernel from
 * its twin (test_gpu bounds that at 1e-6 of the sequences and found none in
 * 615424): with these few sequences none may differ. Without a GPU it says
 * why and exits 77 (skipped). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "check.h"
#include "cuda_stage.h"
#include "emu_ragged.h"
#include "sv_registry.h"

#define SKIP 77

/* Sequence b of bt alone, through the twin: a one-sequence batch of version
 * 2 style, K = d_b, the sequence's seed as the seed and its index as the
 * first index. Its tokens into want[0 .. d_b]. */
static int twin_alone(const char *twin_name, const ragged *r, const sv_batch *bt, int32_t b,
                      int32_t *want, int32_t *want_accepted)
{
    const int32_t d = r->d[b], V = r->V;
    const size_t t_at = (size_t)b * (RK + 1) * V, d_at = (size_t)b * RK * V;
    const int bf16 = bt->input == SV_INPUT_LOGITS_BF16, one_hot = !bt->draft && !bt->draft_logits;
    sv_batch one = {.B = 1, .K = d, .V = V, .target_stride = (int64_t)(d + 1) * V,
                    .draft_stride = (int64_t)d * V, .draft_tokens = r->drafts + b * RK,
                    .seed = r->seeds[b], .first_index = r->indices[b], .out_tokens = want,
                    .out_accepted = want_accepted, .input = bt->input};
    if (bt->input == SV_INPUT_PROBS) {
        one.target = r->target + t_at;
        one.draft = one_hot ? NULL : r->draft + d_at;
    } else {
        one.target_logits = bf16 ? (const void *)(r->target16 + t_at) : r->target + t_at;
        one.draft_logits = one_hot ? NULL
                           : bf16  ? (const void *)(r->draft16 + d_at)
                                   : (const void *)(r->draft + d_at);
        one.temperature = r->T[b], one.top_k = r->top_k[b], one.top_p = r->top_p[b];
    }
    const sv_sampler *twin = sv_registry_find(twin_name);
    sv_limits limits = {.max_B = 1, .max_K = d, .max_V = V};
    void *state = NULL;
    int rc = twin->init(&state, &limits);
    if (rc == SV_SAMPLER_OK)
        rc = twin->verify(state, &one);
    twin->destroy(state);
    return rc;
}

/* The outputs, with canaries: every slot, then TAIL more past the last. */
typedef struct outputs {
    int32_t tokens[RB * (RK + 1) + TAIL], accepted[RB + TAIL];
} outputs;

/* A device copy of `bytes` at host (NULL for NULL), or NULL and *failed. */
static void *to_device(const void *host, size_t bytes, int *failed)
{
    void *device = NULL;
    if (host && (cudaMalloc(&device, bytes) != cudaSuccess ||
                 cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice) != cudaSuccess)) {
        cudaFree(device);
        device = NULL;
        *failed = 1;
    }
    return device;
}

/* bt, made of r's arrays in `layout` (bt's, unless a test changed that),
 * through cuda: its rows, drafts and outputs (canaries everywhere) to the
 * device, the outputs back into o; its status (EDEVICE if a copy failed). */
static int run_cuda(const sv_sampler *cuda, void *state, const ragged *r, int layout,
                    sv_batch bt, outputs *o)
{
    for (size_t i = 0; i < sizeof o->tokens / sizeof o->tokens[0]; i++)
        o->tokens[i] = CANARY;
    for (size_t i = 0; i < sizeof o->accepted / sizeof o->accepted[0]; i++)
        o->accepted[i] = CANARY;
    /* r's rows in bt's layout: the packed ones cu[RB] + RB target rows and
     * cu[RB] + 1 draft rows (never none); the draft tokens RB * RK in both */
    const int packed = layout == SV_LAYOUT_PACKED;
    const size_t target_rows = packed ? (size_t)r->cu[RB] + RB : (size_t)RB * (RK + 1);
    const size_t draft_rows = packed ? (size_t)r->cu[RB] + 1 : (size_t)RB * RK;
    const size_t row = (size_t)r->V * sv_input_value_bytes(bt.input);
    const int logits = bt.input != SV_INPUT_PROBS;
    int failed = 0;
    void *target = to_device(logits ? bt.target_logits : bt.target, target_rows * row, &failed);
    void *draft = to_device(logits ? bt.draft_logits : bt.draft, draft_rows * row, &failed);
    void *drafts = to_device(bt.draft_tokens, sizeof r->drafts, &failed);
    void *tokens = to_device(o->tokens, sizeof o->tokens, &failed);
    void *accepted = to_device(o->accepted, sizeof o->accepted, &failed);
    /* the per-sequence arrays, RB long (cu RB + 1) */
    void *arrays[7] = {
        to_device(bt.num_drafts, RB * sizeof(int32_t), &failed),
        to_device(bt.cu_num_drafts, (RB + 1) * sizeof(int32_t), &failed),
        to_device(bt.indices, RB * sizeof(uint64_t), &failed),
        to_device(bt.seeds, RB * sizeof(uint64_t), &failed),
        to_device(bt.temperatures, RB * sizeof(double), &failed),
        to_device(bt.top_ks, RB * sizeof(int32_t), &failed),
        to_device(bt.top_ps, RB * sizeof(double), &failed)};
    bt.num_drafts = arrays[0], bt.cu_num_drafts = arrays[1], bt.indices = arrays[2];
    bt.seeds = arrays[3], bt.temperatures = arrays[4], bt.top_ks = arrays[5];
    bt.top_ps = arrays[6];
    if (logits)
        bt.target_logits = target, bt.draft_logits = draft;
    else
        bt.target = target, bt.draft = draft;
    bt.draft_tokens = drafts;
    bt.out_tokens = tokens;
    bt.out_accepted = accepted;
    int rc = failed ? SV_SAMPLER_EDEVICE : cuda->verify(state, &bt);
    if (!failed && (cudaMemcpy(o->tokens, tokens, sizeof o->tokens, cudaMemcpyDeviceToHost) !=
                        cudaSuccess ||
                    cudaMemcpy(o->accepted, accepted, sizeof o->accepted,
                               cudaMemcpyDeviceToHost) != cudaSuccess))
        rc = SV_SAMPLER_EDEVICE;
    cudaFree(target), cudaFree(draft), cudaFree(drafts), cudaFree(tokens), cudaFree(accepted);
    for (int i = 0; i < 7; i++)
        cudaFree(arrays[i]);
    return rc;
}

/* Canaries written over: the padded slots past each d_b, and those past the
 * outputs. */
static int32_t canaries_lost(const ragged *r, const sv_batch *bt, const outputs *o)
{
    const int32_t slots = bt->layout == SV_LAYOUT_PACKED ? r->cu[RB] + RB : RB * (RK + 1);
    int32_t lost = 0;
    for (int32_t b = 0; bt->layout == SV_LAYOUT_PADDED && b < RB; b++)
        for (int32_t k = r->d[b] + 1; k <= RK; k++)
            lost += o->tokens[b * (RK + 1) + k] != CANARY;
    for (int32_t i = slots; i < slots + TAIL; i++)
        lost += o->tokens[i] != CANARY;
    for (int32_t i = RB; i < RB + TAIL; i++)
        lost += o->accepted[i] != CANARY;
    return lost;
}

/* bt through the CUDA sampler, and each sequence alone through the twin:
 * the sequences that differ, plus the canaries lost; -1 on a bad status. */
static int32_t ragged_differ(const sv_sampler *cuda, void *state, const char *twin_name,
                             const ragged *r, const sv_batch *bt, const char *what)
{
    outputs o;
    const int rc = run_cuda(cuda, state, r, bt->layout, *bt, &o);
    if (rc != SV_SAMPLER_OK) {
        fprintf(stderr, "  %s, %s: status %d\n", cuda->name, what, rc);
        return -1;
    }
    int32_t differ = 0;
    for (int32_t b = 0; b < RB; b++) {
        int32_t want[RK + 1], want_accepted = CANARY;
        if (twin_alone(twin_name, r, bt, b, want, &want_accepted) != SV_SAMPLER_OK)
            return -1;
        const int64_t at = sv_batch_out_offset(bt, b);
        int bad = o.accepted[b] != want_accepted;
        for (int32_t k = 0; k <= r->d[b]; k++)
            bad |= o.tokens[at + k] != want[k];
        if (bad)
            fprintf(stderr, "  %s, %s: sequence %d (d = %d) differs from %s alone\n", cuda->name,
                    what, b, r->d[b], twin_name);
        differ += bad;
    }
    const int32_t lost = canaries_lost(r, bt, &o);
    if (lost)
        fprintf(stderr, "  %s, %s: %d slots not its own written\n", cuda->name, what, lost);
    return differ + lost;
}

static void *init_for(const sv_sampler *s, int32_t V)
{
    sv_limits limits = {.max_B = RB, .max_K = RK, .max_V = V};
    void *state = NULL;
    const int rc = s->init(&state, &limits);
    CHECK(rc == SV_SAMPLER_OK);
    return rc == SV_SAMPLER_OK ? state : NULL;
}

/* ---- probabilities ---------------------------------------------------------------- */

static int32_t current_V; /* for the feature lines: the tests run at two V */

static void feature_at_v(const char *what)
{
    char line[512];
    snprintf(line, sizeof line, "%s; V = %d", what, current_V);
    feature(line);
}

/* cuda on r in both layouts, with draft rows and one-hot: the sequences
 * that differ from the twin's alone. */
static int32_t probs_differ(const sv_sampler *cuda, const char *twin, const ragged *r)
{
    void *state = init_for(cuda, r->V);
    if (!state)
        return -1;
    int32_t differ = 0;
    for (int layout = SV_LAYOUT_PADDED; layout <= SV_LAYOUT_PACKED; layout++)
        for (int drafter = DRAFT_ROWS; drafter <= ONE_HOT; drafter++) {
            const sv_batch bt = ragged_batch(r, layout, SV_INPUT_PROBS, drafter);
            char what[64];
            snprintf(what, sizeof what, "%s, %s", layout ? "packed" : "padded",
                     drafter ? "one-hot" : "draft rows");
            const int32_t m = ragged_differ(cuda, state, twin, r, &bt, what);
            differ += m < 0 ? RB : m;
        }
    cuda->destroy(state);
    return differ;
}

static void test_probs(const ragged *r, const ragged *full)
{
    const sv_sampler *naive = &sv_sampler_cuda_naive, *fused = &sv_sampler_cuda_fused;
    CHECK(naive->layouts == (SV_LAYOUT_BIT(SV_LAYOUT_PADDED) | SV_LAYOUT_BIT(SV_LAYOUT_PACKED)));
    CHECK(fused->layouts == naive->layouts);
    CHECK(probs_differ(naive, "ref", r) == 0);
    feature_at_v("cuda_naive on a ragged batch (d_b 0 to K; padded, packed; draft rows, one-hot) = ref on each sequence alone, nothing written outside its slots");
    CHECK(probs_differ(fused, "ref_race", r) == 0);
    feature_at_v("cuda_fused on a ragged batch (d_b 0 to K; padded, packed; draft rows, one-hot) = ref_race on each sequence alone, nothing written outside its slots");
    setenv("SV_FUSED_DEPTH", "2", 1);
    setenv("SV_FUSED_SPLITS", "3", 1);
    setenv("SV_FUSED_PRUNE", "0", 1);
    CHECK(probs_differ(fused, "ref_race", r) == 0);
    unsetenv("SV_FUSED_DEPTH");
    unsetenv("SV_FUSED_SPLITS");
    unsetenv("SV_FUSED_PRUNE");
    feature_at_v("cuda_fused, ragged, under SV_FUSED_DEPTH=2, SV_FUSED_SPLITS=3, SV_FUSED_PRUNE=0 = ref_race");

    /* padded without cu_num_drafts (the prep kernel sums the d_b); and every
     * d_b = K with neither: only the seeds and indices are per sequence */
    const sv_sampler *const cudas[] = {naive, fused};
    const char *const twins[] = {"ref", "ref_race"};
    for (int c = 0; c < 2; c++) {
        void *state = init_for(cudas[c], r->V);
        if (!state)
            continue;
        sv_batch bt = ragged_batch(r, SV_LAYOUT_PADDED, SV_INPUT_PROBS, DRAFT_ROWS);
        bt.cu_num_drafts = NULL;
        CHECK(ragged_differ(cudas[c], state, twins[c], r, &bt, "no cu") == 0);
        bt = ragged_batch(full, SV_LAYOUT_PADDED, SV_INPUT_PROBS, DRAFT_ROWS);
        bt.num_drafts = NULL, bt.cu_num_drafts = NULL;
        CHECK(ragged_differ(cudas[c], state, twins[c], full, &bt, "seeds only") == 0);
        cudas[c]->destroy(state);
    }
    feature_at_v("both, padded without cu_num_drafts, and with per-sequence seeds and indices alone (d_b = K), = their twins on each sequence alone");

    const sv_sampler *broken = &sv_sampler_cuda_fused_shared_uniform;
    void *state = init_for(broken, r->V);
    if (state) {
        const sv_batch bt = ragged_batch(r, SV_LAYOUT_PACKED, SV_INPUT_PROBS, DRAFT_ROWS);
        CHECK(ragged_differ(broken, state, "ref_race", r, &bt, "packed (expected to differ)") >
              0);
        broken->destroy(state);
    }
    feature_at_v("cuda_fused_shared_uniform on a ragged batch differs from ref_race alone (its sequences share the first one's acceptance uniforms)");
}

/* ---- logits ------------------------------------------------------------------------ */

static void test_logits(ragged *r)
{
    const sv_sampler *fused = &sv_sampler_cuda_fused;
    void *state = init_for(fused, r->V);
    if (!state)
        return;
    int32_t differ = 0;
    for (int mixed = 1; mixed >= 0; mixed--) {
        set_rules(r, mixed);
        for (int layout = SV_LAYOUT_PADDED; layout <= SV_LAYOUT_PACKED; layout++)
            for (int input = SV_INPUT_LOGITS_F32; input <= SV_INPUT_LOGITS_BF16; input++) {
                const sv_batch bt = ragged_batch(r, layout, input, DRAFT_ROWS);
                char what[64];
                snprintf(what, sizeof what, "%s rules, %s, %s", mixed ? "mixed" : "plain",
                         layout ? "packed" : "padded",
                         input == SV_INPUT_LOGITS_F32 ? "f32" : "bf16");
                const int32_t m = ragged_differ(fused, state, "ref_logits", r, &bt, what);
                differ += m < 0 ? RB : m;
            }
    }
    set_rules(r, 1);
    const sv_batch one_hot = ragged_batch(r, SV_LAYOUT_PACKED, SV_INPUT_LOGITS_F32, ONE_HOT);
    int32_t m = ragged_differ(fused, state, "ref_logits", r, &one_hot, "packed, one-hot");
    differ += m < 0 ? RB : m;
    /* NULL rule arrays are the batch-wide rule's, which also tells the host
     * whether the cut kernel must run and whether every rule is plain:
     * top-p alone per sequence; greedy and plain with no cut; one plain
     * rule for all (the ragged PLAIN verify kernel) */
    static const struct {
        const char *what;
        int layout, input, arrays; /* bits: 1 temperatures, 2 top_ks, 4 top_ps */
        double T;
    } variants[] = {{"padded, top-p alone", SV_LAYOUT_PADDED, SV_INPUT_LOGITS_F32, 5, 0.0},
                    {"packed, greedy and plain", SV_LAYOUT_PACKED, SV_INPUT_LOGITS_F32, 1, 0.0},
                    {"packed, one plain rule", SV_LAYOUT_PACKED, SV_INPUT_LOGITS_BF16, 0, 0.9}};
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        set_rules(r, 1);
        sv_batch bt = ragged_batch(r, variants[v].layout, variants[v].input, DRAFT_ROWS);
        bt.temperature = variants[v].T, bt.top_k = 0, bt.top_p = 1.0;
        for (int32_t b = 0; b < RB; b++) {
            if (!(variants[v].arrays & 1))
                r->T[b] = variants[v].T;
            if (!(variants[v].arrays & 2))
                r->top_k[b] = 0;
            if (!(variants[v].arrays & 4))
                r->top_p[b] = 1.0;
        }
        bt.temperatures = variants[v].arrays & 1 ? bt.temperatures : NULL;
        bt.top_ks = variants[v].arrays & 2 ? bt.top_ks : NULL;
        bt.top_ps = variants[v].arrays & 4 ? bt.top_ps : NULL;
        m = ragged_differ(fused, state, "ref_logits", r, &bt, variants[v].what);
        differ += m < 0 ? RB : m;
    }
    CHECK(differ == 0);
    fused->destroy(state);
    feature_at_v("cuda_fused on ragged logits batches (greedy, plain, top-k, top-p sequences mixed; all plain with their own T; top-p alone; greedy and plain; one rule; padded, packed; f32, bf16; one-hot) = ref_logits on each sequence alone");
}

/* ---- what the samplers refuse ------------------------------------------------------ */

/* What spoilt_status changes in a batch: one thing the samplers must refuse. */
enum spoil {
    GOOD,              /* nothing */
    D_NEGATIVE,        /* a d_b < 0 */
    D_OVER_K,          /* a d_b > K (cu summed with it) */
    CU_NOT_SUM,        /* cu_num_drafts not the d_b's running sum */
    NO_CU,             /* cu_num_drafts NULL (in the packed layout) */
    NO_SUCH_LAYOUT,    /* layout 2 */
    OVER_MAX_B,        /* B over init's max_B (nothing past RB is read) */
    T_NEGATIVE,        /* a temperature < 0 */
    T_INFINITE,        /* a temperature +inf */
    TOP_P_ZERO,        /* a top-p 0 */
    SPOILS
};

/* cuda's status on r's batch changed by `spoil` (and its outputs in o). */
static int spoilt_status(const sv_sampler *cuda, void *state, const ragged *r, int input,
                         int layout, enum spoil spoil, outputs *o)
{
    ragged copy = *r; /* its per-sequence arrays; the rows are shared, not changed */
    sv_batch bt = ragged_batch(&copy, layout, input, DRAFT_ROWS);
    switch (spoil) {
    case GOOD: case SPOILS: break;
    case D_NEGATIVE: copy.d[3] = -1; break;
    case D_OVER_K: copy.d[6] = RK + 1, copy.cu[RB] += RK + 1; break;
    case CU_NOT_SUM: copy.cu[4]++; break;
    case NO_CU: bt.cu_num_drafts = NULL; break;
    case NO_SUCH_LAYOUT: bt.layout = 2; break;
    case OVER_MAX_B: bt.B = RB + 1; break;
    case T_NEGATIVE: copy.T[5] = -0.5; break;
    case T_INFINITE: copy.T[2] = INFINITY; break;
    case TOP_P_ZERO: copy.top_p[4] = 0.0; break;
    }
    return run_cuda(cuda, state, r, layout, bt, o);
}

static void test_refused(const ragged *probs, ragged *logits)
{
    const sv_sampler *const cudas[] = {&sv_sampler_cuda_naive, &sv_sampler_cuda_fused};
    outputs o;
    for (size_t c = 0; c < 2; c++) {
        void *state = init_for(cudas[c], probs->V);
        for (int spoil = D_NEGATIVE; state && spoil <= OVER_MAX_B; spoil++) {
            CHECK(spoilt_status(cudas[c], state, probs, SV_INPUT_PROBS, SV_LAYOUT_PACKED,
                                (enum spoil)spoil, &o) == SV_SAMPLER_EINVAL);
            CHECK(spoilt_status(cudas[c], state, probs, SV_INPUT_PROBS, SV_LAYOUT_PADDED, GOOD,
                                &o) == SV_SAMPLER_OK);
        }
        if (state)
            cudas[c]->destroy(state);
    }
    feature("both refuse a d_b outside [0, K], a cu_num_drafts that is not their running sum, the packed layout without it, an unknown layout, B over init's (EINVAL); then pass again");

    set_rules(logits, 1);
    void *state = init_for(&sv_sampler_cuda_fused, logits->V);
    for (int spoil = T_NEGATIVE; state && spoil < SPOILS; spoil++) {
        CHECK(spoilt_status(&sv_sampler_cuda_fused, state, logits, SV_INPUT_LOGITS_F32,
                            SV_LAYOUT_PACKED, (enum spoil)spoil, &o) == SV_SAMPLER_EINVAL);
        CHECK(spoilt_status(&sv_sampler_cuda_fused, state, logits, SV_INPUT_LOGITS_F32,
                            SV_LAYOUT_PACKED, GOOD, &o) == SV_SAMPLER_OK);
    }
    if (state)
        sv_sampler_cuda_fused.destroy(state);
    feature("cuda_fused refuses one sequence's temperature < 0 or infinite, or top-p 0 (EINVAL); then passes again");
}

/* A draft outside [0, V) within sequence 2's d_b: the batch is refused,
 * sequence 2's own slots are -1, no other slot is touched but the
 * sequences' own; the padded layout's -1 drafts past d_b are no bad input
 * (every good batch above has them). */
static void test_bad_draft(ragged *r)
{
    const sv_sampler *const cudas[] = {&sv_sampler_cuda_naive, &sv_sampler_cuda_fused};
    for (size_t c = 0; c < 2; c++) {
        void *state = init_for(cudas[c], r->V);
        for (int layout = SV_LAYOUT_PADDED; state && layout <= SV_LAYOUT_PACKED; layout++) {
            int32_t *x = layout == SV_LAYOUT_PACKED ? r->pdrafts + r->cu[2] : r->drafts + 2 * RK;
            const int32_t kept = x[r->d[2] - 1];
            x[r->d[2] - 1] = r->V;
            const sv_batch bt = ragged_batch(r, layout, SV_INPUT_PROBS, DRAFT_ROWS);
            outputs o;
            CHECK(run_cuda(cudas[c], state, r, layout, bt, &o) == SV_SAMPLER_EINVAL);
            x[r->d[2] - 1] = kept;
            const int64_t at = sv_batch_out_offset(&bt, 2);
            CHECK(o.accepted[2] == -1);
            for (int32_t k = 0; k <= r->d[2]; k++)
                CHECK(o.tokens[at + k] == -1);
            for (int32_t b = 0; b < RB; b++)
                CHECK(b == 2 || o.accepted[b] >= 0);
            CHECK(canaries_lost(r, &bt, &o) == 0);
        }
        if (state)
            cudas[c]->destroy(state);
    }
    feature("both refuse a draft outside [0, V) within d_b (EINVAL): -1 in that sequence's own slots only");
}

int main(void)
{
#ifndef SV_RAGGED_EMULATED
    char why[256] = "";
    if (sv_cuda_device_count(why, sizeof why) == 0) {
        printf("SKIPPED: the CUDA samplers on ragged batches need a CUDA device: %s\n", why);
        return SKIP;
    }
#endif
    /* V = 3000: rows 16-byte aligned in both layouts (the float4 bodies,
     * the pruned race); V = 3001: none are (the scalar paths). cuda_fused's
     * race splits a row over 2 blocks on tests/emu. */
    static const int32_t Vs[] = {3000, 3001};
    for (size_t v = 0; v < sizeof Vs / sizeof Vs[0]; v++) {
        current_V = Vs[v];
        ragged probs, full, logits;
        ragged_make(&probs, Vs[v], ragged_d, 0);
        ragged_make(&full, Vs[v], full_d, 0);
        ragged_make(&logits, Vs[v], ragged_d, 1);
        test_probs(&probs, &full);
        test_logits(&logits);
        if (v == 0) {
            test_refused(&probs, &logits);
            test_bad_draft(&probs);
        }
        ragged_free(&probs), ragged_free(&full), ragged_free(&logits);
    }
    return check_exit();
}
