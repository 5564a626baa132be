/* ref_layout.c: a correct control — ref's method with another random layout.
 *
 * Every uniform of sequence `index` comes from one address under another key:
 *     sv_philox_uniform(seed ^ 0x5a5a5a5a5a5a5a5a, index, position 0,
 *                       SV_PURPOSE_ACCEPT, lane)
 * with lane k for the test of draft k (k < K <= SV_MAX_K) and lane SV_MAX_K
 * for the final draw (residual or bonus), so no two draws of a sequence
 * share a number and sequences stay independent. The arithmetic is ref's.
 * A harness that passed ref but flagged this would be testing the layout,
 * not the distribution.
 */
#include "chain.h"
#include "sv_philox.h"

#define LAYOUT_KEY 0x5a5a5a5a5a5a5a5aull

static double layout_u(const sv_step *s, uint32_t lane)
{
    return sv_philox_uniform(s->seed ^ LAYOUT_KEY, s->index, 0, SV_PURPOSE_ACCEPT, lane);
}

static int accept(const sv_step *s, int32_t k, float p, float q)
{
    return layout_u(s, (uint32_t)k) * (double)q < (double)p;
}

static double final_u(const sv_step *s, int32_t n)
{
    (void)n;
    return layout_u(s, SV_MAX_K);
}

static const sv_chain_hooks hooks = {.accept = accept, .final_u = final_u};
SV_CHAIN_SAMPLER(sv_sampler_ref_layout, "ref_layout",
                 "control: ref with all uniforms from one address, another key", hooks);
