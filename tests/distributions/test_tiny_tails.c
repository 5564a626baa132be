/* test_tiny_tails.c: the ci suite's cumshort and tinytail cases have the
 * rows docs/list.md says they have (the float-rounding variants are caught
 * because of these properties, not by luck).
 *
 * cumshort:V=32003,K=2: every target row and every residual row
 * max(p - q, 0) has a float32 running sum, in vocabulary order, short of
 * its sum by at least 13,000 ulps of 1 (2^-24 each; (V - 16) 2.5e-8 2^24 =
 * 13,416 stated), its last token of positive mass at V - 1, all of them
 * below 2^-25 from token 16 on. tinytail:V=32003,K=1: 4.77e-4 of the bonus
 * row's mass in tokens of p = 2^-26, below 2^-24, running to V - 1, none
 * of it proposed by the drafter. V = 32003 leaves a partial last tile for
 * every tile of a power of two tokens. */
#include <math.h>
#include <string.h>
#include "check.h"
#include "sv_cases.h"

static const char *ci_spec(const char *family)
{
    const sv_suite *ci = sv_suite_find("ci");
    for (size_t i = 0; ci && i < ci->n_entries; i++)
        if (strncmp(ci->entries[i].spec, family, strlen(family)) == 0)
            return ci->entries[i].spec;
    return NULL;
}

/* The float32 running sum of max(p - q, 0) (q NULL: p) in vocabulary order,
 * the exact sum (*sum), and the last token of positive weight (*last). */
static float running_sum(const float *p, const float *q, int32_t V, double *sum, int32_t *last)
{
    float c = 0.0f;
    *sum = 0.0;
    *last = -1;
    for (int32_t i = 0; i < V; i++) {
        float w = q ? p[i] - q[i] : p[i];
        if (!(w > 0.0f))
            continue;
        c += w;
        *sum += w;
        *last = i;
    }
    return c;
}

/* The ci case of this family, which must be `spec`; NULL if it is not. */
static sv_case *ci_case(const char *family, const char *spec)
{
    const char *in_ci = ci_spec(family);
    sv_case *c = NULL;
    char err[512];
    CHECK(in_ci && strcmp(in_ci, spec) == 0);
    CHECK(sv_case_from_spec(spec, &c, err, sizeof err) == 0);
    return c;
}

static void test_cumshort(void)
{
    const char *spec = "cumshort:V=32003,K=2";
    sv_case *c = ci_case("cumshort:", spec);
    if (!c)
        return;
    const int32_t V = c->V, head = 16;
    const double ulp = ldexp(1.0, -24);
    double least = INFINITY;
    int ends = 1, tiny = 1, drafter = 1;
    for (int32_t k = 0; k <= c->K; k++) {
        const float *p = c->target + (size_t)k * V;
        double sum;
        int32_t last;
        const float cp = running_sum(p, NULL, V, &sum, &last);
        least = fmin(least, (1.0 - cp) / ulp);
        ends &= last == V - 1;
        for (int32_t i = head; i < V; i++)
            tiny &= p[i] > 0.0f && p[i] < ldexpf(1.0f, -25);
        if (k == c->K)
            break;
        const float *q = c->draft + (size_t)k * V;
        const float cw = running_sum(p, q, V, &sum, &last);
        least = fmin(least, (sum - cw) / ulp);
        ends &= last == V - 1;
        drafter &= q[0] == 0.0f && p[0] >= 0.5f;
        for (int32_t i = head; i < V; i++)
            drafter &= q[i] == 0.0f;
    }
    printf("  %s: float32 running sums short by at least %.0f ulps of 1\n", spec, least);
    CHECK(least >= 13000.0);
    CHECK(ends);
    CHECK(tiny);
    CHECK(drafter);
    CHECK(V % 4 != 0);
    sv_case_free(c);
    feature("cumshort (ci): target and residual rows' float32 sums short by >= 13000 ulps, "
            "positive to V - 1, tokens 16.. below 2^-25");
}

static void test_tinytail(void)
{
    const char *spec = "tinytail:V=32003,K=1";
    sv_case *c = ci_case("tinytail:", spec);
    if (!c)
        return;
    const int32_t V = c->V, head = 4;
    const float *bonus = c->target + (size_t)c->K * V, *q = c->draft;
    double below = 0.0, sum;
    int32_t last;
    int equal = 1, unproposed = 1;
    for (int32_t i = 0; i < V; i++) {
        if (bonus[i] < ldexpf(1.0f, -24))
            below += bonus[i];
        if (i >= head) {
            equal &= bonus[i] == ldexpf(1.0f, -26);
            unproposed &= q[i] == 0.0f;
        }
    }
    const float cp = running_sum(bonus, NULL, V, &sum, &last);
    printf("  %s: %.4g of the bonus row below 2^-24; its float32 sum %.0f ulps short of 1\n",
           spec, below, (1.0 - cp) * 16777216.0);
    CHECK(below >= 4.76e-4 && below <= 4.77e-4);
    CHECK(equal && unproposed);
    CHECK(last == V - 1);
    CHECK((1.0 - cp) * 16777216.0 >= 7900.0);
    CHECK_NEAR(sv_case_alpha(c, 0), 1.0 - below, 1e-6);
    CHECK(V % 4 != 0);
    sv_case_free(c);
    feature("tinytail (ci): 4.77e-4 of the bonus row in tokens of 2^-26 to V - 1, never "
            "drafted");
}

int main(void)
{
    test_cumshort();
    test_tinytail();
    return check_exit();
}
