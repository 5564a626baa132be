/* block_rule.c: block verification, and ref_block, its reference (contract version 5,
 * SV_RULE_BLOCK), written to be obviously right: Sun et al., "Block
 * Verification Accelerates Speculative Decoding" (ICLR 2025), Algorithm 2,
 * as sv_sampler.h states it, in double precision.
 *
 * Per sequence with d drafts: the joint weights w_i = min(1, w_{i-1} p_i(x_i)
 * / q_i(x_i)) from w_0 = 1; at each i < d the residual mass
 * s_i = sum_x max(w_i p_{i+1}(x) - q_{i+1}(x), 0) and the chance
 * h_i = s_i / (s_i + 1 - w_i); h_d = w_d. Every i has its own uniform,
 * and n is the LAST i that passes (no stop at the first failure: that is
 * what makes it a block rule; found by testing from i = d down). The last token comes from
 * norm(max(w_n p_{n+1} - q_{n+1}, 0)) if n < d, from p_{d+1} if n = d.
 * tools/block_exact.py checks this law exactly on small trees of
 * distributions: the emitted tokens continued by the target are the
 * target's, and it accepts at least as many drafts as the chain rule.
 *
 * Randomness: eta_i at (seed, index, i - 1, SV_PURPOSE_ACCEPT), the last
 * token's at (seed, index, n, SV_PURPOSE_FINAL), under each sequence's own
 * seed and index; with d = 1 (and wherever w_n = 1) the residual is the
 * chain's, drawn as ref draws it, so with d = 1 it is ref, draw for draw.
 * Both layouts; a one-hot drafter (no draft rows) has q_i = e_{x_i}. */
#include <math.h>
#include "sv_registry.h"
#include "inverse_cdf.h"
#include "rules.h"
#include "sv_philox.h"

/* q_k(i): the draft row, or a one-hot drafter's e_{x_k}. */
static double q_of(const sv_rule_seq *s, int32_t k, int32_t i)
{
    return s->Q ? (double)s->Q[(int64_t)k * s->V + i] : (i == s->x[k] ? 1.0 : 0.0);
}

/* max(w p_k(i) - q_k(i), 0): row k's residual weight under joint weight w. */
static double residual(const sv_rule_seq *s, int32_t k, double w, int32_t i)
{
    return sv_positive_part(w * (double)s->P[(int64_t)k * s->V + i] - q_of(s, k, i));
}

/* The residual weights of row k over tokens [lo, hi), summed in four lanes
 * (the loop has no branch; a one-hot drafter's weights are w p, but for its
 * draft token's max(w p - 1, 0), put right after). */
#define SPAN 512
static double mass_span(const sv_rule_seq *s, int32_t k, double w, int32_t lo, int32_t hi)
{
    const float *P = s->P + (int64_t)k * s->V;
    double a[4] = {0.0, 0.0, 0.0, 0.0};
    int32_t i = lo;
    if (s->Q) {
        const float *Q = s->Q + (int64_t)k * s->V;
        for (; i + 4 <= hi; i += 4)
            for (int j = 0; j < 4; j++)
                a[j] += sv_positive_part(w * (double)P[i + j] - (double)Q[i + j]);
        for (; i < hi; i++)
            a[0] += sv_positive_part(w * (double)P[i] - (double)Q[i]);
    } else {
        for (; i + 4 <= hi; i += 4)
            for (int j = 0; j < 4; j++)
                a[j] += w * (double)P[i + j];
        for (; i < hi; i++)
            a[0] += w * (double)P[i];
        const int32_t x = s->x[k];
        if (x >= lo && x < hi)
            a[1] += sv_positive_part(w * (double)P[x] - 1.0) - w * (double)P[x];
    }
    return (a[0] + a[1]) + (a[2] + a[3]);
}

/* Whether row k's residual mass under w exceeds `above`: summed a span at a
 * time until it does, so a block that passes costs only part of a row. */
static int mass_exceeds(const sv_rule_seq *s, int32_t k, double w, double above)
{
    double sum = 0.0;
    for (int32_t lo = 0; lo < s->V; lo += SPAN) {
        sum += mass_span(s, k, w, lo, lo + SPAN < s->V ? lo + SPAN : s->V);
        if (sum > above)
            return 1;
    }
    return 0;
}

/* A draw from norm(max(w p_k - q_k, 0)) by inverse CDF with uniform u: the
 * span where the running sum passes u times the total, then the token in
 * it; -1 when the weights are all 0 (rounding: the caller draws from p_k). */
static int32_t draw_residual(const sv_rule_seq *s, int32_t k, double w, double u)
{
    double total = 0.0;
    for (int32_t lo = 0; lo < s->V; lo += SPAN)
        total += mass_span(s, k, w, lo, lo + SPAN < s->V ? lo + SPAN : s->V);
    if (!(total > 0.0))
        return -1;
    const double at = u * total;
    double cum = 0.0;
    int32_t last = -1;
    for (int32_t lo = 0; lo < s->V; lo += SPAN) {
        const int32_t hi = lo + SPAN < s->V ? lo + SPAN : s->V;
        const double span = mass_span(s, k, w, lo, hi);
        if (cum + span <= at && hi < s->V) { /* not in this span (the last: walk it) */
            cum += span;
            continue;
        }
        for (int32_t i = lo; i < hi; i++) {
            double r = residual(s, k, w, i);
            if (r <= 0.0)
                continue;
            last = i;
            cum += r;
            if (at < cum)
                return i;
        }
    }
    return last; /* u * total rounded up past the sum: the last positive weight */
}

/* Returns n, or -1 on bad input. */
static int sv_rule_sequence(const sv_batch *bt, int32_t b, double *ws, sv_block_flaw flaw)
{
    sv_rule_seq s;
    if (sv_rule_seq_of(bt, b, &s) != 0)
        return -1;
    int32_t *y = s.y;
    const uint64_t seed = s.seed, index = s.index;

    double w[SV_MAX_K + 1];
    w[0] = 1.0;
    for (int32_t i = 1; i <= s.d; i++) {
        const double p = s.P[(int64_t)(i - 1) * s.V + s.x[i - 1]], q = q_of(&s, i - 1, s.x[i - 1]);
        if (w[i - 1] == 0.0 || p == 0.0)
            w[i] = 0.0; /* a draft of target probability 0 is never part of the block */
        else
            w[i] = q > 0.0 ? fmin(1.0, w[i - 1] * p / q) : 1.0;
    }
    /* n is the largest i with eta_i < h_i: tested from i = d down, the first
     * pass is n (the same definition; the residual masses of the i above n
     * are never needed, nor those below it) */
    int32_t n = 0;
    for (int32_t i = s.d; i >= 1 && n == 0; i--) {
        const double eta = sv_philox_uniform(seed, index, (uint32_t)(i - 1), SV_PURPOSE_ACCEPT, 0);
        /* h_d = w_d; h_i = s_i / s_i = 1 (or 0/0, read as 1) where w_i = 1; else
         * eta < s / (s + 1 - w)  <=>  s > eta (1 - w) / (1 - eta) */
        const int pass = i == s.d        ? eta < w[i]
                         : w[i] == 1.0 ? 1
                                       : mass_exceeds(&s, i, w[i], eta * (1.0 - w[i]) / (1.0 - eta));
        n = pass ? i : 0;
    }

    const double u = sv_philox_uniform(seed, index, (uint32_t)n, SV_PURPOSE_FINAL, 0);
    int32_t last = -1;
    if (flaw == SV_BLOCK_TOKENWISE_RESIDUAL)
        w[n] = 1.0; /* the flaw: the chain's residual whatever the block's weight */
    if (n < s.d && w[n] == 1.0) /* the chain's residual max(p - q, 0): drawn as ref does */
        last = s.Q ? sv_inverse_cdf(s.P + (int64_t)n * s.V, s.Q + (int64_t)n * s.V, -1, s.V, u, ws)
                   : sv_inverse_cdf(s.P + (int64_t)n * s.V, NULL, s.x[n], s.V, u, ws);
    else if (n < s.d)
        last = draw_residual(&s, n, w[n], u);
    if (last < 0) /* the bonus row, or an empty residual (p == q up to rounding) */
        last = sv_inverse_cdf(s.P + (int64_t)n * s.V, NULL, -1, s.V, u, ws);
    if (last < 0)
        return -1; /* an all-zero target row */
    for (int32_t k = 0; k < n; k++)
        y[k] = s.x[k];
    y[n] = last;
    for (int32_t k = n + 1; k <= s.d; k++)
        y[k] = -1;
    return n;
}

int sv_block_verify(void *state, const sv_batch *bt, sv_block_flaw flaw)
{
    if (!bt->target)
        return SV_SAMPLER_EINVAL;
    for (int32_t b = 0; b < bt->B; b++) {
        int n = sv_rule_sequence(bt, b, state, flaw);
        if (n < 0)
            return SV_SAMPLER_EINVAL;
        bt->out_accepted[b] = n;
    }
    return SV_SAMPLER_OK;
}

static int block_verify(void *state, const sv_batch *bt)
{
    return sv_block_verify(state, bt, SV_BLOCK_RIGHT);
}

const sv_sampler sv_sampler_ref_block = {
    "ref_block", "CPU reference block verification (Sun et al. 2024): double precision",
    SV_MEM_HOST, sv_rule_init, block_verify, sv_rule_destroy, 0,
    SV_LAYOUT_BIT(SV_LAYOUT_PADDED) | SV_LAYOUT_BIT(SV_LAYOUT_PACKED), SV_RULE_BLOCK};
