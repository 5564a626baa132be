/* packed_offset.c: broken variant — in the packed layout, sequence b's
 * target rows are read from cu[b + 1] + b instead of cu[b] + b.
 *
 * Bug class: packed offsets off by one request (an inclusive prefix sum
 * read where the exclusive one was meant).
 * Effect: in the packed layout the target rows of sequence b start at row
 * cu[b + 1] + b = cu[b] + d_b + b, its own bonus row: it verifies draft 1
 * against its bonus row p_{d_b+1}, and drafts 2..d_b (and its bonus) against
 * the first rows of sequence b + 1. A sequence with d_b = 0 reads its own
 * bonus row and is right. Draft rows, tokens and out slots are read and
 * written where they belong. The last sequence's rows run past the buffer;
 * the variant reads the buffer's last row there (a real kernel would read
 * whatever memory follows; this one stays in bounds for the sanitizers).
 * The padded layout has no prefix sums: there it is exactly ref.
 * Where: vLLM's cu_num_draft_tokens is inclusive (B entries, cu[b] = the end
 * of request b's drafts) while the varlen attention cu_seqlens beside it,
 * and this contract's cu_num_drafts, are exclusive (B + 1 entries, cu[b] =
 * the start); a kernel ported from one convention to the other reads
 * cu[b + 1] for the start of request b. A padded path indexes by b and
 * the stride, never by the prefix sums, so only the packed path has it.
 * Why uniform batches miss it: a uniform (version 2 style) batch is padded,
 * and the variant takes both layouts so that the harness can run it; only
 * the packed layout of the mixed batches bites.
 * What catches it: distribution checks on mixed packed batches. The chain is
 * exact for the rows it reads, so for a case c with d >= 1 position 1 emits
 * p^c_{d+1} (its bonus row's law) instead of p^c_1: chi-square power with
 * lambda = N_1 sum_i (p^c_{d+1}(i) - p^c_1(i))^2 / p^c_1(i) over the N_1
 * packed draws of c with d >= 1 (0 for a stationary case); positions 2..d+1
 * follow the next sequence's case, and a token with p^c_k = 0 there fails
 * the contract check at once; and the batch-composition probe, its rows
 * being its neighbour's. Not in harness/stats/predict.c: the law
 * depends on which case follows in the batch and on the layout the harness
 * picks, not on the case alone.
 */
#include <string.h>
#include "seq_view.h"

static int verify(void *state, const sv_batch *bt)
{
    sv_seq_state *st = state;
    if (bt->layout != SV_LAYOUT_PACKED)
        return sv_chain_verify(st->chain, bt, NULL);
    if (bt->K > st->max_K || bt->V > st->max_V)
        return SV_SAMPLER_EINVAL;
    const int64_t V = bt->V, last = sv_seq_target_extent(bt) - V; /* the last row's start */
    for (int32_t b = 0; b < bt->B; b++) {
        sv_batch one;
        int rc = sv_seq_view(bt, b, &one);
        if (rc != SV_SAMPLER_OK)
            return rc;
        const int64_t first = ((int64_t)bt->cu_num_drafts[b + 1] + b) * V; /* BUG: cu[b + 1] */
        if (first + (int64_t)one.K * V <= last) {
            one.target = bt->target + first;
        } else { /* past the buffer: its last row */
            for (int32_t k = 0; k <= one.K; k++) {
                const int64_t at = first + k * V < last ? first + k * V : last;
                memcpy(st->rows + k * V, bt->target + at, (size_t)V * sizeof *st->rows);
            }
            one.target = st->rows;
        }
        if ((rc = sv_chain_verify(st->chain, &one, NULL)) != SV_SAMPLER_OK)
            return rc;
    }
    return SV_SAMPLER_OK;
}

const sv_sampler sv_broken_packed_offset = {
    "packed_offset", "broken: packed target rows of sequence b read from cu[b+1] + b",
    SV_MEM_HOST, sv_seq_init, verify, sv_seq_destroy, 0, SV_CHAIN_LAYOUTS, SV_RULE_CHAIN};
