/* float16_ratio.c: broken variant — the acceptance ratio in IEEE binary16.
 *
 * Bug class: precision loss (half-precision probabilities).
 * Effect: with h() rounding to binary16 (round to nearest even, subnormals
 * down to 2^-24, overflow to inf), draft x is accepted with
 *     A(x) = min(1, h(h(p(x)) / h(q(x))))   (h(q) = 0: 1 if h(p) > 0, else 0),
 * the residual is ref's r. Per position out = sum_x q A e_x + (1 - alpha') r.
 * The error is about 2^-11 relative where p, q are normal halves, but
 * probabilities below 2^-25 (3e-8) flush to 0 and those below 2^-14
 * (6.1e-5) are subnormal and lose bits, so the damage sits in the tail of
 * large vocabularies: h(p) = 0 rejects every such draft, h(q) = 0 accepts
 * it. Needs large V and many draws.
 * Where: plausible in kernels that keep probabilities in fp16 to halve
 * memory traffic (common for logits/probs buffers in inference engines).
 */
#include <math.h>
#include "chain.h"
#include "sv_half.h"
#include "sv_philox.h"

static int accept(const sv_step *s, int32_t k, float p, float q)
{
    float hp = sv_half_round(p), hq = sv_half_round(q);
    float ratio = hq > 0.0f ? sv_half_round(hp / hq) : (hp > 0.0f ? INFINITY : 0.0f);
    return sv_chain_uniform(s, k, SV_PURPOSE_ACCEPT) < (double)ratio; /* BUG: in half */
}

static const sv_chain_hooks hooks = {.accept = accept};
SV_CHAIN_SAMPLER(sv_broken_float16_ratio, "float16_ratio",
                 "broken: acceptance ratio rounded through binary16", hooks);
