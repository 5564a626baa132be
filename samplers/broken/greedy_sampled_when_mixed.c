/* greedy_sampled_when_mixed.c: broken variant — in a batch holding any
 * random sequence, the greedy (temperature 0) sequences are sampled at
 * temperature 1.
 *
 * Bug class: greedy requests sampled when any request in the batch is
 * random.
 * Effect (logits input): when some sequence has temperature > 0, every
 * greedy sequence's target and draft rows are made at temperature 1 with
 * its own top-k and top-p; ref's chain on them. Its drafts were drawn
 * greedily (x = the draft argmax a_q), so with p', q' its rows at T = 1 a
 * position accepts x with A = min(1, p'(x)/q'(x)) and otherwise emits a
 * token of norm(max(p' - q', 0)), which is never x; the bonus follows p'.
 * Where the target argmax a equals a_q, position 1 leaves the argmax with
 * probability 1 - A, and the bonus with 1 - p'(a). Sampled sequences, and
 * probs input (no temperatures), are right.
 * Where: samplers that divide by the temperature for the whole batch and
 * avoid 0 by giving greedy rows temperature 1, then put the argmax back
 * for greedy rows in a final per-row merge (where(T > 0, sampled, argmax)).
 * vLLM's sampler documents that order: the argmax taken first, temperature
 * and top-k/top-p applied to the whole batch, the greedy tokens chosen per
 * row only at the end. A speculative path that skips the merge samples its
 * greedy requests. The greedy flag of
 * mixed batches is where such bugs live (vllm-ascend PR 5423: a stale
 * greedy sentinel broke batches mixing T > 0 and T = 0).
 * Why uniform batches miss it: an all-greedy batch takes the greedy path
 * (no random sequence); an all-random one has no greedy row to get wrong.
 * What catches it: the per-sequence parameter check that a greedy sequence
 * inside a sampled batch is exactly greedy: deterministic, it fails on the
 * first greedy sequence that leaves the argmax, a chance per such sequence
 * of at least 1 - A at position 1 (or 1 - p'(a) at the bonus when A = 1),
 * so it is caught with probability 1 - prod over those sequences; fit fails
 * too, the greedy law being a point mass (tokens of probability 0 fail the
 * contract check at once). How many greedy sequences share
 * a batch with a random one is the harness's mixing, not the case's, so
 * harness/stats/predict.c does not predict it.
 */
#include "seq_view.h"

static sv_seq_rule rule(const sv_batch *bt, int32_t b, int draft, int32_t k,
                        const sv_seq_batch_facts *facts)
{
    (void)draft;
    (void)k;
    sv_seq_rule r = sv_seq_own_rule(bt, b);
    if (facts->any_random && r.temperature == 0.0)
        r.temperature = 1.0; /* BUG: the stand-in temperature, and no greedy merge after */
    return r;
}

SV_SEQ_LOGITS_SAMPLER(sv_broken_greedy_sampled_when_mixed, "greedy_sampled_when_mixed",
                      "broken: greedy sequences sampled at T = 1 when the batch has random ones",
                      rule);
