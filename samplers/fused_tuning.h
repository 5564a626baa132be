/* fused_tuning.h: cuda_fused's experiment knobs, read from the environment.
 * They change how fast cuda_fused is, never which tokens it emits:
 *   SV_FUSED_PRUNE=0|1   0 times every token of the race exactly (default 1:
 *                        pruned), to measure what pruning gains
 *   SV_FUSED_DEPTH=1|2   rounds of the row pair each thread keeps in flight
 *                        in probs mode (default 1)
 *   SV_FUSED_SPLITS=N    blocks per sequence in probs mode, 1 to 65535
 *                        (default: as many as fill one wave of the GPU)
 *   SV_FUSED_EARLY=0|1   0 launches the kernels the ordinary way (default 1:
 *                        early, where the GPU can: kernels/sv_early_launch.cuh)
 * Plain C, built with or without CUDA: the command line checks them before
 * it runs anything, and bench records them beside its numbers. */
#ifndef SV_FUSED_TUNING_H
#define SV_FUSED_TUNING_H

#include <stddef.h>
#include <stdint.h>

typedef struct sv_fused_tuning {
    int prune;      /* 1: the race's exact pruning */
    int depth;      /* 1 or 2 */
    int32_t splits; /* 0: from the occupancy of one wave */
    int early;      /* 1: programmatic dependent launch where the GPU has it */
} sv_fused_tuning;

#define SV_FUSED_MAX_SPLITS 65535 /* a grid's y dimension */

/* The knobs as the environment sets them, defaults where unset. Returns 0,
 * or -1 with err naming the variable, its value and what it may be. */
int sv_fused_tuning_read(sv_fused_tuning *t, char *err, size_t errlen);

/* "SV_FUSED_DEPTH=2 SV_FUSED_SPLITS=33": the knobs that differ from their
 * defaults ("" when none does); returns how many do. */
int sv_fused_tuning_describe(const sv_fused_tuning *t, char *buf, size_t len);

#endif
