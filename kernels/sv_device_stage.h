/* sv_device_stage.h: the kernels of device staging (verify --device-staging,
 * harness/run/cuda_dstage.c): a fixed-row case's drafts drawn on the device
 * from the host's GSL Walker alias tables and addressed Philox numbers (the
 * host's tokens, bit for bit), the contract check of a batch's outputs, and
 * the batch's counts added into device tallies with atomics. Launchers
 * return a cudaError_t as int (0: launched). */
#ifndef SV_DEVICE_STAGE_H
#define SV_DEVICE_STAGE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A case's rows and bins on the device, set once per case. */
typedef struct sv_dstage_rows {
    int32_t K, V;
    const double *F;       /* [K][V]: gsl_ran_discrete_t's F of each draft row */
    const int32_t *A;      /* [K][V]: its aliases */
    const float *target;   /* [K+1][V]: p, for the check's zero-mass test */
    const int32_t *seq_rows, *seq_cols; /* [V] bins of (y_1 of 2m, y_1 of 2m+1); NULL: none */
    const int32_t *pos_rows, *pos_cols; /* [V] bins of (y_1, y_2); NULL: none */
    int32_t seq_ncols, pos_ncols;
} sv_dstage_rows;

/* A tally's count arrays on the device, laid out as sv_tally's. */
typedef struct sv_dstage_counts {
    unsigned long long *hist;             /* [K+1][V] */
    unsigned long long *reached, *length; /* [K+1] each */
    unsigned long long *pairs_seq;        /* seq rows x seq_ncols */
    unsigned long long *pairs_pos;        /* pos rows x pos_ncols */
} sv_dstage_counts;

/* drafts[B][K] of sequences first.. from (seed, index, k, DRAFT), as
 * sv_drafter_draw draws them on the host. */
int sv_dstage_draft_launch(const sv_dstage_rows *r, uint64_t seed, uint64_t first, int32_t B,
                           int32_t *drafts, void *stream);
/* Sets *flag nonzero when any of the B sequences breaks the contract as
 * sv_check_sequence judges it (outputs [B][K+1], accepted [B]). */
int sv_dstage_check_launch(const sv_dstage_rows *r, int32_t B, const int32_t *drafts,
                           const int32_t *tokens, const int32_t *accepted, unsigned *flag,
                           void *stream);
/* Counts the batch (sequences first.., first even) as sv_count_batch does,
 * unless *flag is set: then it counts nothing, and the host counts it. */
int sv_dstage_tally_launch(const sv_dstage_rows *r, const sv_dstage_counts *c, int32_t B,
                           const int32_t *tokens, const int32_t *accepted,
                           const unsigned *flag, void *stream);

/* A mixed batch (harness/run/mix.c): its sequences are the mix's slots
 * s0, s0 + 1, .. (mod period), each of its own case, with its own d drafts
 * (d <= the case's K <= K), laid out padded (K drafts, K + 1 outputs a
 * sequence: past d -1 and SV_POISON) or packed (d drafts, d + 1 outputs,
 * at the slots' prefix sums). */
typedef struct sv_dstage_mix {
    int32_t n_cases, period, K, V;
    int32_t packed;                 /* 1: the packed layout */
    int32_t poison;                 /* what the runner left in padded slots (SV_POISON) */
    int32_t s0;                     /* the batch's first slot, < period */
    const int32_t *case_of, *drafts, *cu; /* the mix's [period], [period], [period + 1] */
    const sv_dstage_rows *rows;     /* [n_cases]: each case's, itself on the device */
    const sv_dstage_counts *counts; /* [n_cases] */
} sv_dstage_mix;

/* As the three above, sequence by sequence in its own case. */
int sv_dstage_mix_draft_launch(const sv_dstage_mix *m, uint64_t seed, uint64_t first,
                               int32_t B, int32_t *drafts, void *stream);
int sv_dstage_mix_check_launch(const sv_dstage_mix *m, int32_t B, const int32_t *drafts,
                               const int32_t *tokens, const int32_t *accepted, unsigned *flag,
                               void *stream);
int sv_dstage_mix_tally_launch(const sv_dstage_mix *m, int32_t B, const int32_t *tokens,
                               const int32_t *accepted, const unsigned *flag, void *stream);

#ifdef __cplusplus
}
#endif

#endif
