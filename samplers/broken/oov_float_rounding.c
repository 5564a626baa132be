/* oov_float_rounding.c: broken variant — the final draw by a float32
 * cumulative sum that returns V when u lands past its end.
 *
 * Bug class: an out-of-vocabulary id from float rounding.
 * Effect: the residual or bonus token is the first i whose float32 running
 * sum c_i = c_{i-1} + w_i exceeds the target t: t = u for the bonus row (a
 * probability row sums to 1) and t = u * S for the residual weights
 * w = max(p - q, 0), S their sum by a separate reduction, as a kernel's
 * block reduce computes it. Tokens below half a float32
 * spacing of the running sum (2^-25 past 1/2) are rounded away whole, so a
 * row whose last tokens are tiny has c_{V-1} < t with probability about
 * 1 - c_{V-1} / S (the mass lost), and then the search finds no token and
 * returns V, one past the last id, instead of clamping to the last token of
 * positive mass. Elsewhere the token is ref's up to float rounding. The
 * contract check sees the first V; rows with little mass in tiny tokens
 * (V = 1000) need tens of millions of draws, the cumshort and tinytail
 * cases (docs/list.md) a few tens of thousands.
 * Where: inverse-CDF sampling kernels in float32 with a "not found"
 * value past the end: spec-decode sampling templates that default to an id
 * past the vocabulary (iree-turbine PR 890 moved theirs to V - 1), the
 * out-of-range ids FlashInfer's sampling tests catch now and then
 * (flashinfer issue 3470, V = 32000).
 */
#include "chain.h"
#include "sv_philox.h"

enum { LANES = 256 }; /* the threads of a block */

/* The float32 sum of w as a block reduce adds it: each thread a strided
 * share, then the partial sums by halves. The shares stay small, so the
 * tiny tokens count here, unlike in the running sum. */
static float block_sum(const float *w, int32_t V)
{
    float part[LANES];
    for (int32_t j = 0; j < LANES; j++) {
        part[j] = 0.0f;
        for (int32_t i = j; i < V; i += LANES)
            part[j] += w[i];
    }
    for (int32_t half = LANES / 2; half > 0; half /= 2)
        for (int32_t j = 0; j < half; j++)
            part[j] += part[j + half];
    return part[0];
}

/* The first i with t < c_i, c the float32 running sum of w; V if none. */
static int32_t float_search(const float *w, int32_t V, float t)
{
    float c = 0.0f;
    for (int32_t i = 0; i < V; i++) {
        c += w[i];
        if (t < c)
            return i;
    }
    return V; /* BUG: past the last id, not the last token of positive mass */
}

static int32_t residual(const sv_step *s, int32_t n, double u)
{
    const float *p = sv_chain_p_row(s, n);
    float *w = s->ws->row;
    for (int32_t i = 0; i < s->V; i++) {
        float d = p[i] - sv_chain_q(s, n, i);
        w[i] = d > 0.0f ? d : 0.0f;
    }
    const float total = block_sum(w, s->V);
    if (!(total > 0.0f)) /* an empty residual: p == q up to rounding */
        return float_search(p, s->V, (float)u);
    return float_search(w, s->V, (float)u * total);
}

static int32_t bonus(const sv_step *s, double u)
{
    return float_search(sv_chain_p_row(s, s->K), s->V, (float)u);
}

static const sv_chain_hooks hooks = {.residual = residual, .bonus = bonus};
SV_CHAIN_SAMPLER(sv_broken_oov_float_rounding, "oov_float_rounding",
                 "broken: final token by a float32 cumulative sum, V when u passes its end",
                 hooks);
