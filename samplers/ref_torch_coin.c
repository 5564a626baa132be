/* ref_torch_coin.c: a correct control on an engine's grid (issue 38) —
 * ref's method with torch.rand's float32 coin (sv_engine_rng.h: the 2^-24
 * grid in [0, 1), where exactly 0 happens once in 2^24 tests), tested
 * strictly: accept iff coin * q < p. A coin of 0 then accepts only a draft
 * of positive p, so the coarse grid moves each acceptance by at most 2^-24
 * and the harness must pass it. Its twin with "<=" is the broken variant
 * accept_zero_target (SGLang issue 35771); both draw the same coin at ref's
 * address, so where accept_zero_target emits a token of p = 0 this one
 * rejects the draft. */
#include "chain.h"
#include "sv_philox.h"

static int accept(const sv_step *s, int32_t k, float p, float q)
{
    const double u = sv_philox_uniform(s->seed, s->index, (uint32_t)k, SV_PURPOSE_ACCEPT, 0);
    return sv_uniform_torch_f32(u) * q < p;
}

static const sv_chain_hooks hooks = {.accept = accept};
SV_CHAIN_SAMPLER(sv_sampler_ref_torch_coin, "ref_torch_coin",
                 "control: ref with torch.rand's float32 coin (0 included), tested with <", hooks);
