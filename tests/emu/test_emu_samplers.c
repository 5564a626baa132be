/* test_emu_samplers.c: the CUDA samplers whole, as the harness calls them
 * (the sampler contract: init, verify, destroy), on the CPU. Their host
 * sides (samplers/cuda_naive.c, cuda_fused.c, cuda_flag.c) are compiled
 * unchanged against tests/emu's stand-in CUDA runtime and run tests/emu's
 * kernels, so what test_gpu checks of the host code on a GPU is checked
 * here on every machine:
 *   - verify emits the CPU twin's tokens (ref for cuda_naive, ref_race for
 *     cuda_fused, ref_logits for cuda_fused on logits) with the splits and
 *     the logits workspace that init sized from the device, over several
 *     batches of one instance (counters re-armed, the flag cleared);
 *   - bad input is refused with EINVAL: a draft outside [0, V), an all-zero
 *     target row, a batch larger than cuda_fused's init was told, a logits
 *     batch it does not take (an unknown mode, top-p 0, T < 0; any, for the
 *     broken variant), and the next good batch still passes;
 *   - SV_FUSED_PRUNE=0, and SV_FUSED_DEPTH=2 with SV_FUSED_SPLITS=5, give
 *     the same tokens; a value init does not know is refused with EINVAL;
 *   - cuda_fused launches early (programmatic dependent launch) on a device
 *     of compute capability 9, the ordinary way under SV_FUSED_EARLY=0, on
 *     a device of compute capability 8, or when its code was built for 8
 *     (no wait in it), with the same tokens;
 *   - when any one device allocation of init fails, init returns ENOMEM and
 *     frees what it had; destroy frees everything.
 * Deterministic: fixed seeds, one mismatch fails. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "cuda_runtime_api.h"
#include "sv_bf16.h"
#include "sv_registry.h"
#include "sv_base.h"
#include "sv_cases.h"
#include "sv_run.h"

/* ---- one batch through the twin and through the emulated sampler ---------------- */

typedef struct side_by_side {
    int32_t B, K;
    int32_t *drafts, *out[2], *acc[2]; /* [0]: the twin, [1]: the CUDA sampler */
} side_by_side;

static void sbs_alloc(side_by_side *s, int32_t B, int32_t K)
{
    s->B = B, s->K = K;
    s->drafts = calloc((size_t)B * (size_t)K, sizeof(int32_t));
    for (int i = 0; i < 2; i++) {
        s->out[i] = calloc((size_t)B * (size_t)(K + 1), sizeof(int32_t));
        s->acc[i] = calloc((size_t)B, sizeof(int32_t));
    }
}

static void sbs_free(side_by_side *s)
{
    free(s->drafts);
    for (int i = 0; i < 2; i++)
        free(s->out[i]), free(s->acc[i]);
}

/* Sequences whose tokens or accepted counts differ between the two. */
static int32_t sbs_differ(const side_by_side *s)
{
    int32_t differ = 0;
    const size_t row = (size_t)(s->K + 1) * sizeof(int32_t);
    for (int32_t b = 0; b < s->B; b++)
        differ += s->acc[0][b] != s->acc[1][b] ||
                  memcmp(s->out[0] + (size_t)b * (size_t)(s->K + 1),
                         s->out[1] + (size_t)b * (size_t)(s->K + 1), row) != 0;
    return differ;
}

/* bt through `side` (0: the twin, 1: the sampler); its status. */
static int sbs_verify(side_by_side *s, int side, const sv_sampler *sampler, void *state,
                      sv_batch bt)
{
    bt.out_tokens = s->out[side];
    bt.out_accepted = s->acc[side];
    return sampler->verify(state, &bt);
}

static void *init_or_null(const sv_sampler *s, int32_t B, int32_t K, int32_t V)
{
    sv_limits limits = {.max_B = B, .max_K = K, .max_V = V};
    void *state = NULL;
    int rc = s->init(&state, &limits);
    CHECK(rc == SV_SAMPLER_OK);
    return rc == SV_SAMPLER_OK ? state : NULL;
}

/* ---- probability input: the suite's cases ---------------------------------------- */

/* `batches` batches of B sequences of case `spec` through cuda (one instance)
 * and its twin; the sequences that differ, or -1 on an error. */
static long case_differ(const sv_sampler *cuda, const char *twin_name, const char *spec,
                        int32_t B, int batches)
{
    char err[256] = "";
    sv_case *c = NULL;
    sv_drafter *d = NULL;
    if (sv_case_from_spec(spec, &c, err, sizeof err) != 0 || sv_drafter_alloc(c, &d) != SV_OK) {
        fprintf(stderr, "  %s: %s\n", spec, err);
        sv_case_free(c);
        return -1;
    }
    const sv_sampler *twin = sv_registry_find(twin_name);
    void *twin_state = init_or_null(twin, B, c->K, c->V);
    void *cuda_state = init_or_null(cuda, B, c->K, c->V);
    side_by_side s;
    sbs_alloc(&s, B, c->K);
    gsl_rng *philox = gsl_rng_alloc(sv_gsl_rng_philox);
    long differ = twin_state && cuda_state ? 0 : -1;
    for (int n = 0; n < batches && differ >= 0; n++) {
        const uint64_t first = (uint64_t)n * (uint64_t)B;
        for (int32_t b = 0; b < B; b++)
            sv_drafter_draw(d, philox, 7, first + (uint64_t)b, s.drafts + (size_t)b * (size_t)c->K);
        sv_batch bt = {.B = B, .K = c->K, .V = c->V, .target = c->target,
                       .draft = c->draft_probs_given ? c->draft : NULL, .draft_tokens = s.drafts,
                       .seed = 7, .first_index = first};
        int rc_twin = sbs_verify(&s, 0, twin, twin_state, bt);
        int rc_cuda = sbs_verify(&s, 1, cuda, cuda_state, bt);
        if (rc_twin != SV_SAMPLER_OK || rc_cuda != SV_SAMPLER_OK) {
            fprintf(stderr, "  %s: status %s %d, %s %d\n", spec, twin->name, rc_twin, cuda->name,
                    rc_cuda);
            differ = -1;
            break;
        }
        differ += sbs_differ(&s);
    }
    if (differ != 0)
        fprintf(stderr, "  %s, B = %d: %s and %s differ: %ld\n", spec, B, cuda->name, twin_name,
                differ);
    gsl_rng_free(philox);
    sbs_free(&s);
    if (twin_state)
        twin->destroy(twin_state);
    if (cuda_state)
        cuda->destroy(cuda_state);
    sv_drafter_free(d);
    sv_case_free(c);
    return differ;
}

/* The stand-in device holds 4 SMs x 4 blocks: cuda_fused splits a row over
 * min(16 / B, V / 1024) blocks. */
static void test_probs(const sv_sampler *cuda, const char *twin)
{
    static const struct {
        const char *spec;
        int32_t B;
    } cases[] = {
        {"seedlab:V=1000,K=5", 48},  /* 1 split */
        {"onehot:V=1000,K=5", 48},   /* no draft rows */
        {"greedy:V=1000,K=5", 48},   /* one-hot target rows */
        {"disjoint:V=1000,K=3", 48}, /* every draft has p = 0 */
        {"tail:V=9001,K=3", 2},      /* 8 splits, an odd V */
        {"zipf:V=4099,K=4", 5},      /* 3 splits */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECK(case_differ(cuda, twin, cases[i].spec, cases[i].B, 2) == 0);
}

/* ---- bad input ------------------------------------------------------------------- */

enum { EV = 4, EK = 2, EB = 8 };

/* cuda on EB copies of a small valid case, with sequence 3 changed by
 * `spoil` (NULL: unchanged): its status. */
typedef void spoil_fn(sv_batch *bt, float *target, int32_t *drafts);
static int edge_status(const sv_sampler *cuda, void *state, spoil_fn *spoil)
{
    static float target[EB * (EK + 1) * EV], draft[EB * EK * EV];
    static int32_t drafts[EB * EK], out[EB * (EK + 1)], acc[EB];
    for (int i = 0; i < EB * (EK + 1) * EV; i++)
        target[i] = 0.25f;
    for (int i = 0; i < EB * EK * EV; i++)
        draft[i] = 0.25f;
    for (int i = 0; i < EB * EK; i++)
        drafts[i] = i % EV;
    sv_batch bt = {.B = EB, .K = EK, .V = EV, .target = target, .target_stride = (EK + 1) * EV,
                   .draft = draft, .draft_stride = EK * EV, .draft_tokens = drafts, .seed = 3,
                   .out_tokens = out, .out_accepted = acc};
    if (spoil)
        spoil(&bt, target, drafts);
    return cuda->verify(state, &bt);
}

static void draft_outside(sv_batch *bt, float *target, int32_t *drafts)
{
    (void)bt, (void)target;
    drafts[3 * EK + 1] = EV;
}

/* The last draft outside [0, V) after a certain rejection of the first (its
 * p is 0): a CPU sampler refuses it unreached, so must the GPU. */
static void draft_outside_unreached(sv_batch *bt, float *target, int32_t *drafts)
{
    (void)bt;
    target[3 * (EK + 1) * EV + drafts[3 * EK]] = 0.0f;
    drafts[3 * EK + EK - 1] = EV;
}

static void zero_row(sv_batch *bt, float *target, int32_t *drafts)
{
    (void)bt, (void)drafts;
    memset(target + 3 * (EK + 1) * EV, 0, (EK + 1) * EV * sizeof(float));
}

static void batch_too_large(sv_batch *bt, float *target, int32_t *drafts)
{
    (void)target, (void)drafts;
    bt->V = EV + 1; /* init was told V = EV */
}

/* sized: the sampler sized workspaces by init's limits (cuda_fused), so it
 * must refuse a batch over them; cuda_naive needs none (the limits are the
 * caller's promise, sv_sampler.h). */
static void test_bad_input(const sv_sampler *cuda, int sized)
{
    void *state = init_or_null(cuda, EB, EK, EV);
    if (!state)
        return;
    CHECK(edge_status(cuda, state, NULL) == SV_SAMPLER_OK);
    CHECK(edge_status(cuda, state, draft_outside) == SV_SAMPLER_EINVAL);
    CHECK(edge_status(cuda, state, NULL) == SV_SAMPLER_OK); /* the flag was cleared */
    CHECK(edge_status(cuda, state, draft_outside_unreached) == SV_SAMPLER_EINVAL);
    CHECK(edge_status(cuda, state, NULL) == SV_SAMPLER_OK);
    CHECK(edge_status(cuda, state, zero_row) == SV_SAMPLER_EINVAL);
    CHECK(edge_status(cuda, state, NULL) == SV_SAMPLER_OK);
    if (sized)
        CHECK(edge_status(cuda, state, batch_too_large) == SV_SAMPLER_EINVAL);
    cuda->destroy(state);
}

/* ---- logits input ---------------------------------------------------------------- */

/* B sequences of K drafts over V: target logits random in [-4, 4), draft
 * logits the target's plus noise, drafts any tokens (the twin checks them
 * the same way whatever they are), float and bf16 copies. */
typedef struct logits_batch {
    int32_t B, K, V;
    float *target, *draft;
    uint16_t *target_bf16, *draft_bf16;
} logits_batch;

static void logits_make(logits_batch *l, side_by_side *s, int32_t B, int32_t K, int32_t V,
                        gsl_rng *r)
{
    const size_t nt = (size_t)B * (size_t)(K + 1) * (size_t)V, nd = (size_t)B * (size_t)K * (size_t)V;
    l->B = B, l->K = K, l->V = V;
    l->target = malloc(nt * sizeof(float));
    l->draft = malloc(nd * sizeof(float));
    l->target_bf16 = malloc(nt * sizeof(uint16_t));
    l->draft_bf16 = malloc(nd * sizeof(uint16_t));
    for (size_t i = 0; i < nt; i++) {
        l->target[i] = (float)(8.0 * gsl_rng_uniform(r) - 4.0);
        l->target_bf16[i] = sv_bf16_from_float(l->target[i]);
    }
    for (int32_t b = 0; b < B; b++)
        for (int32_t k = 0; k < K; k++)
            for (int32_t i = 0; i < V; i++) {
                const size_t at = ((size_t)b * (size_t)K + (size_t)k) * (size_t)V + (size_t)i;
                l->draft[at] = l->target[((size_t)b * (size_t)(K + 1) + (size_t)k) * (size_t)V +
                                         (size_t)i] +
                               (float)(gsl_rng_uniform(r) - 0.5);
                l->draft_bf16[at] = sv_bf16_from_float(l->draft[at]);
            }
    sbs_alloc(s, B, K);
    for (size_t i = 0; i < (size_t)B * (size_t)K; i++)
        s->drafts[i] = (int32_t)gsl_rng_uniform_int(r, (unsigned long)V);
}

static void logits_free(logits_batch *l)
{
    free(l->target), free(l->draft), free(l->target_bf16), free(l->draft_bf16);
}

static sv_batch logits_sv_batch(const logits_batch *l, const side_by_side *s, int input, double T,
                                int32_t top_k, double top_p)
{
    const int bf16 = input == SV_INPUT_LOGITS_BF16;
    sv_batch bt = {.B = l->B, .K = l->K, .V = l->V, .target_stride = (int64_t)(l->K + 1) * l->V,
                   .draft_stride = (int64_t)l->K * l->V, .draft_tokens = s->drafts, .seed = 11,
                   .first_index = 500, .input = input,
                   .target_logits = bf16 ? (const void *)l->target_bf16 : (const void *)l->target,
                   .draft_logits = bf16 ? (const void *)l->draft_bf16 : (const void *)l->draft,
                   .temperature = T, .top_k = top_k, .top_p = top_p};
    return bt;
}

static void test_logits(const sv_sampler *cuda)
{
    const sv_sampler *twin = sv_registry_find("ref_logits");
    /* V = 5000: the stats kernel takes one block a row, the race 2 splits */
    const int32_t B = 6, K = 3, V = 5000;
    logits_batch l;
    side_by_side s;
    gsl_rng *r = gsl_rng_alloc(sv_gsl_rng_philox);
    logits_make(&l, &s, B, K, V, r);
    gsl_rng_free(r);
    void *twin_state = init_or_null(twin, B, K, V), *cuda_state = init_or_null(cuda, B, K, V);
    static const struct {
        double T;
        int32_t top_k;
        double top_p;
    } rules[] = {{1.0, 0, 1.0}, {0.7, 40, 1.0}, {1.2, 0, 0.9}, {0.0, 0, 1.0}};
    int32_t differ = 0;
    for (int input = SV_INPUT_LOGITS_F32; input <= SV_INPUT_LOGITS_BF16; input++)
        for (size_t r = 0; twin_state && cuda_state && r < sizeof rules / sizeof rules[0]; r++) {
            sv_batch bt = logits_sv_batch(&l, &s, input, rules[r].T, rules[r].top_k, rules[r].top_p);
            CHECK(sbs_verify(&s, 0, twin, twin_state, bt) == SV_SAMPLER_OK);
            CHECK(sbs_verify(&s, 1, cuda, cuda_state, bt) == SV_SAMPLER_OK);
            differ += sbs_differ(&s);
        }
    CHECK(differ == 0);
    feature("cuda_fused on logits (f32, bf16; T, top-k, top-p, greedy) = ref_logits");

    if (cuda_state) {
        sv_batch bt = logits_sv_batch(&l, &s, SV_INPUT_LOGITS_F32, 1.0, 0, 1.0);
        bt.out_tokens = s.out[1];
        bt.out_accepted = s.acc[1];
        s.drafts[4] = V; /* a draft outside [0, V) */
        CHECK(cuda->verify(cuda_state, &bt) == SV_SAMPLER_EINVAL);
        s.drafts[4] = 0;
        CHECK(cuda->verify(cuda_state, &bt) == SV_SAMPLER_OK);
        /* the last draft outside [0, V) in a sequence whose chain stops before it */
        int32_t early = -1;
        for (int32_t b = 0; b < B && early < 0; b++)
            if (s.acc[1][b] < K - 1)
                early = b;
        CHECK(early >= 0);
        if (early >= 0) {
            const int32_t last = s.drafts[early * K + K - 1];
            s.drafts[early * K + K - 1] = V;
            CHECK(cuda->verify(cuda_state, &bt) == SV_SAMPLER_EINVAL);
            s.drafts[early * K + K - 1] = last;
        }
        bt.input = 3; /* no such mode */
        CHECK(cuda->verify(cuda_state, &bt) == SV_SAMPLER_EINVAL);
        bt.input = SV_INPUT_LOGITS_F32;
        bt.top_p = 0.0;
        CHECK(cuda->verify(cuda_state, &bt) == SV_SAMPLER_EINVAL);
        bt.top_p = 1.0;
        bt.temperature = -1.0;
        CHECK(cuda->verify(cuda_state, &bt) == SV_SAMPLER_EINVAL);
        bt.temperature = 1.0;
        CHECK(cuda->verify(cuda_state, &bt) == SV_SAMPLER_OK);
    }
    feature("cuda_fused on logits refuses a bad draft (reached or not), an unknown mode, top-p 0, T < 0 (EINVAL)");

    const sv_sampler *broken = &sv_sampler_cuda_fused_shared_uniform;
    CHECK(broken->inputs == 0);
    void *broken_state = init_or_null(broken, B, K, V);
    if (broken_state) {
        sv_batch bt = logits_sv_batch(&l, &s, SV_INPUT_LOGITS_F32, 1.0, 0, 1.0);
        bt.out_tokens = s.out[1];
        bt.out_accepted = s.acc[1];
        CHECK(broken->verify(broken_state, &bt) == SV_SAMPLER_EINVAL);
        broken->destroy(broken_state);
    }
    feature("cuda_fused_shared_uniform takes no logits (EINVAL)");
    if (twin_state)
        twin->destroy(twin_state);
    if (cuda_state)
        cuda->destroy(cuda_state);
    sbs_free(&s);
    logits_free(&l);
}

/* ---- allocation failures ----------------------------------------------------------- */

/* init of `cuda` with the n-th device allocation failing, for every n until
 * init makes all it needs: ENOMEM every time, nothing left allocated. */
static void test_allocation_failures(const sv_sampler *cuda)
{
    const long before = sv_emu_live_allocations();
    sv_limits limits = {.max_B = 64, .max_K = 5, .max_V = 2048};
    int n = 0, rc = SV_SAMPLER_ENOMEM, leaks = 0;
    for (; n < 32 && rc == SV_SAMPLER_ENOMEM; n++) {
        sv_emu_fail_allocations_after(n);
        void *state = NULL;
        rc = cuda->init(&state, &limits);
        sv_emu_fail_allocations_after(-1);
        if (rc == SV_SAMPLER_OK) {
            CHECK(sv_emu_live_allocations() > before);
            cuda->destroy(state);
        }
        leaks += sv_emu_live_allocations() != before;
    }
    printf("  %s: init makes %d device allocations\n", cuda->name, n - 1);
    CHECK(rc == SV_SAMPLER_OK);
    CHECK(n >= 2); /* at least the flag's two */
    CHECK(leaks == 0);
}

/* ---- the environment's knobs ------------------------------------------------------ */

static void test_bad_knobs(const sv_sampler *cuda)
{
    static const char *const bad[][2] = {{"SV_FUSED_DEPTH", "3"},
                                         {"SV_FUSED_SPLITS", "0"},
                                         {"SV_FUSED_SPLITS", "70000"},
                                         {"SV_FUSED_SPLITS", "5x"},
                                         {"SV_FUSED_PRUNE", "yes"},
                                         {"SV_FUSED_EARLY", "2"}};
    const sv_limits limits = {.max_B = 8, .max_K = 4, .max_V = 1000};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const long before = sv_emu_live_allocations();
        setenv(bad[i][0], bad[i][1], 1);
        void *state = (void *)&limits; /* init must clear it */
        CHECK(cuda->init(&state, &limits) == SV_SAMPLER_EINVAL);
        CHECK(state == NULL);
        CHECK(sv_emu_live_allocations() == before);
        unsetenv(bad[i][0]);
    }
}

/* cuda_fused on the suite's cases (all: `whole`; else one, split over 3
 * blocks), whose launches must all be early ones, or all ordinary ones. */
static void test_probs_launched(const sv_sampler *fused, int whole, int early)
{
    const long early_before = sv_emu_launches(1), ordinary_before = sv_emu_launches(0);
    if (whole)
        test_probs(fused, "ref_race");
    else
        CHECK(case_differ(fused, "ref_race", "zipf:V=4099,K=4", 5, 2) == 0);
    const long e = sv_emu_launches(1) - early_before, o = sv_emu_launches(0) - ordinary_before;
    if (early ? !(e > 0 && o == 0) : !(e == 0 && o > 0))
        fprintf(stderr, "  %ld early and %ld ordinary launches; expected all %s\n", e, o,
                early ? "early" : "ordinary");
    CHECK(early ? e > 0 && o == 0 : e == 0 && o > 0);
}

int main(void)
{
    const sv_sampler *naive = &sv_sampler_cuda_naive, *fused = &sv_sampler_cuda_fused;

    test_probs(naive, "ref");
    feature("cuda_naive (emulated, host side and kernel) = ref on the suite's cases, two batches each");
    test_probs_launched(fused, 1, 1);
    feature("cuda_fused (emulated, host side and kernel) = ref_race, 1 to 8 splits, two batches each, launched early");
    setenv("SV_FUSED_EARLY", "0", 1);
    test_probs_launched(fused, 0, 0);
    unsetenv("SV_FUSED_EARLY");
    sv_emu_set_compute_capability(8);
    test_probs_launched(fused, 0, 0);
    sv_emu_set_compute_capability(9);
    sv_emu_set_code_capability(8);
    test_probs_launched(fused, 0, 0);
    sv_emu_set_code_capability(0);
    feature("cuda_fused launches the ordinary way under SV_FUSED_EARLY=0, below compute capability 9, and when its code was built for 8; same tokens");
    setenv("SV_FUSED_PRUNE", "0", 1);
    test_probs(fused, "ref_race");
    unsetenv("SV_FUSED_PRUNE");
    feature("cuda_fused with SV_FUSED_PRUNE=0 = ref_race");
    setenv("SV_FUSED_DEPTH", "2", 1);
    setenv("SV_FUSED_SPLITS", "5", 1);
    test_probs(fused, "ref_race");
    unsetenv("SV_FUSED_DEPTH");
    unsetenv("SV_FUSED_SPLITS");
    feature("cuda_fused with SV_FUSED_DEPTH=2 and SV_FUSED_SPLITS=5 = ref_race");
    test_bad_knobs(fused);
    feature("cuda_fused's init refuses SV_FUSED_DEPTH=3, SV_FUSED_SPLITS=0 or 70000, SV_FUSED_PRUNE=yes, SV_FUSED_EARLY=2: EINVAL, nothing allocated");

    test_bad_input(naive, 0);
    test_bad_input(fused, 1);
    feature("both refuse a draft outside [0, V) (reached or not) and an all-zero row (EINVAL), then pass again; cuda_fused a batch over init's limits");

    test_logits(fused);

    test_allocation_failures(naive);
    test_allocation_failures(fused);
    feature("a failed device allocation in init: ENOMEM, nothing leaked; destroy frees all");
    return check_exit();
}
