/* one_sequence.h: sequence b of a batch, in either layout, as a version 2
 * batch of one, for samplers that work one sequence at a time through
 * another sampler (ref_logits through ref_race, shared_stream through the
 * chain skeleton). */
#ifndef SV_ONE_SEQUENCE_H
#define SV_ONE_SEQUENCE_H

#include "sv_sampler.h"

/* Sequence b of bt alone: B = 1, K = d_b, its rows (probabilities or
 * logits), drafts and output slots, its seed and index as seed and
 * first_index, its sampling rule batch-wide, the version 3 arrays NULL
 * (layout padded, strides 0: there is one sequence). */
static inline sv_batch sv_one_sequence(const sv_batch *bt, int32_t b)
{
    const size_t size = sv_input_value_bytes(bt->input);
    const int64_t target = sv_batch_target_offset(bt, b), draft = sv_batch_draft_offset(bt, b);
    sv_batch one = {.B = 1, .K = sv_batch_num_drafts(bt, b), .V = bt->V,
                    .draft_tokens = bt->draft_tokens + sv_batch_drafts_offset(bt, b),
                    .seed = sv_batch_seed(bt, b), .first_index = sv_batch_index(bt, b),
                    .out_tokens = bt->out_tokens + sv_batch_out_offset(bt, b),
                    .out_accepted = bt->out_accepted + b, .stream = bt->stream,
                    .input = bt->input, .temperature = sv_batch_temperature(bt, b),
                    .top_k = sv_batch_top_k(bt, b), .top_p = sv_batch_top_p(bt, b)};
    one.target = bt->target ? bt->target + target : NULL;
    one.draft = bt->draft ? bt->draft + draft : NULL;
    one.target_logits =
        bt->target_logits ? (const char *)bt->target_logits + (size_t)target * size : NULL;
    one.draft_logits =
        bt->draft_logits ? (const char *)bt->draft_logits + (size_t)draft * size : NULL;
    return one;
}

#endif
