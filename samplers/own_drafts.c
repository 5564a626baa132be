/* own_drafts.c: the own-drafts skeleton (own_drafts.h) and ref_own_drafts,
 * the reference of a sampler that draws its own drafts: x_k by inverse CDF
 * of q_k at the harness's draft uniform u_k, then the chain rule as ref. */
#include "own_drafts.h"
#include "inverse_cdf.h"

int32_t sv_draft_inverse_cdf(const float *q, int32_t V, double u, sv_chain_state *ws)
{
    return sv_inverse_cdf(q, NULL, -1, V, u, ws->cdf);
}

int sv_own_drafts_verify(void *state, const sv_batch *bt, sv_draft_draw *draw)
{
    if (!bt->draft_uniforms) /* the harness's drafts: verify them */
        return sv_chain_verify(state, bt, NULL);
    if (!bt->out_drafts || !bt->draft || bt->input != SV_INPUT_PROBS)
        return SV_SAMPLER_EINVAL; /* nothing to draw from, or nowhere to say what */
    const int32_t V = bt->V;
    for (int32_t b = 0; b < bt->B; b++) {
        const int32_t d = sv_batch_num_drafts(bt, b);
        if (d < 0 || d > bt->K)
            return SV_SAMPLER_EINVAL;
        const float *Q = bt->draft + sv_batch_draft_offset(bt, b);
        const int64_t at = sv_batch_drafts_offset(bt, b);
        for (int32_t k = 0; k < d; k++) {
            int32_t x = draw(Q + (int64_t)k * V, V, bt->draft_uniforms[at + k], state);
            if (x < 0)
                return SV_SAMPLER_EINVAL; /* a draft row of no mass */
            bt->out_drafts[at + k] = x;
        }
    }
    sv_batch drawn = *bt; /* the same batch, its drafts the ones drawn */
    drawn.draft_tokens = bt->out_drafts;
    return sv_chain_verify(state, &drawn, NULL);
}

SV_OWN_DRAFTS_SAMPLER(sv_sampler_ref_own_drafts, "ref_own_drafts",
                      "draws its own drafts (inverse CDF of q at the harness's draft uniforms), "
                      "then ref's chain rule", sv_draft_inverse_cdf);
