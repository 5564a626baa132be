/* test_emu_staging.c: device staging (verify --device-staging, issue 28)
 * against host staging, count for count.
 *
 * Each case runs twice through a CUDA sampler's stage as the runner drives
 * it: host staging (drafts by sv_drafter_draw, the outputs copied back and
 * counted by sv_count_batch) and device staging (drafts, check and counts
 * on the device, cuda_dstage.c; a batch the device finds broken counted by
 * the host, as fixed_unit does). The device's drafts must be the host's
 * token for token, and every tally array, the draws, the violations and
 * the notes the same. A sampler that breaks the contract on two sequences
 * (a wrapper that writes an accepted count of K + 1 there) must send
 * exactly their two batches to the host, note both as host staging does,
 * and leave the other batches counted on the device.
 *
 * Built with SV_STAGING_EMULATED (test_emu_staging, label unit) it runs on
 * tests/emu; built without it (test_gpu_staging, label gpu) the same on a
 * GPU, skipped (exit 77) without one. Deterministic. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "check.h"
#include "cuda_stage.h"
#include "device_staging.h"
#include "sampler_host.h"
#include "sv_registry.h"

#define SKIP 77
enum { BATCH = 64 };

/* ---- a sampler that breaks the contract: cuda_fused, then accepted = K + 1
 * written on the device for the sequences in `broken` ---- */
static const uint64_t broken[] = {100, 250};
static const sv_sampler *wrapped;

static int bad_init(void **state, const sv_limits *limits)
{
    return wrapped->init(state, limits);
}

static int bad_verify(void *state, const sv_batch *bt)
{
    int rc = wrapped->verify(state, bt);
    const int32_t too_many = bt->K + 1;
    for (size_t i = 0; rc == SV_SAMPLER_OK && i < sizeof broken / sizeof broken[0]; i++) {
        if (broken[i] < bt->first_index || broken[i] >= bt->first_index + (uint64_t)bt->B)
            continue;
        int32_t *at = bt->out_accepted + (broken[i] - bt->first_index);
        if (cudaMemcpyAsync(at, &too_many, sizeof too_many, cudaMemcpyHostToDevice,
                            (cudaStream_t)bt->stream) != cudaSuccess ||
            cudaStreamSynchronize((cudaStream_t)bt->stream) != cudaSuccess)
            rc = SV_SAMPLER_EDEVICE;
    }
    return rc;
}

static void bad_destroy(void *state)
{
    wrapped->destroy(state);
}

/* ---- one run of a case through a stage ---- */
typedef struct run_out {
    sv_tally *t;
    int32_t *drafts;  /* device staging: the device's drafts, [draws][K] */
    int fallbacks, device_batches;
} run_out;

static int run(const sv_sampler *s, const sv_case *c, const sv_drafter *d,
               const sv_pair_plan *plan, uint64_t draws, uint64_t seed, int device,
               run_out *o)
{
    const int32_t K = c->K;
    memset(o, 0, sizeof *o);
    int rc = sv_tally_alloc(c, plan, &o->t);
    if (rc != SV_OK)
        return rc;
    o->drafts = calloc((size_t)draws * (size_t)K + 1, sizeof *o->drafts);
    int32_t *x = malloc((size_t)BATCH * (size_t)K * sizeof *x + 4);
    int32_t *tokens = malloc((size_t)BATCH * (size_t)(K + 1) * sizeof *tokens);
    int32_t *accepted = malloc(BATCH * sizeof *accepted);
    unsigned char valid[BATCH];
    uint64_t indices[BATCH], seeds[BATCH];
    int32_t cu[BATCH + 1], num_drafts[BATCH];
    uint8_t seeded[BATCH];
    gsl_rng *philox = gsl_rng_alloc(sv_gsl_rng_philox);
    sv_staging *staging = NULL;
    sv_cuda_stage *stage = NULL;
    char err[SV_NOTE_LEN] = "";
    sv_limits limits = {.max_B = BATCH, .max_K = K, .max_V = c->V};
    CHECK(o->drafts && x && tokens && accepted && philox);
    rc = sv_cuda_stage_init(s, &limits, NULL, 0, &stage, err, sizeof err);
    if (rc == SV_SAMPLER_OK && device && (rc = sv_staging_open(c, d, plan, 1, &staging)) == SV_OK)
        rc = sv_cuda_stage_use_device(stage, &staging->slot[0], err, sizeof err);
    if (rc != SV_SAMPLER_OK)
        fprintf(stderr, "  %s: %s\n", s->name, err);
    sv_run_config cfg = {.sampler = s};
    sv_worker_buffers w = {.drafts = x, .indices = indices, .seeds = seeds, .cu = cu,
                           .num_drafts = num_drafts, .seeded = seeded};
    for (uint64_t first = 0; rc == SV_SAMPLER_OK && first < draws; first += BATCH) {
        const int32_t B = draws - first < BATCH ? (int32_t)(draws - first) : BATCH;
        for (int32_t b = 0; !device && b < B; b++)
            sv_drafter_draw(d, philox, seed, first + (uint64_t)b, x + (size_t)b * K);
        for (int32_t i = 0; i < B * (K + 1); i++)
            tokens[i] = SV_POISON;
        for (int32_t b = 0; b < B; b++)
            accepted[b] = SV_POISON;
        sv_batch bt = {.B = B, .K = K, .V = c->V, .target = c->target, .draft = c->draft,
                       .draft_tokens = device ? NULL : x, .seed = seed, .first_index = first,
                       .out_tokens = tokens, .out_accepted = accepted};
        sv_batch_uniform_v3(&bt, &w, &cfg);
        rc = sv_cuda_stage_verify(stage, &bt);
        if (rc != SV_SAMPLER_OK)
            break;
        if (device) {
            CHECK(sv_cuda_stage_read_drafts(stage, B, o->drafts + first * (uint64_t)K) ==
                  SV_SAMPLER_OK);
            if (!staging->slot[0].fallback) {
                o->t->draws += (uint64_t)B;
                o->device_batches++;
                continue;
            }
            o->fallbacks++;
            for (int32_t b = 0; b < B; b++)
                sv_drafter_draw(d, philox, seed, first + (uint64_t)b, x + (size_t)b * K);
        } else {
            memcpy(o->drafts + first * (uint64_t)K, x, (size_t)B * (size_t)K * sizeof *x);
        }
        sv_count_batch(o->t, c, plan, first, seed, B, x, tokens, accepted, valid);
    }
    sv_cuda_stage_free(stage); /* device staging: the counts reach the slot */
    if (staging) {
        CHECK(rc != SV_SAMPLER_OK || staging->slot[0].counted);
        sv_staging_collect(&staging->slot[0], o->t);
        sv_staging_close(staging);
    }
    gsl_rng_free(philox);
    free(x);
    free(tokens);
    free(accepted);
    return rc;
}

static void run_free(run_out *o)
{
    sv_tally_free(o->t);
    free(o->drafts);
}

/* Host and device staging of spec through s: every count the same. */
static void compare(const sv_sampler *s, const char *spec, uint64_t draws, int breaks)
{
    sv_case *c = NULL;
    sv_drafter *d = NULL;
    sv_pair_plan plan;
    char err[512];
    CHECK(sv_case_from_spec(spec, &c, err, sizeof err) == 0);
    if (!c)
        return;
    CHECK(sv_drafter_alloc(c, &d) == SV_OK && sv_pair_plan_build(c, draws, &plan) == SV_OK);
    const uint64_t seed = 0x5eed0000u + draws;
    run_out host, dev;
    CHECK(run(s, c, d, &plan, draws, seed, 0, &host) == SV_SAMPLER_OK);
    CHECK(run(s, c, d, &plan, draws, seed, 1, &dev) == SV_SAMPLER_OK);

    size_t differ = 0;
    for (size_t i = 0; i < (size_t)draws * (size_t)c->K; i++)
        differ += host.drafts[i] != dev.drafts[i];
    if (differ)
        fprintf(stderr, "  %s: %zu of %llu drafts differ\n", spec, differ,
                (unsigned long long)draws * (unsigned long long)c->K);
    CHECK(differ == 0);

    sv_tally_counts a[SV_TALLY_COUNTS], b[SV_TALLY_COUNTS];
    sv_tally_counts_of(host.t, &plan, a);
    sv_tally_counts_of(dev.t, &plan, b);
    for (int i = 0; i < SV_TALLY_COUNTS; i++) {
        CHECK(a[i].n == b[i].n);
        size_t off = 0;
        uint64_t sum = 0;
        for (size_t j = 0; a[i].data && j < a[i].n; j++) {
            off += a[i].data[j] != b[i].data[j];
            sum += a[i].data[j];
        }
        if (off)
            fprintf(stderr, "  %s: %s: %zu of %zu counts differ\n", spec, a[i].name, off, a[i].n);
        CHECK(off == 0);
        /* what is compared is there: tokens, lengths and pairs were counted */
        if (i == 0 || i == 1 || i == 2)
            CHECK(sum > 0);
        if (i == 3 && plan.seq_ok)
            CHECK(sum > 0);
    }
    CHECK(host.t->draws == draws && dev.t->draws == draws);
    CHECK(host.t->violations == dev.t->violations);
    CHECK(host.t->n_notes == dev.t->n_notes);
    for (int32_t i = 0; i < host.t->n_notes && i < dev.t->n_notes; i++) {
        CHECK(host.t->note_at[i] == dev.t->note_at[i]);
        CHECK(strcmp(host.t->notes[i], dev.t->notes[i]) == 0);
    }
    CHECK(dev.device_batches > 0);
    if (breaks) { /* the two broken sequences' batches, and only they, went to the host */
        CHECK(host.t->violations == 2 && dev.fallbacks == 2);
        /* named as the sampler saw them: draws 100 and 250 are requests
         * 36 and 58 of their batches of 64, under the run's seed */
        char first[96], second[96];
        snprintf(first, sizeof first, "request 36 of the batch (seed %llu): accepted count",
                 (unsigned long long)seed);
        snprintf(second, sizeof second, "request 58 of the batch (seed %llu): accepted count",
                 (unsigned long long)seed);
        CHECK(dev.t->n_notes == 2 && strstr(dev.t->notes[0], first) &&
              strstr(dev.t->notes[1], second));
    } else {
        CHECK(host.t->violations == 0 && dev.fallbacks == 0);
    }
    run_free(&host);
    run_free(&dev);
    sv_pair_plan_free(&plan);
    sv_drafter_free(d);
    sv_case_free(c);
}

int main(void)
{
#ifndef SV_STAGING_EMULATED
    char why[256] = "";
    if (sv_cuda_device_count(why, sizeof why) == 0) {
        printf("SKIPPED: device staging needs a CUDA device: %s\n", why);
        return SKIP;
    }
#endif
    /* the sampler itself, not the registry's: on tests/emu its host side over
     * the stand-in runtime, under a name of its own */
    const sv_sampler *fused = &sv_sampler_cuda_fused;
    wrapped = fused;
    const sv_sampler bad = {.name = "cuda_fused_breaks_n", .description = "breaks n",
                            .memspace = SV_MEM_CUDA, .init = bad_init, .verify = bad_verify,
                            .destroy = bad_destroy, .inputs = fused->inputs,
                            .layouts = fused->layouts, .rule = fused->rule};
    /* an odd draw count: the last batch is short, its last sequence unpaired */
    compare(fused, "zipf:V=300,K=4,s=1.2", 5 * BATCH + 7, 0);
    compare(fused, "identical:V=100,K=2", 4 * BATCH, 0);
    compare(fused, "disjoint:V=200,K=3", 4 * BATCH + 2, 0);
    feature("device staging drafts the host's tokens and counts what host staging counts");
    compare(&bad, "zipf:V=300,K=4,s=1.2", 6 * BATCH, 1);
    feature("a batch that breaks the contract is counted and noted by the host, as without "
            "device staging, and only that batch");
    return check_exit();
}
