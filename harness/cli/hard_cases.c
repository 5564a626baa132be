/* hard_cases.c: the broken variants that only many draws catch, each with
 * the case built to catch it soonest. `mutants --full` runs each there, and
 * the `deep` suite (verify --suite deep) is these cases at the draws the
 * power formula asks (deep_suite.c). */
#include <string.h>
#include "sv_cli.h"

static const sv_hard_case hard[] = {
    {"float16_ratio", "binary:p=0.948052,q=0.9674"}, /* the fewest draws found on a grid */
    {"accept_zero_target", "binary:p=0,q=1"},          /* every draft has p = 0 */
    {"oov_float_rounding", "cumshort:V=32003,K=2"},     /* float32 sums 1e-3 short of 1 */
    {"race_float32_truncated", "tinytail:V=32003,K=1"}, /* 5e-4 of the mass below 2^-24 */
    {"tree_cdf_boundary", "binary:p=0,q=1"},           /* every child has p = 0 */
    /* p = q: every draft accepted, so each of the 16 positions emits the
     * drafts' law norm(bf16(q)) = (0.5, 0.5), 9e-4 off q (w^2 = 3.24e-6) */
    {"drafts_bf16", "binary:p=0.5009,q=0.5009,K=16"},
};

size_t sv_hard_count(void)
{
    return sizeof hard / sizeof hard[0];
}

const sv_hard_case *sv_hard_get(size_t i)
{
    return i < sv_hard_count() ? &hard[i] : NULL;
}

const char *sv_hard_built_for(const char *spec, uint32_t rule)
{
    for (size_t i = 0; i < sv_hard_count(); i++) {
        const int tree_bug = strcmp(hard[i].variant, "tree_cdf_boundary") == 0;
        if (strcmp(hard[i].spec, spec) == 0 && tree_bug == sv_rule_is_tree(rule))
            return hard[i].variant;
    }
    return NULL;
}

const sv_hard_case *sv_hard_find(const char *variant)
{
    for (size_t i = 0; i < sv_hard_count(); i++)
        if (strcmp(hard[i].variant, variant) == 0)
            return &hard[i];
    return NULL;
}
