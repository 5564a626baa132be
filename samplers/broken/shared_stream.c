/* shared_stream.c: broken variant — sequences 2m and 2m + 1 share their
 * random numbers.
 *
 * Bug class: random-stream collision (correlated sequences).
 * Effect: exactly ref with every uniform addressed by (index & ~1). Each
 * sequence alone is a correct draw (right marginals), but the pair is not
 * independent: given the same drafts and rows, sequences 2m and 2m + 1 emit
 * identical outputs, so P(y^(2m) = y^(2m+1)) = 1 instead of sum_i p_i^2 at
 * each position. Only a check on joints of neighbouring sequences sees it.
 * Where: plausible in kernels that derive the Philox subsequence from a
 * thread or warp id (two sequences per warp, one id) instead of the global
 * sequence index, or that seed per block.
 */
#include "chain.h"

static int verify(void *state, const sv_batch *bt)
{
    const int32_t K = bt->K;
    for (int32_t b = 0; b < bt->B; b++) { /* one sequence at a time, at the shared index */
        sv_batch one = *bt;
        one.B = 1;
        one.target = bt->target + (int64_t)b * bt->target_stride;
        one.draft = bt->draft ? bt->draft + (int64_t)b * bt->draft_stride : NULL;
        one.draft_tokens = bt->draft_tokens + (int64_t)b * K;
        one.out_tokens = bt->out_tokens + (int64_t)b * (K + 1);
        one.out_accepted = bt->out_accepted + b;
        one.first_index = (bt->first_index + (uint64_t)b) & ~(uint64_t)1; /* BUG */
        int rc = sv_chain_verify(state, &one, NULL);
        if (rc != SV_SAMPLER_OK)
            return rc;
    }
    return SV_SAMPLER_OK;
}

const sv_sampler sv_broken_shared_stream = {
    "shared_stream", "broken: sequences 2m and 2m+1 share every random number", SV_MEM_HOST,
    sv_chain_init, verify, sv_chain_destroy, 0, 0};
