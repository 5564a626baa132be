/* exact_rule.c: exact-match verification, and ref_exact, its reference (contract version 5,
 * SV_RULE_EXACT_MATCH), written to be obviously right.
 *
 * The engines that verify without draft probabilities do this: at every
 * position k, draw y_k from the target row p_k with noise of its own; the
 * draft is accepted iff it equals y_k; the first mismatch is emitted and
 * ends the step; after all d drafts match, the bonus comes from p_{d+1}.
 * The harness gives it no draft rows. Draft k is accepted with probability
 * p_k(x_k), and every emitted token is a fresh draw from its row, so the
 * output is the target's whatever the drafter: the chain rule with a
 * one-hot drafter, in law.
 *
 * Randomness: the draw at position k uses (seed, index, k, SV_PURPOSE_FINAL)
 * under each sequence's own seed and index: fresh at every position, which
 * is the whole correctness condition (exact_match_shared_sample breaks it).
 * Double precision inverse CDF (inverse_cdf.c). Both layouts. */
#include <stdlib.h>
#include "sv_registry.h"
#include "inverse_cdf.h"
#include "row_argmax.h"
#include "rules.h"
#include "sv_philox.h"

int sv_rule_init(void **state, const sv_limits *limits)
{
    *state = malloc((size_t)sv_inverse_cdf_workspace(limits->max_V) * sizeof(double));
    return *state ? SV_SAMPLER_OK : SV_SAMPLER_ENOMEM;
}

void sv_rule_destroy(void *state)
{
    free(state);
}

int sv_rule_seq_of(const sv_batch *bt, int32_t b, sv_rule_seq *s)
{
    s->d = sv_batch_num_drafts(bt, b);
    s->V = bt->V;
    if (s->d < 0 || s->d > bt->K)
        return -1;
    s->P = bt->target + sv_batch_target_offset(bt, b);
    s->Q = bt->draft ? bt->draft + sv_batch_draft_offset(bt, b) : NULL;
    s->x = bt->draft_tokens + sv_batch_drafts_offset(bt, b);
    s->y = bt->out_tokens + sv_batch_out_offset(bt, b);
    s->seed = sv_batch_seed(bt, b);
    s->index = sv_batch_index(bt, b);
    for (int32_t k = 0; k < s->d; k++) /* every draft, reached or not */
        if (s->x[k] < 0 || s->x[k] >= s->V)
            return -1;
    return 0;
}

/* One sequence: returns n, or -1 on bad input. */
static int exact_sequence(const sv_batch *bt, int32_t b, double *ws, sv_exact_flaw flaw)
{
    sv_rule_seq s;
    if (sv_rule_seq_of(bt, b, &s) != 0)
        return -1;
    const int32_t d = s.d, V = s.V;
    const float *P = s.P;
    const int32_t *x = s.x;
    int32_t *y = s.y;
    const uint64_t seed = s.seed, index = s.index;
    int32_t n = 0;
    for (;;) { /* position n: a draw from p_n; the bonus row when n = d */
        const uint32_t at = flaw == SV_EXACT_ONE_SAMPLE ? 0u : (uint32_t)n;
        double u = sv_philox_uniform(seed, index, at, SV_PURPOSE_FINAL, 0);
        int32_t t = flaw == SV_EXACT_ARGMAX_AT_DRAFTS && n < d
                        ? sv_row_argmax(P + (int64_t)n * V, V)
                        : sv_inverse_cdf(P + (int64_t)n * V, NULL, -1, V, u, ws);
        if (t < 0)
            return -1; /* an all-zero target row */
        y[n] = t;
        if (n == d || t != x[n])
            break;
        n++;
    }
    for (int32_t k = n + 1; k <= d; k++)
        y[k] = -1;
    return n;
}

int sv_exact_verify(void *state, const sv_batch *bt, sv_exact_flaw flaw)
{
    if (!bt->target)
        return SV_SAMPLER_EINVAL;
    for (int32_t b = 0; b < bt->B; b++) {
        int n = exact_sequence(bt, b, state, flaw);
        if (n < 0)
            return SV_SAMPLER_EINVAL;
        bt->out_accepted[b] = n;
    }
    return SV_SAMPLER_OK;
}

static int exact_verify(void *state, const sv_batch *bt)
{
    return sv_exact_verify(state, bt, SV_EXACT_RIGHT);
}

const sv_sampler sv_sampler_ref_exact = {
    "ref_exact", "CPU reference exact match: a fresh target draw per position, no draft probs",
    SV_MEM_HOST, sv_rule_init, exact_verify, sv_rule_destroy, 0,
    SV_LAYOUT_BIT(SV_LAYOUT_PADDED) | SV_LAYOUT_BIT(SV_LAYOUT_PACKED), SV_RULE_EXACT_MATCH};
