/* draft_stride_from_target.c: broken variant — in the padded layout, the
 * draft rows of sequence b are read at b * target_stride, the target's
 * stride ((K+1) V), instead of b * draft_stride (K V).
 *
 * Bug class: draft stride taken from the target's K + 1.
 * Effect: sequence 0 is right. Sequence b >= 1 reads, as its draft row k,
 * row b K + b + k of the draft buffer: its own row b + k while b + k < d_b,
 * then its NaN padding rows or the next sequences' rows. With q' the row it
 * reads, a position's law is that of a verifier that believes in q' while
 * the drafts come from q (draft_temperature_mismatch's form):
 *     out = sum_x q(x) min(1, p(x)/q'(x)) e_x + (1 - alpha') norm(max(p - q', 0)),
 * and a NaN row (q' = NaN) rejects every draft and draws from p itself,
 * which is right at that position. Where the wrong stride runs past the end
 * of the buffer the variant reads its last row (a real kernel would read
 * whatever follows; this one stays in bounds for the sanitizers).
 * Where: kernels taking FlashInfer's shapes, draft_probs [B, K, V] beside
 * target_probs [B, K + 1, V], that compute one row stride for both (a
 * variable named for the sequence, not for the tensor); the packed layout
 * has no strides, so the variant takes only the padded one.
 * Why uniform batches miss it: a fixed-row case of the version 2 harness is
 * one row set broadcast with stride 0 for target and draft alike, so the
 * wrong stride is 0 too and reads the right rows; even with real strides, a
 * uniform batch of a stationary case (the same q at every position) reads
 * equal numbers. (The Markov-pair cases, whose sequences each have their
 * own rows with real strides, catch it already: length and sequence.)
 * What catches it: distribution checks (fit, TV, length) on batches with
 * real strides where sequence b's rows differ from the row it reads: a
 * non-stationary case, or a mixed batch whose neighbours hold other cases;
 * and the batch-composition probe, the row read depending on its place.
 * The per-position law above has a closed form once the row read is known,
 * but which row that is depends on the sequence's place and on its
 * neighbours' cases (the harness's mixing), not on the case alone, so
 * harness/stats/predict.c does not predict it.
 */
#include <string.h>
#include "seq_view.h"

static int verify(void *state, const sv_batch *bt)
{
    sv_seq_state *st = state;
    if (bt->layout != SV_LAYOUT_PADDED || !bt->draft)
        return sv_chain_verify(st->chain, bt, NULL);
    if (bt->K > st->max_K || bt->V > st->max_V)
        return SV_SAMPLER_EINVAL;
    const int64_t V = bt->V, last = sv_seq_draft_extent(bt) - V; /* the last row's start */
    float *rows = st->rows + ((int64_t)st->max_K + 1) * V;     /* the draft rows' scratch */
    for (int32_t b = 0; b < bt->B; b++) {
        sv_batch one;
        int rc = sv_seq_view(bt, b, &one);
        if (rc != SV_SAMPLER_OK)
            return rc;
        const int64_t first = (int64_t)b * bt->target_stride; /* BUG: the target's stride */
        if (one.K == 0) {
            /* no draft rows to read */
        } else if (first + ((int64_t)one.K - 1) * V <= last) {
            one.draft = bt->draft + first;
        } else { /* past the buffer: its last row */
            for (int32_t k = 0; k < one.K; k++) {
                const int64_t at = first + k * V < last ? first + k * V : last;
                memcpy(rows + k * V, bt->draft + at, (size_t)V * sizeof *rows);
            }
            one.draft = rows;
        }
        if ((rc = sv_chain_verify(st->chain, &one, NULL)) != SV_SAMPLER_OK)
            return rc;
    }
    return SV_SAMPLER_OK;
}

const sv_sampler sv_broken_draft_stride_from_target = {
    "draft_stride_from_target",
    "broken: padded draft rows of sequence b read at b * target_stride",
    SV_MEM_HOST, sv_seq_init, verify, sv_seq_destroy, 0, SV_LAYOUT_BIT(SV_LAYOUT_PADDED),
    SV_RULE_CHAIN};
