/* draft_temperature_mismatch.c: broken variant — the kernel's idea of q is
 * q' = norm(q^0.5), not the q the drafts were drawn from.
 *
 * Bug class: mismatched draft distribution (temperature applied on one side).
 * Effect: drafts come from q, but acceptance is min(1, p/q') and the
 * residual is max(p - q', 0). Per position, with alpha' = sum_x q(x) min(1, p(x)/q'(x)),
 *     out = sum_x q(x) min(1, p(x)/q'(x)) e_x + (1 - alpha') norm(max(p - q', 0)),
 * which equals p only when q' = q. A one-hot drafter has q' = q (one-hot
 * stays one-hot) and the variant is then exactly ref.
 * Where: plausible in serving stacks where the draft model's temperature (or
 * top-k/top-p) is applied when sampling drafts but not to the probabilities
 * handed to the verifier, or vice versa.
 */
#include <math.h>
#include "chain.h"
#include "inverse_cdf.h"

/* sum_i sqrt(q_n(i)): the normalizer of q'. Kept per row for the verify
 * call (rows are const during it, and with stride 0 every sequence has the
 * same ones): the same sum, once per batch rather than once per draft,
 * which made this variant a third of the test suite's time. */
typedef struct z_memo {
    uint64_t call;
    const float *row;
    double z;
} z_memo;

static double sqrt_sum(const sv_step *s, int32_t n)
{
    static _Thread_local z_memo memo[SV_MAX_K];
    const float *q = s->Q + (int64_t)n * s->V;
    if (memo[n].call == s->ws->call && memo[n].row == q)
        return memo[n].z;
    double z = 0.0;
    for (int32_t i = 0; i < s->V; i++)
        z += sqrt((double)q[i]);
    memo[n].call = s->ws->call;
    memo[n].row = q;
    memo[n].z = z;
    return z;
}

static int accept(const sv_step *s, int32_t k, float p, float q)
{
    if (!s->Q)
        return sv_chain_accept(s, k, p, q);
    return sv_chain_accept(s, k, p, (float)(sqrt((double)q) / sqrt_sum(s, k))); /* BUG: q' */
}

static int32_t residual(const sv_step *s, int32_t n, double u)
{
    if (!s->Q)
        return sv_chain_residual(s, n, u);
    const float *q = s->Q + (int64_t)n * s->V;
    double z = sqrt_sum(s, n);
    for (int32_t i = 0; i < s->V; i++)
        s->ws->row[i] = (float)(sqrt((double)q[i]) / z); /* BUG: q' */
    int32_t t = sv_inverse_cdf(sv_chain_p_row(s, n), s->ws->row, -1, s->V, u, s->ws->cdf);
    return t >= 0 ? t : sv_chain_draw_p(s, n, u);
}

static const sv_chain_hooks hooks = {.accept = accept, .residual = residual};
SV_CHAIN_SAMPLER(sv_broken_draft_temperature_mismatch, "draft_temperature_mismatch",
                 "broken: verifies against q' = norm(sqrt(q)), drafts from q", hooks);
