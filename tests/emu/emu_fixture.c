/* emu_fixture.c: the emulated-kernel tests' shared fixture (emu_fixture.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cuda_runtime_api.h" /* tests/emu's: sv_emu_launches */
#include "emu_fixture.h"
#include "sv_registry.h"

const sv_cuda_seqs no_seqs = {0};

void fixture_alloc(fixture *f, int32_t B, int32_t K, int32_t V)
{
    memset(f, 0, sizeof *f);
    const size_t nt = (size_t)B * (size_t)(K + 1) * (size_t)V, nd = (size_t)B * (size_t)K * (size_t)V;
    f->target = calloc(nt, sizeof(float));
    f->draft = calloc(nd, sizeof(float));
    f->target_logits = calloc(nt, sizeof(float));
    f->draft_logits = calloc(nd, sizeof(float));
    f->target_bf16 = calloc(nt, sizeof(uint16_t));
    f->draft_bf16 = calloc(nd, sizeof(uint16_t));
    f->drafts = calloc((size_t)B * (size_t)K, sizeof(int32_t));
    f->ref_tokens = calloc((size_t)B * (size_t)(K + 1), sizeof(int32_t));
    f->emu_tokens = calloc((size_t)B * (size_t)(K + 1), sizeof(int32_t));
    f->ref_accepted = calloc((size_t)B, sizeof(int32_t));
    f->emu_accepted = calloc((size_t)B, sizeof(int32_t));
    f->bt.B = B, f->bt.K = K, f->bt.V = V;
    f->bt.target_stride = (int64_t)(K + 1) * V;
    f->bt.draft_stride = (int64_t)K * V;
    f->bt.draft_tokens = f->drafts;
    f->bt.seed = 20261123;
    f->bt.first_index = 1000;
}

void fixture_free(fixture *f)
{
    free(f->target), free(f->draft), free(f->target_logits), free(f->draft_logits);
    free(f->target_bf16), free(f->draft_bf16), free(f->drafts);
    free(f->ref_tokens), free(f->emu_tokens), free(f->ref_accepted), free(f->emu_accepted);
}

/* The twin through the sampler contract, into ref_tokens / ref_accepted. */
int run_twin(fixture *f, const char *name)
{
    const sv_sampler *s = sv_registry_find(name);
    void *state = NULL;
    sv_limits lim = {.max_B = f->bt.B, .max_K = f->bt.K, .max_V = f->bt.V};
    sv_batch bt = f->bt;
    bt.out_tokens = f->ref_tokens;
    bt.out_accepted = f->ref_accepted;
    int rc = s->init(&state, &lim);
    if (rc == SV_SAMPLER_OK)
        rc = s->verify(state, &bt);
    s->destroy(state);
    return rc;
}

/* Sequences whose accepted count or any token differ. */
int32_t mismatches(const fixture *f)
{
    int32_t bad = 0;
    for (int32_t b = 0; b < f->bt.B; b++) {
        int differ = f->ref_accepted[b] != f->emu_accepted[b];
        for (int32_t k = 0; k <= f->bt.K; k++)
            differ |= f->ref_tokens[(size_t)b * (size_t)(f->bt.K + 1) + (size_t)k] !=
                      f->emu_tokens[(size_t)b * (size_t)(f->bt.K + 1) + (size_t)k];
        bad += differ;
    }
    return bad;
}

/* Counts the twin's accepted counts into seen[0 .. K]. */
void count_accepted(const fixture *f, int32_t *seen)
{
    for (int32_t b = 0; b < f->bt.B; b++)
        if (f->ref_accepted[b] >= 0 && f->ref_accepted[b] <= f->bt.K)
            seen[f->ref_accepted[b]]++;
}

/* 1 if every accepted count 0 .. K was seen. */
int every_count(const int32_t *seen, int32_t K)
{
    int all = 1;
    for (int32_t n = 0; n <= K; n++)
        all &= seen[n] > 0;
    if (!all)
        for (int32_t n = 0; n <= K; n++)
            fprintf(stderr, "  %d sequences accepted %d drafts\n", seen[n], n);
    return all;
}

/* f's batch with the emulated kernel's outputs; with rng (a graph's
 * {seed, first index} in device memory) given, bt's own seed and first
 * index are made wrong, so that only rng can give the twin's tokens. */
sv_batch emu_batch(const fixture *f, const uint64_t *rng)
{
    sv_batch bt = f->bt;
    bt.out_tokens = f->emu_tokens;
    bt.out_accepted = f->emu_accepted;
    if (rng)
        bt.seed = ~rng[0], bt.first_index = rng[1] + 12345;
    return bt;
}

/* 1 if the launches since the last call were `early` early ones and
 * `ordinary` ordinary ones; else 0, and says what they were. */
int launches_were(long early, long ordinary)
{
    static long early_before, ordinary_before;
    const long e = sv_emu_launches(1) - early_before, o = sv_emu_launches(0) - ordinary_before;
    if (e != early || o != ordinary)
        fprintf(stderr, "  launches: %ld early and %ld ordinary, not %ld and %ld\n", e, o, early,
                ordinary);
    early_before += e, ordinary_before += o;
    return e == early && o == ordinary;
}
