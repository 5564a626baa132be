/* bonus_wrong_row.c: broken variant — the bonus token is drawn from p_K.
 *
 * Bug class: off-by-one row index.
 * Effect: positions 1..K are right; when all K drafts pass (probability
 * alpha_1 ... alpha_K) the bonus y_{K+1} is distributed as p_K instead of
 * p_{K+1}. Invisible when consecutive target rows are equal (stationary
 * cases); TV(p_K, p_{K+1}) at the bonus position otherwise.
 * Where: plausible in any kernel indexing target logits of shape [K+1][V]
 * with a K-based offset, e.g. reusing the last draft position's row pointer.
 */
#include "chain.h"

static int32_t bonus(const sv_step *s, double u)
{
    return sv_chain_draw_p(s, s->K > 0 ? s->K - 1 : 0, u); /* BUG: row K - 1, not K */
}

static const sv_chain_hooks hooks = {.bonus = bonus};
SV_CHAIN_SAMPLER(sv_broken_bonus_wrong_row, "bonus_wrong_row",
                 "broken: bonus token from p_K instead of p_{K+1}", hooks);
