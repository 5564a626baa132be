/* drafts_argmax.c: argmax drafts verified as if sampled: every draft is
 * q's first-ranked token (a greedy drafter), while the ratio min(1, p/q)
 * and the residual treat it as a draw from q. Off p wherever q is not
 * one-hot (TV of q from its argmax times the chance it is accepted). */
#include "own_drafts.h"
#include "row_argmax.h"

static int32_t argmax_draw(const float *q, int32_t V, double u, sv_chain_state *ws)
{
    (void)u, (void)ws;
    return sv_row_argmax(q, V);
}

SV_OWN_DRAFTS_SAMPLER(sv_broken_drafts_argmax, "drafts_argmax",
                      "draws argmax drafts and verifies them as if sampled from q",
                      argmax_draw);
