/* test_emu_mixed_dstage.c: device staging in mixed batches (issue 40)
 * against host staging, count for count, on tests/emu.
 *
 * Each mix runs twice through the runner as verify drives it (sv_run_mix,
 * in process; harness/run/host_calls.c over the CUDA stage on tests/emu)
 * into cuda_fused: host staging, then device staging (cuda_dstage.c: every
 * sequence drafted, checked and counted on the device in its own case's
 * part). A spy around the sampler copies back the draft tokens it was
 * given, sequence by sequence: the device's must be the host's token for
 * token. Every case's tally arrays, draws, violations and notes must be the
 * same. Mixes: three probs cases of K 4, 3, 2 at V = 256, and two
 * logits-f32 cases (temperature, top-k, top-p) of K 3, 5 at V = 64 (the
 * emulated fused kernel is slow on logits); ragged drafts, per-request
 * seeds, each layout; one thread and two. A sampler that writes an accepted
 * count past d for two sequences must have their two batches counted and
 * noted by the host, with the same notes. The copies back to the host
 * (tests/emu/emu_copies.h), less the spy's own and the counts' one copy
 * when a stage ends, show the device counted the rest: a flag a batch, not
 * its outputs, as host staging copies back. Prints the bytes per draw. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "check.h"
#include "emu_copies.h"
#include "sampler_host.h"
#include "sv_registry.h"

enum { BATCH = 64, MAX_CASES = 3 };

/* ---- the spy: cuda_fused, its draft tokens copied back per sequence, and
 * (when `breaking`) an accepted count of K + 1 written for `broken` ---- */
static const uint64_t broken[] = {77, 300};
static int breaking;
static int32_t *seen;      /* [draws][SV_MAX_K]: the drafts each sequence was given, -1 past d */
static uint64_t seen_draws;
static _Atomic unsigned long long spied; /* bytes the spy itself copied back */

static int spy_init(void **state, const sv_limits *limits)
{
    return sv_sampler_cuda_fused.init(state, limits);
}

static int copy_down(void *to, const void *from, size_t bytes, const sv_batch *bt)
{
    return cudaMemcpyAsync(to, from, bytes, cudaMemcpyHostToDevice, (cudaStream_t)bt->stream) ==
                   cudaSuccess && cudaStreamSynchronize((cudaStream_t)bt->stream) == cudaSuccess
               ? SV_SAMPLER_OK : SV_SAMPLER_EDEVICE;
}

/* The batch's drafts, as the sampler reads them, into `seen`. */
static int record(const sv_batch *bt)
{
    const size_t B = (size_t)bt->B, K = (size_t)bt->K;
    int32_t *cu = malloc((B + 1) * sizeof *cu), *x = malloc(B * K * sizeof *x + 4);
    int rc = cu && x ? SV_SAMPLER_OK : SV_SAMPLER_ENOMEM;
    if (rc == SV_SAMPLER_OK &&
        cudaMemcpy(cu, bt->cu_num_drafts, (B + 1) * sizeof *cu, cudaMemcpyDeviceToHost) !=
            cudaSuccess)
        rc = SV_SAMPLER_EDEVICE;
    const size_t n = rc != SV_SAMPLER_OK ? 0
                     : bt->layout == SV_LAYOUT_PACKED ? (size_t)cu[B] : B * K;
    if (n && cudaMemcpy(x, bt->draft_tokens, n * sizeof *x, cudaMemcpyDeviceToHost) !=
                 cudaSuccess)
        rc = SV_SAMPLER_EDEVICE;
    spied += (B + 1 + n) * sizeof *x;
    for (size_t b = 0; rc == SV_SAMPLER_OK && b < B; b++) {
        const uint64_t g = bt->first_index + b;
        const int32_t d = cu[b + 1] - cu[b];
        const int32_t *from = x + (bt->layout == SV_LAYOUT_PACKED ? (size_t)cu[b] : b * K);
        for (int32_t k = 0; g < seen_draws && k < SV_MAX_K; k++)
            seen[g * SV_MAX_K + (uint64_t)k] = k < d ? from[k] : -1;
    }
    free(cu);
    free(x);
    return rc;
}

static int spy_verify(void *state, const sv_batch *bt)
{
    int rc = record(bt);
    if (rc == SV_SAMPLER_OK)
        rc = sv_sampler_cuda_fused.verify(state, bt);
    const int32_t too_many = bt->K + 1;
    for (size_t i = 0; breaking && rc == SV_SAMPLER_OK && i < sizeof broken / sizeof *broken; i++)
        if (broken[i] >= bt->first_index && broken[i] < bt->first_index + (uint64_t)bt->B)
            rc = copy_down(bt->out_accepted + (broken[i] - bt->first_index), &too_many,
                           sizeof too_many, bt);
    return rc;
}

static void spy_destroy(void *state)
{
    sv_sampler_cuda_fused.destroy(state);
}

/* ---- one run of a mix ---- */
typedef struct mix_run {
    sv_tally *tallies[MAX_CASES];
    int32_t *drafts; /* `seen` of the run */
    sv_emu_copies copies;
} mix_run;

typedef struct mix_case {
    const char *const *specs;
    int32_t n, input, layout, threads;
    uint64_t draws; /* per case */
} mix_case;

static void run_mix(const sv_sampler *s, const mix_case *mc, sv_case *const *cases,
                    sv_drafter *const *drafters, const sv_mix *m, const sv_pair_plan *plans,
                    int device, mix_run *out)
{
    memset(out, 0, sizeof *out);
    for (int32_t i = 0; i < mc->n; i++)
        CHECK(sv_tally_alloc(cases[i], &plans[i], &out->tallies[i]) == SV_OK);
    seen_draws = m->draws;
    seen = calloc((size_t)m->draws * SV_MAX_K, sizeof *seen);
    CHECK(seen != NULL);
    spied = 0;
    sv_run_config cfg = {.sampler = s, .seed = 0x5eed41u, .batch = BATCH, .threads = mc->threads,
                         .in_process = 1, .input = mc->input, .device_staging = device};
    sv_emu_copies_reset();
    CHECK(sv_run_mix(&cfg, m, (const sv_drafter *const *)drafters, plans, out->tallies, 0,
                     NULL) == SV_OK);
    out->copies = sv_emu_copies_read();
    out->copies.bytes[SV_EMU_TO_HOST] -= spied;
    out->drafts = seen;
    seen = NULL;
}

/* The bytes of counts a device stage copies back when it ends, every
 * case's (cuda_dstage.c, alloc_counts): hist, reached, length, pairs. */
static unsigned long long count_bytes(const sv_case *c, const sv_pair_plan *plan)
{
    size_t n = (size_t)(c->K + 1) * (size_t)c->V + 2 * (size_t)(c->K + 1);
    if (plan->seq_ok)
        n += (size_t)plan->seq_rows.nbins * (size_t)plan->seq_cols.nbins;
    if (plan->pos_ok)
        n += (size_t)plan->pos_rows.nbins * (size_t)plan->pos_cols.nbins;
    return n * sizeof(uint64_t);
}

/* Host and device staging of the mix: the same drafts and every count. */
static void compare(const sv_sampler *s, const mix_case *mc, int breaks)
{
    sv_case *cases[MAX_CASES] = {0};
    sv_drafter *drafters[MAX_CASES] = {0};
    sv_pair_plan plans[MAX_CASES];
    uint64_t draws[MAX_CASES], got[MAX_CASES], pairs[MAX_CASES], drafted[MAX_CASES];
    char err[512];
    for (int32_t i = 0; i < mc->n; i++) {
        CHECK(sv_case_from_spec(mc->specs[i], &cases[i], err, sizeof err) == 0 && cases[i]);
        CHECK(mc->input == SV_INPUT_PROBS ||
              sv_case_use_logits(cases[i], mc->input, err, sizeof err) == 0);
        CHECK(sv_drafter_alloc(cases[i], &drafters[i]) == SV_OK);
        draws[i] = mc->draws;
    }
    sv_mix *m = NULL;
    sv_mix_config cfg = {.cases = (const sv_case *const *)cases, .n_cases = mc->n,
                         .draws = draws, .seed = 0x5eed41u, .layouts = SV_LAYOUT_BIT(mc->layout),
                         .seeding = SV_SEEDING_MIXED, .ragged = 1, .budget = SV_MIX_BUDGET,
                         .alias = 1};
    CHECK(sv_mix_build(&cfg, &m) == SV_OK);
    sv_mix_counts(m, got, pairs, drafted);
    for (int32_t i = 0; i < mc->n; i++)
        CHECK(sv_pair_plan_build_counts(cases[i], pairs[i], drafted[i], &plans[i]) == SV_OK);
    breaking = breaks;
    mix_run host, dev;
    run_mix(s, mc, cases, drafters, m, plans, 0, &host);
    run_mix(s, mc, cases, drafters, m, plans, 1, &dev);

    const char *lay = mc->layout == SV_LAYOUT_PACKED ? "packed" : "padded";
    size_t differ = 0, given = 0;
    for (size_t i = 0; i < (size_t)m->draws * SV_MAX_K; i++) {
        differ += host.drafts[i] != dev.drafts[i];
        given += host.drafts[i] >= 0;
    }
    if (differ)
        fprintf(stderr, "  %s, %s: %zu of %zu drafts differ\n", mc->specs[0], lay, differ, given);
    CHECK(differ == 0 && given > 0);
    for (int32_t i = 0; i < mc->n; i++) {
        const sv_tally *a = host.tallies[i], *b = dev.tallies[i];
        sv_tally_counts x[SV_TALLY_COUNTS], y[SV_TALLY_COUNTS];
        sv_tally_counts_of(a, &plans[i], x);
        sv_tally_counts_of(b, &plans[i], y);
        for (int j = 0; j < SV_TALLY_COUNTS; j++) {
            size_t off = 0;
            uint64_t sum = 0;
            CHECK(x[j].n == y[j].n);
            for (size_t k = 0; x[j].data && k < x[j].n && x[j].n == y[j].n; k++) {
                off += x[j].data[k] != y[j].data[k];
                sum += x[j].data[k];
            }
            if (off)
                fprintf(stderr, "  %s (%s): %s: %zu of %zu counts differ\n", mc->specs[i], lay,
                        x[j].name, off, x[j].n);
            CHECK(off == 0);
            if (j <= 1) /* the tokens were counted: what is compared is there */
                CHECK(sum > 0);
        }
        CHECK(a->draws == got[i] && b->draws == got[i]);
        CHECK(a->violations == b->violations && a->n_notes == b->n_notes);
        for (int32_t k = 0; k < a->n_notes && k < b->n_notes; k++)
            CHECK(a->note_at[k] == b->note_at[k] && strcmp(a->notes[k], b->notes[k]) == 0);
    }
    uint64_t violations = 0;
    for (int32_t i = 0; i < mc->n; i++)
        violations += dev.tallies[i]->violations;
    CHECK(violations == (breaks ? 2u : 0u));
    /* the device counted: outputs came back only for a broken sequence's
     * batch (host staging: every batch's, 4 (K + 2) bytes a draw or so),
     * the counts once a stage (each thread's) when it ends */
    unsigned long long counts = 0;
    for (int32_t i = 0; i < mc->n; i++)
        counts += (unsigned long long)mc->threads * count_bytes(cases[i], &plans[i]);
    CHECK(dev.copies.bytes[SV_EMU_TO_HOST] > counts);
    const double back_host = (double)host.copies.bytes[SV_EMU_TO_HOST] / (double)m->draws,
                 back_dev = ((double)dev.copies.bytes[SV_EMU_TO_HOST] - (double)counts) /
                            (double)m->draws;
    printf("  %-34s %s, %d thread%s%s: %llu draws; to the device %.1f B/draw host staging, "
           "%.1f device; back %.1f B/draw host staging, %.1f device (and its counts once)\n",
           mc->specs[0], lay, mc->threads, mc->threads > 1 ? "s" : "", breaks ? ", breaks n" : "",
           (unsigned long long)m->draws,
           (double)host.copies.bytes[SV_EMU_TO_DEVICE] / (double)m->draws,
           (double)dev.copies.bytes[SV_EMU_TO_DEVICE] / (double)m->draws, back_host, back_dev);
    CHECK(back_dev < (breaks ? 0.5 : 0.25) * back_host);
    for (int32_t i = 0; i < mc->n; i++) {
        sv_tally_free(host.tallies[i]);
        sv_tally_free(dev.tallies[i]);
        sv_pair_plan_free(&plans[i]);
        sv_drafter_free(drafters[i]);
        sv_case_free(cases[i]);
    }
    free(host.drafts);
    free(dev.drafts);
    sv_mix_free(m);
}

int main(void)
{
    const sv_sampler *fused = &sv_sampler_cuda_fused;
    const sv_sampler spy = {.name = "cuda_fused_spy", .description = "spies on its drafts",
                            .memspace = SV_MEM_CUDA, .init = spy_init, .verify = spy_verify,
                            .destroy = spy_destroy, .inputs = fused->inputs,
                            .layouts = fused->layouts, .rule = fused->rule};
    static const char *const probs[] = {"zipf:V=256,K=4,s=1.2", "disjoint:V=256,K=3",
                                        "identical:V=256,K=2"};
    static const char *const logits[] = {"logits:V=64,K=3,T=0.8,topk=20,topp=0.9",
                                         "logits:V=64,K=5,T=1.3"};
    const int32_t layouts[2] = {SV_LAYOUT_PADDED, SV_LAYOUT_PACKED};
    for (int l = 0; l < 2; l++) {
        const mix_case p = {probs, 3, SV_INPUT_PROBS, layouts[l], 1, 160};
        const mix_case g = {logits, 2, SV_INPUT_LOGITS_F32, layouts[l], 1, 64};
        const mix_case two = {probs, 3, SV_INPUT_PROBS, layouts[l], 2, 160};
        compare(&spy, &p, 0);
        compare(&spy, &g, 0);
        compare(&spy, &two, 0);
    }
    feature("device staging in mixed batches drafts the host's tokens and counts what host "
            "staging counts, case by case: probs and logits, padded and packed, ragged, "
            "one thread and two");
    const mix_case p = {probs, 3, SV_INPUT_PROBS, SV_LAYOUT_PACKED, 1, 160};
    const mix_case q = {probs, 3, SV_INPUT_PROBS, SV_LAYOUT_PADDED, 1, 160};
    compare(&spy, &p, 1);
    compare(&spy, &q, 1);
    feature("a mixed batch that breaks the contract is counted and noted by the host, as "
            "without device staging, and the rest by the device");
    return check_exit();
}
