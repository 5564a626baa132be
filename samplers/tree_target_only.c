/* tree_target_only.c: ref_tree_target_only, the target-only tree rule
 * (contract version 6, SV_RULE_TREE_TARGET_ONLY) that SGLang's
 * tree_speculative_sampling_target_only implements with exact thresholds.
 *
 * At node u, one uniform picks a token from p_u by a CDF that lists u's
 * children's tokens first (each once, in child order) and then every other
 * token in index order: a draw from p_u whatever the order. If it lands on
 * a child's token, that child is accepted and the walk goes on from it;
 * else the token is emitted and the step ends. The comparison is strict,
 * so a token of zero mass (its bucket empty) is never chosen; the uniform
 * is a double in (0, 1). tree_cdf_boundary breaks exactly that.
 * Randomness: node u's uniform is (u, SV_PURPOSE_FINAL). Both layouts. */
#include <math.h>
#include "sv_registry.h"
#include "rules.h"
#include "sv_philox.h"

/* 1 if an earlier child of u (before child k) carries token x. */
static int repeated(const sv_tree_seq *t, int32_t u, int32_t k, int32_t x)
{
    for (int32_t j = 0; j < k; j++)
        if (t->parents[j] == u && t->s.x[j] == x)
            return 1;
    return 0;
}

/* Node u's step: the child accepted, or 0 with the emitted token in *token;
 * -1 on a row without mass. */
static int32_t target_only_step(const sv_tree_seq *t, int32_t u, sv_tree_flaw flaw,
                                int32_t *token)
{
    const sv_rule_seq *s = &t->s;
    const float *p = s->P + (int64_t)u * s->V;
    double total = 0.0;
    for (int32_t i = 0; i < s->V; i++)
        total += p[i] > 0.0f ? p[i] : 0.0;
    if (!(total > 0.0))
        return -1;
    double coin;
    if (flaw == SV_TREE_CDF_BOUNDARY) { /* BUG: torch.rand's float32, [0, 1): can be 0 */
        philox4x32_ctr_t r = sv_philox_block(s->seed, s->index, (uint32_t)u, SV_PURPOSE_FINAL, 0);
        coin = (double)((float)(r.v[0] >> 8) * (1.0f / 16777216.0f));
    } else
        coin = sv_philox_uniform(s->seed, s->index, (uint32_t)u, SV_PURPOSE_FINAL, 0);
    const double at = coin * total;
    double acc = 0.0;
    for (int32_t k = 0; k < s->d; k++) {
        if (t->parents[k] != u || repeated(t, u, k, s->x[k]))
            continue;
        const double mass = p[s->x[k]] > 0.0f ? p[s->x[k]] : 0.0;
        acc += mass;
        if (flaw == SV_TREE_CDF_BOUNDARY ? at <= acc : at < acc) /* BUG when flawed: <= */
            return k + 1;
    }
    int32_t last = -1;
    for (int32_t i = 0; i < s->V; i++) {
        if (!(p[i] > 0.0f)) /* the cheap test first: most of a large row has no mass */
            continue;
        int child = 0;
        for (int32_t k = 0; k < s->d && !child; k++)
            child = t->parents[k] == u && s->x[k] == i;
        if (child)
            continue;
        acc += p[i];
        last = i;
        if (at < acc)
            break;
    }
    *token = last; /* rounding may leave at at the very top: the last token of mass */
    return last < 0 ? -1 : 0;
}

static int32_t flawless_step(const sv_tree_seq *t, int32_t u, void *ctx, int32_t *token)
{
    (void)ctx;
    return target_only_step(t, u, SV_TREE_RIGHT, token);
}

static int32_t boundary_step(const sv_tree_seq *t, int32_t u, void *ctx, int32_t *token)
{
    (void)ctx;
    return target_only_step(t, u, SV_TREE_CDF_BOUNDARY, token);
}

int sv_tree_target_only_verify(void *state, const sv_batch *bt, sv_tree_flaw flaw)
{
    (void)state;
    return sv_tree_walk(bt, flaw == SV_TREE_CDF_BOUNDARY ? boundary_step : flawless_step, NULL);
}

static int target_only_verify(void *state, const sv_batch *bt)
{
    return sv_tree_target_only_verify(state, bt, SV_TREE_RIGHT);
}

const sv_sampler sv_sampler_ref_tree_target_only = {
    "ref_tree_target_only",
    "CPU reference target-only tree verification (SGLang's rule): a target draw per node",
    SV_MEM_HOST, sv_tree_init, target_only_verify, sv_tree_destroy, 0,
    SV_LAYOUT_BIT(SV_LAYOUT_PADDED) | SV_LAYOUT_BIT(SV_LAYOUT_PACKED), SV_RULE_TREE_TARGET_ONLY};
