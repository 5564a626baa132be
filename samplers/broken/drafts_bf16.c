/* drafts_bf16.c: drafts drawn from q rounded to bfloat16 (a bf16 softmax),
 * while acceptance uses the float32 q (DeepSpec issue 31, 2026). The
 * drafts' law is norm(bf16(q)), not q: positions whose drafts are mostly
 * accepted emit tokens off p by about TV(q, norm(bf16(q))), 1e-3 on the
 * case built for it (hard_cases.c). */
#include "own_drafts.h"
#include "inverse_cdf.h"
#include "sv_bf16.h"

static int32_t bf16_draw(const float *q, int32_t V, double u, sv_chain_state *ws)
{
    for (int32_t i = 0; i < V; i++)
        ws->row[i] = sv_bf16_to_float(sv_bf16_from_float(q[i]));
    return sv_inverse_cdf(ws->row, NULL, -1, V, u, ws->cdf); /* normalizes: multinomial */
}

SV_OWN_DRAFTS_SAMPLER(sv_broken_drafts_bf16, "drafts_bf16",
                      "draws its drafts from q rounded to bfloat16, accepts with float32 q",
                      bf16_draw);
