/* emu_fixture.h: what the emulated-kernel tests share: one batch and both
 * samplers' outputs (a CUDA kernel's, emulated, against its CPU twin's), a
 * seeded generator for their rows, and the emulator's launch counts. */
#ifndef SV_EMU_FIXTURE_H
#define SV_EMU_FIXTURE_H

#include <stdint.h>
#include "emu_rows.h" /* the fixture's makers draw from lcg32 */
#include "sv_cuda_kernels.h"
#include "sv_sampler.h"

/* One batch and both samplers' outputs. */
typedef struct fixture {
    sv_batch bt;
    float *target, *draft;
    float *target_logits, *draft_logits; /* logits modes: float, or bf16 bits below */
    uint16_t *target_bf16, *draft_bf16;
    int32_t *drafts;
    int32_t *ref_tokens, *ref_accepted, *emu_tokens, *emu_accepted;
} fixture;

/* No per-sequence data (cu NULL): the launchers' uniform path. */
extern const sv_cuda_seqs no_seqs;

void fixture_alloc(fixture *f, int32_t B, int32_t K, int32_t V);
void fixture_free(fixture *f);
/* The twin (a registered sampler) through the sampler contract, into
 * ref_tokens / ref_accepted: its status. */
int run_twin(fixture *f, const char *name);
/* Sequences whose accepted count or any token differ. */
int32_t mismatches(const fixture *f);
/* Counts the twin's accepted counts into seen[0 .. K]. */
void count_accepted(const fixture *f, int32_t *seen);
/* 1 if every accepted count 0 .. K was seen (else says which were). */
int every_count(const int32_t *seen, int32_t K);
/* f's batch with the emulated kernel's outputs; with rng (a graph's {seed,
 * first index} in device memory) given, bt's own are made wrong. */
sv_batch emu_batch(const fixture *f, const uint64_t *rng);
/* 1 if the launches since the last call were `early` early ones and
 * `ordinary` ordinary ones; else 0, and says what they were. */
int launches_were(long early, long ordinary);

#endif
