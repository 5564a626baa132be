/* shared_stream.c: broken variant — sequences 2m and 2m + 1 share their
 * random numbers.
 *
 * Bug class: random-stream collision (correlated sequences).
 * Effect: exactly ref with every uniform addressed by (index & ~1), index
 * the sequence's global one (indices[b] in a version 3 batch). Each
 * sequence alone is a correct draw (right marginals), but the pair is not
 * independent: given the same seed, drafts and rows, sequences 2m and
 * 2m + 1 emit identical outputs, so P(y^(2m) = y^(2m+1)) = 1 instead of
 * sum_i p_i^2 at each position. Only a check on joints of neighbouring sequences sees it.
 * Where: plausible in kernels that derive the Philox subsequence from a
 * thread or warp id (two sequences per warp, one id) instead of the global
 * sequence index, or that seed per block.
 */
#include "chain.h"
#include "one_sequence.h"

static int verify(void *state, const sv_batch *bt)
{
    for (int32_t b = 0; b < bt->B; b++) { /* one sequence at a time, at the shared index */
        const int32_t K = sv_batch_num_drafts(bt, b);
        if (K < 0 || K > bt->K)
            return SV_SAMPLER_EINVAL;
        sv_batch one = sv_one_sequence(bt, b);
        one.first_index &= ~(uint64_t)1; /* BUG: indices 2m and 2m + 1 share one */
        int rc = sv_chain_verify(state, &one, NULL);
        if (rc != SV_SAMPLER_OK)
            return rc;
    }
    return SV_SAMPLER_OK;
}

const sv_sampler sv_broken_shared_stream = {
    "shared_stream", "broken: sequences 2m and 2m+1 share every random number", SV_MEM_HOST,
    sv_chain_init, verify, sv_chain_destroy, 0, SV_CHAIN_LAYOUTS, SV_RULE_CHAIN};
