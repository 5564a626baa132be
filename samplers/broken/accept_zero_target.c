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
 * that converts 32 random bits with (x >> 8) * 2^-24 (a value in [0, 1), as
 * torch.rand's float32 is) and writes "u <= p / q" (SGLang issue 35771,
 * fixed by PR 35798; curand_uniform avoids 0 by returning (0, 1]).
 */
#include "chain.h"
#include "sv_philox.h"

/* The coin is torch.rand's float32 (sv_engine_rng.h) at ref's address: the
 * top 24 bits of the ACCEPT word, times 2^-24. tests/python/engine_grids.py's
 * torch_coin_le draws the same coin in Python and fails at the same request. */
static int accept(const sv_step *s, int32_t k, float p, float q)
{
    const double u = sv_philox_uniform(s->seed, s->index, (uint32_t)k, SV_PURPOSE_ACCEPT, 0);
    const float coin = sv_uniform_torch_f32(u); /* BUG: can be 0 */
    return coin <= p / q;                       /* BUG: <= */
}

static const sv_chain_hooks hooks = {.accept = accept};
SV_CHAIN_SAMPLER(sv_broken_accept_zero_target, "accept_zero_target",
                 "broken: float uniform in [0, 1) tested with u <= p/q", hooks);
