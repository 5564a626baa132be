/* batch_cost.h: what a speculative step costs at batch size B, so that the
 * sampler's own time enters the speedup:
 *     speedup(B) = E / (K c + 1 + s_K(B) / t(B)),
 * with t(B) the target model's forward time per step (a cost model t0 + t1 B,
 * microseconds, given on the command line) and s_K(B) the sampler's time per
 * step with K drafts: from a bench file (its medians, log-log interpolated
 * in B) or a cost model s0 + s1 B. Plain decoding's own sampling is taken as
 * part of t(B). */
#ifndef SV_BATCH_COST_H
#define SV_BATCH_COST_H

#include <stddef.h>
#include <stdint.h>
#include "bench.h"

typedef struct sv_batch_cost {
    double target_us[2];        /* t0, t1 */
    double sampler_us[2];       /* s0, s1, when no bench file */
    sv_bench_point *pts;        /* the bench file's points of the sampler at V, or NULL */
    size_t n;
    char source[1100];          /* for the tables: the file and sampler, or "model" */
} sv_batch_cost;

/* "A" or "A,B" -> {A, B} (B = 0 when absent), both >= 0. Exit 2 on bad text. */
int sv_batch_cost_model(const char *flag, const char *text, double out[2]);

/* Takes the points of `sampler` in the bench file at path whose V is the
 * nearest to V, preferring graph timings, then hot. Exit 2 when the file is
 * not a bench file or has no point of that sampler. */
int sv_batch_cost_load(sv_batch_cost *c, const char *path, const char *sampler, int32_t V);
void sv_batch_cost_free(sv_batch_cost *c);

/* The sampler's time per step at (B, K): the model's, or the bench file's
 * median at that K (the mean over its acceptance rates), log-log
 * interpolated between the two nearest B. Exit 2 naming what is missing when
 * the file has no point at K or B lies outside its range. */
int sv_batch_cost_sampler_us(const sv_batch_cost *c, int32_t B, int32_t K, double *us);
double sv_batch_cost_target_us(const sv_batch_cost *c, int32_t B);

/* E / (K c + 1 + sampler_us / target_us). */
double sv_speedup_batched(double expected_tokens, int32_t K, double c, double sampler_us,
                          double target_us);

#endif
