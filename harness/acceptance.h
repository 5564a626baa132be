/* acceptance.h: what a user asks after "is it correct?": how often drafts
 * are accepted, how many tokens a step gives, and what speedup to expect
 * (Leviathan et al. 2023, section 3). */
#ifndef SV_ACCEPTANCE_H
#define SV_ACCEPTANCE_H

#include <stdint.h>

/* A proportion with its Wilson score interval. */
typedef struct sv_proportion {
    double value, lo, hi;
    uint64_t successes, trials;
} sv_proportion;

/* successes of trials, with the Wilson interval at confidence `level`
 * (0.95 for 95%); value, lo and hi are NaN when trials is 0. */
sv_proportion sv_wilson(uint64_t successes, uint64_t trials, double level);

/* Per-position acceptance measured from the histogram of accepted counts n
 * (length[n], n = 0..K): draft k is tested by the draws with n >= k - 1 and
 * accepted by those with n >= k. Fills alpha[0..K-1]. */
void sv_measured_alpha(const uint64_t *length, int32_t K, double level, sv_proportion *alpha);

/* Expected tokens per step, 1 + sum_{j=1..K} prod_{i<=j} alpha_i, for
 * per-position acceptance alpha[0..K-1]. With alpha_i = a for all i this is
 * (1 - a^{K+1}) / (1 - a). */
double sv_expected_tokens(const double *alpha, int32_t K);

/* Mean tokens per step from the accepted-count histogram: 1 + mean(n), which
 * vLLM reports as the mean acceptance length. */
double sv_mean_tokens(const uint64_t *length, int32_t K);

/* Walltime speedup over plain decoding when a draft step costs c target
 * steps: E / (K c + 1) (Leviathan et al., Theorem 3.8). */
double sv_speedup(double expected_tokens, int32_t K, double c);

#endif
