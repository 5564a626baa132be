/* argmax_when_mixed.c: broken variant — a batch holding any greedy
 * sequence is verified by argmax at every draft position of every
 * sequence; only the bonus token honours each sequence's temperature.
 *
 * Bug class: mixed batch verified with argmax at every draft position (the
 * bonus honours temperature).
 * Effect (logits input): when some sequence of the batch has temperature 0,
 * each sequence's target rows 1..d_b are made greedy (one-hot at the
 * argmax a_k of its logits) and its bonus row and draft rows by its own
 * rule; ref's chain on those rows accepts draft k iff x_k = a_k and emits
 * a_k at the first mismatch. A greedy sequence is right (its rows are
 * greedy anyway); a sampled one emits a_k at every draft position: position
 * 1's law is e_{a_1} instead of p_1, and P(n >= 1) = q_1(a_1) instead of
 * alpha_1. Probs input has no temperatures: ref's chain, right.
 * Where: ROCm ATOM PR 2318 (2026), as the project's field notes record it:
 * argmax at every draft position for a sampled request, only the bonus
 * honouring temperature. One way to get there: a verifier that takes its
 * greedy path when the batch has any greedy request (an "any" read as
 * "all"), while the bonus token is sampled apart, by the caller, with each
 * request's own parameters, as vLLM's interface has it.
 * Why uniform batches miss it: an all-greedy batch is verified by argmax,
 * which is right for it, and an all-sampled batch never takes the greedy
 * path. Only a batch mixing the two goes wrong.
 * What catches it: distribution checks of the sampled cases on mixed
 * batches holding a greedy sequence: at position 1 the law is e_a, so the
 * chi-square distance is w^2 = sum_i (e_a(i) - p_1(i))^2 / p_1(i)
 * = (1 - p_1(a)) / p_1(a), lambda = f^2 N (1 - p_1(a)) / p_1(a) for the N
 * draws of the case, a fraction f of them in batches with a greedy
 * sequence (a few dozen draws suffice at p_1(a) = 1/2, f = 1); the
 * acceptance-length law fails likewise, and the batch-composition probe
 * (a greedy neighbour or none changes its tokens). It is not in
 * harness/stats/predict.c because f is a property of the harness's mixing,
 * not of the case.
 */
#include "seq_view.h"

static sv_seq_rule rule(const sv_batch *bt, int32_t b, int draft, int32_t k,
                        const sv_seq_batch_facts *facts)
{
    sv_seq_rule r = sv_seq_own_rule(bt, b);
    if (facts->any_greedy && !draft && k < sv_batch_num_drafts(bt, b))
        r.temperature = 0.0; /* BUG: the greedy path for every draft position of every sequence */
    return r;
}

SV_SEQ_LOGITS_SAMPLER(sv_broken_argmax_when_mixed, "argmax_when_mixed",
                      "broken: a batch with a greedy sequence verified by argmax; bonus sampled",
                      rule);
