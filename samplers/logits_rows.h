/* logits_rows.h: one row of logits -> float probabilities by the contract's
 * sampling rules (sv_sampler.h, above sv_input), the way cuda_fused's logits
 * mode does it: a maximum, a rank threshold found by radix selection, and one
 * sum, with no sort. distributions/logits.c reaches the same p by sorting; the
 * two are written apart on purpose, so the harness checks one against the
 * other. */
#ifndef SV_LOGITS_ROWS_H
#define SV_LOGITS_ROWS_H

#include <stdint.h>

/* row: V logits, float (bf16 = 0) or bfloat16 bits (bf16 = 1). Writes p[V].
 * work: 2 V doubles. The weights are kernels/sv_softmax.h's (float, base 2),
 * so p is sv_logits_to_probs's within a few float ulps, and cuda_fused's but
 * where a sum in another order rounds a p_i or a top-p crossing the other way. */
void sv_logits_row_probs(const void *row, int bf16, int32_t V, double T, int32_t top_k,
                         double top_p, float *p, double *work);

#endif
