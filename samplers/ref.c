/* ref.c: the CPU reference rejection sampler, written to be obviously right.
 *
 * Double-precision arithmetic, inverse-CDF residual sampling, and the guards
 * that matter: q(x) = 0 (accept iff p(x) > 0), p(x) = 0 (never accept: the
 * uniform is in the open interval (0, 1) and the test is strict), an empty
 * residual (fall back to p, which happens only by rounding), greedy rows
 * (one-hot p needs no special case). Randomness from sv_philox.h:
 * ACCEPT at (index, k) for draft k, FINAL at (index, n) for the last token,
 * under each sequence's own seed and index. Takes contract v3 batches in
 * both layouts: sequence b has its own d_b drafts and owns its d_b + 1
 * output slots only.
 */
#include "sv_registry.h"
#include "inverse_cdf.h"
#include "sv_philox.h"
#include <stdlib.h>

/* The state is the inverse-CDF workspace for the largest V. */
static int ref_init(void **state, const sv_limits *limits)
{
    *state = malloc((size_t)sv_inverse_cdf_workspace(limits->max_V) * sizeof(double));
    return *state ? SV_SAMPLER_OK : SV_SAMPLER_ENOMEM;
}

static void ref_destroy(void *state)
{
    free(state);
}

/* One sequence, its pieces found by sv_sampler.h's accessors in either
 * layout (or a version 2 batch): returns n, the number of accepted drafts,
 * or -1 on bad input. */
static int ref_sequence(const sv_batch *bt, int32_t b, double *ws)
{
    const int32_t K = sv_batch_num_drafts(bt, b), V = bt->V;
    if (K < 0 || K > bt->K)
        return -1;
    const float *P = bt->target + sv_batch_target_offset(bt, b);
    const float *Q = bt->draft ? bt->draft + sv_batch_draft_offset(bt, b) : NULL;
    const int32_t *x = bt->draft_tokens + sv_batch_drafts_offset(bt, b);
    int32_t *y = bt->out_tokens + sv_batch_out_offset(bt, b); /* its K + 1 slots alone */
    const uint64_t seed = sv_batch_seed(bt, b), index = sv_batch_index(bt, b);

    for (int32_t k = 0; k < K; k++) /* every draft, reached or not */
        if (x[k] < 0 || x[k] >= V)
            return -1;
    int32_t n = 0;
    for (int32_t k = 0; k < K; k++) {
        double p = P[(int64_t)k * V + x[k]];
        double q = Q ? Q[(int64_t)k * V + x[k]] : 1.0; /* one-hot drafter: q(x) = 1 */
        double u = sv_philox_uniform(seed, index, (uint32_t)k, SV_PURPOSE_ACCEPT, 0);
        /* accept with probability min(1, p/q), written without dividing */
        if (!(u * q < p))
            break;
        y[k] = x[k];
        n++;
    }

    double u = sv_philox_uniform(seed, index, (uint32_t)n, SV_PURPOSE_FINAL, 0);
    const float *row = P + (int64_t)n * V;
    int32_t last;
    if (n < K) {
        /* residual norm(max(p - q, 0)); a one-hot q removes x_n from p */
        last = Q ? sv_inverse_cdf(row, Q + (int64_t)n * V, -1, V, u, ws)
                 : sv_inverse_cdf(row, NULL, x[n], V, u, ws);
        if (last < 0) /* empty residual: p == q up to rounding */
            last = sv_inverse_cdf(row, NULL, -1, V, u, ws);
    } else {
        last = sv_inverse_cdf(row, NULL, -1, V, u, ws); /* bonus from p_{K+1} */
    }
    if (last < 0)
        return -1; /* an all-zero target row */
    y[n] = last;
    for (int32_t k = n + 1; k <= K; k++)
        y[k] = -1;
    return n;
}

static int ref_verify(void *state, const sv_batch *bt)
{
    for (int32_t b = 0; b < bt->B; b++) {
        int n = ref_sequence(bt, b, state);
        if (n < 0)
            return SV_SAMPLER_EINVAL;
        bt->out_accepted[b] = n;
    }
    return SV_SAMPLER_OK;
}

const sv_sampler sv_sampler_ref = {
    "ref", "CPU reference: double precision, inverse-CDF residual", SV_MEM_HOST,
    ref_init, ref_verify, ref_destroy, 0,
    SV_LAYOUT_BIT(SV_LAYOUT_PADDED) | SV_LAYOUT_BIT(SV_LAYOUT_PACKED), SV_RULE_CHAIN};
