/* counts_off_by_one.c: broken variant — n reported as K + 1 when all pass.
 *
 * Bug class: off-by-one in the reported count (tokens emitted vs drafts
 * accepted).
 * Effect: the tokens are exactly ref's; out_accepted is d_b + 1 (outside
 * [0, d_b], d_b the sequence's number of drafts) with probability
 * alpha_1 ... alpha_{d_b}, so the contract check fails the case, and any
 * acceptance-length statistic built on n is shifted.
 * Where: plausible wherever "accepted drafts" and "emitted tokens" (n + 1)
 * are both called "accepted" (serving metrics and kernel outputs alike).
 */
#include "chain.h"

static int verify(void *state, const sv_batch *bt)
{
    int rc = sv_chain_verify(state, bt, NULL);
    for (int32_t b = 0; rc == SV_SAMPLER_OK && b < bt->B; b++)
        if (bt->out_accepted[b] == sv_batch_num_drafts(bt, b))
            bt->out_accepted[b]++; /* BUG: the bonus counted as accepted */
    return rc;
}

const sv_sampler sv_broken_counts_off_by_one = {
    "counts_off_by_one", "broken: reports K + 1 accepted when all K drafts pass", SV_MEM_HOST,
    sv_chain_init, verify, sv_chain_destroy, 0, SV_CHAIN_LAYOUTS, SV_RULE_CHAIN};
