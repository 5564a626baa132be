/* typical_rule.c: Medusa's typical acceptance (Cai et al. 2024), and
 * ref_typical, its reference (contract version 5, SV_RULE_TYPICAL): lossy
 * on purpose, so `verify --measure` reports how far its tokens are from p.
 *
 * Per sequence: draft k is accepted iff p_k(x_k) > min(eps, delta
 * exp(-H(p_k))), H the entropy of the target row (natural log); the first
 * rejected position emits a draw from p_k itself (Medusa's next token
 * comes from the base model at that position), the bonus comes from
 * p_{d+1}. eps = 0.09 and delta = 0.3 are Medusa's defaults
 * (posterior_threshold, posterior_alpha). The acceptance needs no uniform;
 * the draw at position n uses (seed, index, n, SV_PURPOSE_FINAL). Double
 * precision, both layouts; draft rows are not read. */
#include <math.h>
#include "sv_registry.h"
#include "inverse_cdf.h"
#include "rules.h"
#include "sv_philox.h"

/* The row's acceptance threshold min(eps, delta exp(-H)). */
double sv_typical_threshold(const float *row, int32_t V, double eps, double delta)
{
    double sum = 0.0, h = 0.0;
    for (int32_t i = 0; i < V; i++)
        sum += row[i];
    for (int32_t i = 0; i < V; i++) {
        const double p = row[i] / sum;
        if (p > 0.0)
            h -= p * log(p);
    }
    return fmin(eps, delta * exp(-h));
}

static int typical_sequence(const sv_batch *bt, int32_t b, double *ws)
{
    sv_rule_seq s;
    if (sv_rule_seq_of(bt, b, &s) != 0)
        return -1;
    int32_t n = 0;
    while (n < s.d) {
        const float *row = s.P + (int64_t)n * s.V;
        if (!(row[s.x[n]] > sv_typical_threshold(row, s.V, SV_TYPICAL_EPS, SV_TYPICAL_DELTA)))
            break;
        s.y[n] = s.x[n];
        n++;
    }
    const double u = sv_philox_uniform(s.seed, s.index, (uint32_t)n, SV_PURPOSE_FINAL, 0);
    const int32_t last = sv_inverse_cdf(s.P + (int64_t)n * s.V, NULL, -1, s.V, u, ws);
    if (last < 0)
        return -1;
    s.y[n] = last;
    for (int32_t k = n + 1; k <= s.d; k++)
        s.y[k] = -1;
    return n;
}

static int typical_verify(void *state, const sv_batch *bt)
{
    if (!bt->target)
        return SV_SAMPLER_EINVAL;
    for (int32_t b = 0; b < bt->B; b++) {
        int n = typical_sequence(bt, b, state);
        if (n < 0)
            return SV_SAMPLER_EINVAL;
        bt->out_accepted[b] = n;
    }
    return SV_SAMPLER_OK;
}

const sv_sampler sv_sampler_ref_typical = {
    "ref_typical", "Medusa's typical acceptance (eps 0.09, delta 0.3): lossy on purpose",
    SV_MEM_HOST, sv_rule_init, typical_verify, sv_rule_destroy, 0,
    SV_LAYOUT_BIT(SV_LAYOUT_PADDED) | SV_LAYOUT_BIT(SV_LAYOUT_PACKED), SV_RULE_TYPICAL};
