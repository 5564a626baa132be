/* accept_zero_target.c: broken variant — a float32 uniform that can be 0,
 * tested with <=.
 *
 * Bug class: closed-interval uniform with a non-strict comparison.
 * Effect: u = (word >> 8) 2^-24 is exactly 0 with probability 2^-24, and
 * u <= p/q then accepts a draft with p(x) = 0. Per draft test the chance of
 * emitting an impossible token is q(p = 0) 2^-24, with
 * q(p = 0) = sum_{x: p(x) = 0} q(x); elsewhere the acceptance is min(1, p/q)
 * up to float rounding. The contract check catches it on the first
 * occurrence, which needs about 2^24 / q(p = 0) tests (disjoint p and q).
 * Where: a trap named in docs/design.md#randomness; plausible in any kernel
 * that converts 32 random bits with (x >> 8) * 2^-24 (a value in [0, 1))
 * and writes "u <= p / q" (curand_uniform avoids 0 by returning (0, 1]).
 */
#include "chain.h"
#include "sv_philox.h"

static int accept(const sv_step *s, int32_t k, float p, float q)
{
    philox4x32_ctr_t r = sv_philox_block(s->seed, s->index, (uint32_t)k, SV_PURPOSE_ACCEPT, 0);
    float u = (float)(r.v[0] >> 8) * (1.0f / 16777216.0f); /* BUG: can be 0 */
    return u <= p / q;                                       /* BUG: <= */
}

static const sv_chain_hooks hooks = {.accept = accept};
SV_CHAIN_SAMPLER(sv_broken_accept_zero_target, "accept_zero_target",
                 "broken: float uniform in [0, 1) tested with u <= p/q", hooks);
