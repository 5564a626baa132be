/* own_drafts.h: the skeleton of a sampler that draws its own drafts
 * (contract v7, SV_INPUT_OWN_DRAFTS): per sequence, x_k drawn from draft row
 * q_k with the harness's draft uniform u_k into out_drafts, then those
 * drafts verified by the chain skeleton (chain.h) as ref verifies. A
 * variant replaces the draw only: ref_own_drafts draws by inverse CDF from
 * q, the broken variants from another law while the ratio keeps q. */
#ifndef SV_OWN_DRAFTS_H
#define SV_OWN_DRAFTS_H

#include "chain.h"

/* The token drawn from draft row q [V] with uniform u in (0, 1); -1 on a
 * row it cannot draw from. ws: the chain state's workspace. */
typedef int32_t sv_draft_draw(const float *q, int32_t V, double u, sv_chain_state *ws);

/* Draws every sequence's drafts with `draw`, then verifies them as ref. A
 * batch without draft_uniforms (bench, sweep) carries the harness's drafts:
 * it verifies those. */
int sv_own_drafts_verify(void *state, const sv_batch *bt, sv_draft_draw *draw);

/* ref's draw: inverse CDF of q at u. */
sv_draft_draw sv_draft_inverse_cdf;

/* A sampler value drawing its drafts with `draw` (probabilities input). */
#define SV_OWN_DRAFTS_SAMPLER(var, name, description, draw)                        \
    static int var##_verify(void *state, const sv_batch *bt)                        \
    {                                                                               \
        return sv_own_drafts_verify(state, bt, draw);                               \
    }                                                                               \
    const sv_sampler var = {name, description, SV_MEM_HOST, sv_chain_init,          \
                            var##_verify, sv_chain_destroy, SV_INPUT_OWN_DRAFTS,    \
                            SV_CHAIN_LAYOUTS, SV_RULE_CHAIN}

#endif
