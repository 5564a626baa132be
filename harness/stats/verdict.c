/* verdict.c: one family-wise false-alarm rate, split over every p-value. */
#include "sv_stats.h"

size_t sv_tests_per_case(const sv_case *c)
{
    if (c->chain) /* chi-square and G of the transitions, acceptance of draft 1 */
        return 3;
    /* per position: chi-square, G, TV; per case: acceptance length, and
     * independence across sequences and across positions */
    return 3 * (size_t)(c->K + 1) + 3;
}

double sv_bonferroni(double family_alpha, size_t n_tests)
{
    return n_tests ? family_alpha / (double)n_tests : family_alpha;
}

sv_verdict sv_verdict_of(double p, double split_alpha)
{
    if (p < split_alpha)
        return SV_FAIL;
    if (p < SV_SUSPECT_P)
        return SV_SUSPECT;
    return SV_PASS;
}

sv_verdict sv_verdict_worst(sv_verdict a, sv_verdict b)
{
    return a > b ? a : b;
}

const char *sv_verdict_name(sv_verdict v)
{
    switch (v) {
    case SV_NA: return "n/a";
    case SV_PASS: return "PASS";
    case SV_SUSPECT: return "SUSPECT";
    case SV_FAIL: return "FAIL";
    }
    return "?";
}
