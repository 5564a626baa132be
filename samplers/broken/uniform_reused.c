/* uniform_reused.c: broken variant — the residual draw reuses the rejected
 * test's uniform.
 *
 * Bug class: random-number reuse.
 * Effect: after rejecting x the uniform u is known to lie in [rho_x, 1),
 * rho_x = min(1, p(x)/q(x)), so the inverse CDF of the residual, fed with
 * it, favours the tokens at the end of the CDF. With C_i the residual's CDF
 * and G(t) = sum_x q(x) max(0, t - rho_x), per position
 *     out(i) = a(i) + G(C_i) - G(C_{i-1})   instead of   a(i) + (1 - alpha) r(i).
 * The bonus (n = K) uses FINAL as ref does and is right.
 * Where: plausible in kernels that draw one uniform per position to save
 * Philox calls or registers (the same uniform for the test and the resample).
 */
#include "chain.h"
#include "sv_philox.h"

static double final_u(const sv_step *s, int32_t n)
{
    return sv_chain_uniform(s, n, n < s->K ? SV_PURPOSE_ACCEPT /* BUG */ : SV_PURPOSE_FINAL);
}

static const sv_chain_hooks hooks = {.final_u = final_u};
SV_CHAIN_SAMPLER(sv_broken_uniform_reused, "uniform_reused",
                 "broken: residual drawn with the rejected test's uniform", hooks);
