/* outputs_swapped.c: broken variant — sequences 2m and 2m + 1 write their
 * outputs into each other's slots.
 *
 * Bug class: adjacent sequences' outputs swapped (the writer's index
 * computed as b ^ 1).
 * Effect: every sequence is verified right, on its own rows, drafts and
 * random numbers, but its record (its d_b + 1 tokens and its count n) is
 * written at sequence b ^ 1's slots; the last sequence of an odd batch has
 * no partner and writes its own. So slot b holds sequence b ^ 1's tokens:
 * drafts that b never drafted, a count that may exceed d_b, and, when
 * d_{b^1} < d_b, tokens past b ^ 1's last slot (its padding in the padded
 * layout; the next sequence's first slots in the packed one, cut at the end
 * of the buffer) while b's own later slots are left as they were.
 * Where: kernels that handle two sequences per warp or per block and flip a
 * lane or pair bit to pick the sequence (b ^ 1, 2m + 1 - r); also any
 * scatter whose destination index comes from a permutation (requests sorted
 * by length, or greedy and random requests gathered apart) not inverted on
 * the way back. The issue cites outputs of two requests swapped.
 * Why uniform batches miss it: when the sequences share one case and draw
 * the same drafts, each record is a correct draw for its neighbour: the
 * tally of tokens is the correct chain's, a permutation of it. A check of
 * the token law alone passes. (specverify's contract check still sees it
 * wherever the two neighbours accepted different drafts, uniform or not.)
 * What catches it: the contract check (an accepted draft emitted that the
 * sequence did not draft, or n > d_b) with probability, per pair with
 * n_{b^1} >= 1, that the neighbours' accepted drafts differ; the padding
 * canaries when d_{b^1} > d_b; and on mixed batches the distribution checks,
 * as tokens move between cases, and the batch-composition probe. The
 * first of these depends on the drafts of two sequences of different
 * cases, not on one case, so harness/stats/predict.c does not predict it.
 */
#include <string.h>
#include "seq_view.h"

static int verify(void *state, const sv_batch *bt)
{
    sv_seq_state *st = state;
    if (bt->K > st->max_K)
        return SV_SAMPLER_EINVAL;
    const int64_t end = sv_seq_out_extent(bt);
    for (int32_t b = 0; b < bt->B; b++) {
        sv_batch one;
        int32_t n;
        int rc = sv_seq_view(bt, b, &one);
        if (rc != SV_SAMPLER_OK)
            return rc;
        one.out_tokens = st->out; /* the record, before it is written out */
        one.out_accepted = &n;
        if ((rc = sv_chain_verify(st->chain, &one, NULL)) != SV_SAMPLER_OK)
            return rc;
        const int32_t w = (b ^ 1) < bt->B ? b ^ 1 : b; /* BUG: the partner's slots */
        const int64_t at = sv_batch_out_offset(bt, w);
        const int64_t count = at + one.K + 1 <= end ? one.K + 1 : end - at;
        memcpy(bt->out_tokens + at, st->out, (size_t)count * sizeof *st->out);
        bt->out_accepted[w] = n;
    }
    return SV_SAMPLER_OK;
}

const sv_sampler sv_broken_outputs_swapped = {
    "outputs_swapped", "broken: sequences 2m and 2m+1 write into each other's slots",
    SV_MEM_HOST, sv_seq_init, verify, sv_seq_destroy, 0, SV_CHAIN_LAYOUTS, SV_RULE_CHAIN};
