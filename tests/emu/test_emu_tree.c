/* test_emu_tree.c: the naive CUDA tree samplers (kernels/cuda_tree.cu)
 * against their CPU twins, token for token (issue 27).
 *
 * Batches of trees as the harness gives them (contract version 6): every
 * sequence its own tree (random parents, 0 to 16 nodes), rows, seed and
 * index, in the padded and the packed layout, with independent and with
 * distinct siblings; and a batch of one shape without per-sequence arrays
 * (the kernel's uniform path). Each goes through sv_cuda_stage, as verify
 * gives it to a CUDA sampler (rows, parents and outputs to the device and
 * back), and through the twin (ref_tree for cuda_tree_naive,
 * ref_tree_target_only for cuda_tree_target_only_naive) on the host. Every
 * accepted count, token and path node must agree, no slot but a sequence's
 * own d_b + 1 may be written (canaries), and the drafts are drawn near p
 * so that deep paths are walked: some sequence must accept 3 nodes or more.
 * A parent outside [0, k], a draft token outside [0, V) and a reached
 * target row without mass are refused (EINVAL) by both.
 *
 * Built with SV_TREE_EMULATED (test_emu_tree) it runs on tests/emu on
 * every machine: there the twins' doubles are the kernel's, so none may
 * differ. Built without it (test_gpu_tree, label gpu) the same checks run
 * on a GPU, where a rounding tie could part them (test_gpu bounds such ties
 * at 1e-6 of the sequences): with these few sequences none may differ.
 * Without a GPU it says why and exits 77 (skipped). Deterministic. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "cuda_stage.h"
#include "sv_registry.h"

#define SKIP 77
enum { TB = 24, TK = SV_MAX_K, CANARY = -7, TAIL = 8 };

static uint32_t lcg_state = 12345u;
static double unit(void) /* (0, 1) */
{
    lcg_state = lcg_state * 1664525u + 1013904223u;
    return ((double)(lcg_state >> 8) + 0.5) / 16777216.0;
}

/* A batch of TB trees in both layouts, with the twin's outputs and the
 * CUDA sampler's, canaries around. */
typedef struct trees {
    int32_t V, d[TB], cu[TB + 1], parents_pad[TB * TK], parents_packed[TB * TK];
    int32_t x_pad[TB * TK], x_packed[TB * TK];
    uint64_t seeds[TB], indices[TB];
    float *target, *draft;   /* padded [TB][TK + 1][V], [TB][TK][V] */
    float *ptarget, *pdraft; /* packed */
} trees;

typedef struct outputs {
    int32_t tokens[TB * (TK + 1) + TAIL], path[TB * (TK + 1) + TAIL], accepted[TB + TAIL];
} outputs;

/* A random distribution on V tokens, some of them of no mass; the larger
 * `peak`, the more of it on a few tokens. */
static void random_row(float *row, int32_t V, double peak)
{
    double sum = 0.0;
    for (int32_t i = 0; i < V; i++) {
        double u = unit();
        row[i] = u < 0.2 ? 0.0f : (float)pow(u, peak);
        sum += row[i];
    }
    for (int32_t i = 0; i < V; i++)
        row[i] = (float)(row[i] / sum);
}

/* A token drawn from row, not among the `n` in avoid (distinct siblings). */
static int32_t draw_token(const float *row, int32_t V, const int32_t *avoid, int32_t n)
{
    for (int tries = 0; tries < 1000; tries++) {
        double at = unit(), acc = 0.0;
        int32_t t = V - 1;
        for (int32_t i = 0; i < V; i++) {
            acc += row[i];
            if (acc > at) {
                t = i;
                break;
            }
        }
        int seen = 0;
        for (int32_t j = 0; j < n; j++)
            seen |= avoid[j] == t;
        if (!seen && row[t] > 0.0f)
            return t;
    }
    return 0;
}

/* d_b a sequence: none, one, a chain, full trees, and the rest random. */
static const int32_t tree_d[TB] = {0, 1, 3, 16, 5, 8, 7, 16, 7, 0, 12, 4,
                                   6, 9, 16, 5, 10, 3, 15, 11, 5, 13, 2, 8};

static void trees_make(trees *t, int32_t V, int distinct)
{
    memset(t, 0, sizeof *t);
    t->V = V;
    t->target = calloc((size_t)TB * (TK + 1) * V, sizeof(float));
    t->draft = calloc((size_t)TB * TK * V, sizeof(float));
    t->ptarget = calloc((size_t)TB * (TK + 1) * V, sizeof(float));
    t->pdraft = calloc((size_t)TB * TK * V + V, sizeof(float));
    float *node_q = malloc((size_t)(TK + 1) * V * sizeof(float)); /* each node's children's row */
    for (int32_t b = 0; b < TB; b++) {
        const int32_t d = t->d[b] = tree_d[b];
        t->cu[b + 1] = t->cu[b] + d;
        t->seeds[b] = 0x9e3779b97f4a7c15ull * (uint64_t)(b + 3);
        t->indices[b] = 1000u + 7u * (uint64_t)b;
        float *P = t->target + (size_t)b * (TK + 1) * V, *Q = t->draft + (size_t)b * TK * V;
        int32_t *par = t->parents_pad + b * TK, *x = t->x_pad + b * TK;
        /* in two sequences of three p is near the drafter's and most
         * drafts are made likely under it, so that paths go deep under both
         * rules; in the third the drafter is peaked and p only half its,
         * and the root's four children are tokens p rules out: rejected one
         * after another, each taking much of the draft row with it where
         * they are distinct, so that the residual the final token is drawn
         * from has been through four updates */
        const int rejecting = b % 3 == 0;
        for (int32_t j = 0; j <= d; j++) {
            random_row(node_q + (size_t)j * V, V, rejecting ? 400.0 : 4.0);
            random_row(P + (size_t)j * V, V, 4.0);
            const float near = rejecting ? 0.0f : 0.85f;
            for (int32_t i = 0; i < V; i++)
                P[(size_t)j * V + i] = (1.0f - near) * P[(size_t)j * V + i] +
                                       near * node_q[(size_t)j * V + i];
        }
        for (int32_t k = 0; k < d; k++) {
            /* b = 3: a chain; b = 7: a star; b = 14: a binary tree; the
             * rejecting ones: four children at the root; else random */
            par[k] = b == 3 ? k : b == 7 ? 0 : b == 14 ? k / 2
                   : rejecting && k < 4 ? 0 : (int32_t)(unit() * (k + 1));
            par[k] = par[k] > k ? k : par[k];
            memcpy(Q + (size_t)k * V, node_q + (size_t)par[k] * V, (size_t)V * sizeof(float));
            int32_t avoid[TK], n = 0;
            for (int32_t j = 0; distinct && j < k; j++)
                if (par[j] == par[k])
                    avoid[n++] = x[j];
            x[k] = draw_token(Q + (size_t)k * V, V, avoid, n);
        }
        for (int32_t k = 0; k < d; k++)
            if (!rejecting && unit() < 0.8)
                P[(size_t)par[k] * V + x[k]] += 3.0f;
            else if (rejecting && k < 4) /* the root's children: drafts p rules out */
                P[(size_t)par[k] * V + x[k]] = 0.0f;
        for (int32_t j = 0; j <= d; j++) {
            double sum = 0.0;
            for (int32_t i = 0; i < V; i++)
                sum += P[(size_t)j * V + i];
            for (int32_t i = 0; i < V; i++)
                P[(size_t)j * V + i] = (float)(P[(size_t)j * V + i] / sum);
        }
        for (int32_t k = d; k < TK; k++)
            par[k] = x[k] = -1;
        for (size_t i = (size_t)(d + 1) * V; i < (size_t)(TK + 1) * V; i++)
            P[i] = NAN; /* the padded rows past d_b: never to be read */
        memcpy(t->ptarget + ((size_t)t->cu[b] + b) * V, P, (size_t)(d + 1) * V * sizeof(float));
        memcpy(t->pdraft + (size_t)t->cu[b] * V, Q, (size_t)d * V * sizeof(float));
        memcpy(t->parents_packed + t->cu[b], par, (size_t)d * sizeof(int32_t));
        memcpy(t->x_packed + t->cu[b], x, (size_t)d * sizeof(int32_t));
    }
    free(node_q);
}

static void trees_free(trees *t)
{
    free(t->target), free(t->draft), free(t->ptarget), free(t->pdraft);
}

static sv_batch tree_batch(trees *t, int layout, int distinct, int target_only)
{
    const int packed = layout == SV_LAYOUT_PACKED;
    sv_batch bt = {.B = TB, .K = TK, .V = t->V, .layout = layout,
                   .target = packed ? t->ptarget : t->target,
                   .target_stride = (int64_t)(TK + 1) * t->V,
                   .draft = target_only ? NULL : packed ? t->pdraft : t->draft,
                   .draft_stride = (int64_t)TK * t->V,
                   .draft_tokens = packed ? t->x_packed : t->x_pad,
                   .seed = 77, .first_index = 1u << 30, /* no sequence's */
                   .num_drafts = t->d, .cu_num_drafts = t->cu,
                   .indices = t->indices, .seeds = t->seeds,
                   .parents = packed ? t->parents_packed : t->parents_pad,
                   .siblings = distinct ? SV_SIBLINGS_DISTINCT : SV_SIBLINGS_IID};
    return bt;
}

static void poison(outputs *o)
{
    for (size_t i = 0; i < sizeof o->tokens / sizeof o->tokens[0]; i++)
        o->tokens[i] = o->path[i] = CANARY;
    for (size_t i = 0; i < sizeof o->accepted / sizeof o->accepted[0]; i++)
        o->accepted[i] = CANARY;
}

/* bt (host memory) through sampler s: through the CUDA stage for a CUDA
 * sampler, directly for a host one. Its status. */
static int run(const sv_sampler *s, sv_batch bt, outputs *o)
{
    poison(o);
    bt.out_tokens = o->tokens, bt.out_path = o->path, bt.out_accepted = o->accepted;
    sv_limits limits = {.max_B = TB, .max_K = TK, .max_V = bt.V};
    int rc;
    if (s->memspace == SV_MEM_CUDA) {
        sv_cuda_stage *stage = NULL;
        char err[256] = "";
        rc = sv_cuda_stage_init(s, &limits, NULL, 0, &stage, err, sizeof err);
        if (rc == SV_SAMPLER_OK)
            rc = sv_cuda_stage_verify(stage, &bt);
        else
            fprintf(stderr, "  %s: %s\n", s->name, err);
        sv_cuda_stage_free(stage);
    } else {
        void *state = NULL;
        rc = s->init(&state, &limits);
        if (rc == SV_SAMPLER_OK)
            rc = s->verify(state, &bt);
        s->destroy(state);
    }
    return rc;
}

/* Slots of sequence b's outputs, and whether any slot that is no
 * sequence's own was written. */
static int32_t lost_canaries(const trees *t, const sv_batch *bt, const outputs *o)
{
    const int padded = bt->layout == SV_LAYOUT_PADDED;
    const int32_t slots = padded ? (bt->cu_num_drafts ? TB * (TK + 1) : bt->B * (bt->K + 1))
                                 : t->cu[TB] + TB;
    int32_t lost = 0;
    for (int32_t b = 0; padded && bt->num_drafts && b < TB; b++)
        for (int32_t k = t->d[b] + 1; k <= TK; k++)
            lost += (o->tokens[b * (TK + 1) + k] != CANARY) + (o->path[b * (TK + 1) + k] != CANARY);
    for (int32_t i = slots; i < slots + TAIL; i++)
        lost += (o->tokens[i] != CANARY) + (o->path[i] != CANARY);
    for (int32_t i = bt->B; i < bt->B + TAIL; i++)
        lost += o->accepted[i] != CANARY;
    return lost;
}

/* The CUDA sampler and its twin on bt: sequences that differ plus slots
 * lost, or -1 on a bad status; the deepest path into *deepest. */
static int32_t compare(const sv_sampler *cuda, const sv_sampler *twin, const trees *t,
                       const sv_batch *bt, const char *what, int32_t *deepest)
{
    static outputs want, got;
    const int rc_twin = run(twin, *bt, &want), rc_cuda = run(cuda, *bt, &got);
    if (rc_twin != SV_SAMPLER_OK || rc_cuda != SV_SAMPLER_OK) {
        fprintf(stderr, "  %s: status %s %d, %s %d\n", what, twin->name, rc_twin, cuda->name,
                rc_cuda);
        return -1;
    }
    int32_t differ = 0;
    for (int32_t b = 0; b < bt->B; b++) {
        const int64_t at = sv_batch_out_offset(bt, b);
        const int32_t d = sv_batch_num_drafts(bt, b);
        int bad = got.accepted[b] != want.accepted[b];
        for (int32_t k = 0; k <= d; k++)
            bad |= got.tokens[at + k] != want.tokens[at + k] || got.path[at + k] != want.path[at + k];
        if (bad)
            fprintf(stderr, "  %s: sequence %d (d = %d): %s accepted %d, %s %d\n", what, b, d,
                    twin->name, want.accepted[b], cuda->name, got.accepted[b]);
        differ += bad;
        *deepest = want.accepted[b] > *deepest ? want.accepted[b] : *deepest;
    }
    const int32_t lost = lost_canaries(t, bt, &got);
    if (lost)
        fprintf(stderr, "  %s: %d slots not its own written\n", what, lost);
    return differ + lost;
}

static void test_agree(const sv_sampler *cuda, const sv_sampler *twin, int target_only, int32_t V)
{
    int32_t deepest = 0;
    for (int distinct = 0; distinct <= 1; distinct++) {
        trees t;
        trees_make(&t, V, distinct);
        for (int layout = SV_LAYOUT_PADDED; layout <= SV_LAYOUT_PACKED; layout++) {
            sv_batch bt = tree_batch(&t, layout, distinct, target_only);
            char what[96];
            snprintf(what, sizeof what, "%s, V = %d, %s, %s siblings", cuda->name, V,
                     layout == SV_LAYOUT_PACKED ? "packed" : "padded",
                     distinct ? "distinct" : "iid");
            CHECK(compare(cuda, twin, &t, &bt, what, &deepest) == 0);
        }
        /* one shape, no per-sequence arrays: the kernel's uniform path
         * (sequence 14's binary tree of 16 nodes in every slot) */
        sv_batch bt = tree_batch(&t, SV_LAYOUT_PADDED, distinct, target_only);
        bt.layout = SV_LAYOUT_PADDED, bt.num_drafts = NULL, bt.cu_num_drafts = NULL;
        bt.indices = NULL, bt.seeds = NULL, bt.B = 4;
        bt.target += 14 * bt.target_stride, bt.target_stride = 0;
        if (bt.draft)
            bt.draft += 14 * bt.draft_stride, bt.draft_stride = 0;
        int32_t same_x[4 * TK], same_parents[4 * TK];
        for (int32_t b = 0; b < 4; b++) {
            memcpy(same_x + b * TK, t.x_pad + 14 * TK, TK * sizeof(int32_t));
            memcpy(same_parents + b * TK, t.parents_pad + 14 * TK, TK * sizeof(int32_t));
        }
        bt.draft_tokens = same_x, bt.parents = same_parents;
        CHECK(compare(cuda, twin, &t, &bt, "one shape, no per-sequence arrays", &deepest) == 0);
        trees_free(&t);
    }
    printf("  %s against %s, V = %d: the deepest path accepted %d nodes\n", cuda->name,
           twin->name, V, deepest);
    CHECK(deepest >= 3);
}

/* A bad batch: both samplers refuse it. */
static void test_refused(const sv_sampler *cuda, const sv_sampler *twin, int target_only)
{
    trees t;
    trees_make(&t, 300, 0);
    static outputs o;
    const char *what[] = {"a parent after its node", "a draft token outside [0, V)",
                          "the root's target row without mass"};
    for (int c = 0; c < 3; c++) {
        sv_batch bt = tree_batch(&t, SV_LAYOUT_PADDED, 0, target_only);
        int32_t par[TB * TK], x[TB * TK];
        memcpy(par, t.parents_pad, sizeof par);
        memcpy(x, t.x_pad, sizeof x);
        if (c == 0)
            par[4 * TK + 2] = 3; /* node 3's parent cannot be node 3 */
        if (c == 1)
            x[5 * TK + 7] = t.V;
        if (c == 2)
            for (int32_t i = 0; i < t.V; i++)
                t.target[(size_t)2 * (TK + 1) * t.V + i] = 0.0f;
        bt.parents = par, bt.draft_tokens = x;
        const int rc_twin = run(twin, bt, &o), rc_cuda = run(cuda, bt, &o);
        if (rc_twin != SV_SAMPLER_EINVAL || rc_cuda != SV_SAMPLER_EINVAL)
            fprintf(stderr, "  %s: status %s %d, %s %d\n", what[c], twin->name, rc_twin,
                    cuda->name, rc_cuda);
        CHECK(rc_twin == SV_SAMPLER_EINVAL && rc_cuda == SV_SAMPLER_EINVAL);
    }
    trees_free(&t);
}

int main(void)
{
#ifndef SV_TREE_EMULATED
    char why[256] = "";
    if (sv_cuda_device_count(why, sizeof why) == 0) {
        printf("SKIPPED: the CUDA tree samplers need a CUDA device: %s\n", why);
        return SKIP;
    }
#endif
    /* the samplers themselves, not the registry's: on tests/emu these are
     * their host sides built over the stand-in runtime, under names of their own */
    const sv_sampler *tree = &sv_sampler_cuda_tree_naive;
    const sv_sampler *target_only = &sv_sampler_cuda_tree_target_only_naive;
    const sv_sampler *ref = sv_registry_find("ref_tree");
    const sv_sampler *ref_to = sv_registry_find("ref_tree_target_only");
    CHECK(tree && target_only && ref && ref_to);
    if (!tree || !target_only || !ref || !ref_to)
        return check_exit();
    for (int32_t V = 300; V <= 1000; V += 700) {
        test_agree(tree, ref, 0, V);
        test_agree(target_only, ref_to, 1, V);
    }
    feature("the CUDA tree samplers emit their twins' tokens and paths (both rules, both "
            "sibling laws, both layouts, per-sequence trees, the uniform path)");
    test_refused(tree, ref, 0);
    test_refused(target_only, ref_to, 1);
    feature("a parent after its node, a draft outside [0, V) and a massless target row are "
            "refused (EINVAL) by kernel and twin alike");
    return check_exit();
}
