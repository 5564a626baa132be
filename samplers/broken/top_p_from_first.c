/* top_p_from_first.c: broken variant — every sequence's rows are cut with
 * the top-p of sequence 0.
 *
 * Bug class: a per-request parameter taken from the first request.
 * Effect (logits input): sequence b's target and draft rows are made with
 * its own temperature and top-k but top_p = top_ps[0]; ref's chain on them.
 * With p', q' its rows so made (p, q: by its own rule), and drafts drawn
 * from its own q, each position's law is
 *     out = sum_x q(x) A(x) e_x + (1 - alpha') norm(max(p' - q', 0)),
 *     A(x) = min(1, p'(x)/q'(x)) (1 where q'(x) = 0 < p'(x)),
 * which is p' where q' = q. A looser cut than its own (top_ps[0] > top_p_b)
 * emits tokens outside its nucleus, where p = 0; a tighter one squeezes the
 * law onto the head. Probs input has no top-p: ref's chain, right.
 * Where: the "a per-request top-p taken from request 0"; kernels
 * that take top-p as a scalar or a per-row array (FlashInfer's renorm
 * kernels accept either) reached through a wrapper that passes the first
 * element, or a load of top_p_ptr without the request's offset.
 * Why uniform batches miss it: one sampling rule for the whole batch makes
 * top_ps[0] every sequence's own top-p.
 * What catches it: the per-sequence parameter checks on mixed batches
 * (each sequence's tokens follow its own cut): with a looser cut the
 * contract check (a token of target probability 0) fails at the first
 * draw outside the nucleus, a chance per draw of out(p = 0) at position 1;
 * with a tighter one the distribution checks, with lambda = N w^2 for the
 * chi-square distance w^2 between out and p; and the batch-composition
 * probe, as the first sequence changes with the batch. Both need the top-p of
 * whichever case sits first in the batch, a property of the harness's
 * mixing, so harness/stats/predict.c does not predict them.
 */
#include "seq_view.h"

static sv_seq_rule rule(const sv_batch *bt, int32_t b, int draft, int32_t k,
                        const sv_seq_batch_facts *facts)
{
    (void)draft;
    (void)k;
    (void)facts;
    sv_seq_rule r = sv_seq_own_rule(bt, b);
    r.top_p = sv_batch_top_p(bt, 0); /* BUG: request 0's, not request b's */
    return r;
}

SV_SEQ_LOGITS_SAMPLER(sv_broken_top_p_from_first, "top_p_from_first",
                      "broken: every sequence cut with the top-p of sequence 0", rule);
