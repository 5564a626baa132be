/* ratio_inverted.c: broken variant — accept with probability min(1, q/p).
 *
 * Bug class: inverted ratio.
 * Effect: draft x is accepted with A(x) = min(1, q(x)/p(x)) (always when
 * p(x) = 0 < q(x)); the residual is ref's r. Per position
 *     out = sum_x q(x) A(x) e_x + (1 - alpha') r,  alpha' = sum_x q(x) A(x),
 * so tokens with q > p are over-emitted, and a draft with p(x) = 0 can be
 * emitted (caught by the contract check). A one-hot drafter (q = 1) accepts
 * every draft.
 * Where: plausible in any port that transcribes the acceptance test from a
 * paper with the other letter convention (Chen et al. vs Leviathan et al.).
 */
#include "chain.h"
#include "sv_philox.h"

static int accept(const sv_step *s, int32_t k, float p, float q)
{
    double u = sv_chain_uniform(s, k, SV_PURPOSE_ACCEPT);
    return u * (double)p < (double)q; /* BUG: should be u * q < p */
}

static const sv_chain_hooks hooks = {.accept = accept};
SV_CHAIN_SAMPLER(sv_broken_ratio_inverted, "ratio_inverted",
                 "broken: accepts with min(1, q/p)", hooks);
