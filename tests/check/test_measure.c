/* test_measure.c: `verify --measure` measures what typical acceptance does.
 *
 * With prefix-free rows, Medusa's typical acceptance has a closed form,
 * written here apart from samplers/typical_rule.c: draft k is accepted iff
 * A_k(x) = [p_k(x) > min(eps, delta exp(-H(p_k)))], so among the steps that
 * reach position k the emitted token is distributed as
 *     r_k = q_k A_k + (1 - sum q_k A_k) p_k
 * (an accepted draft, else a draw from p_k), and alpha_k = sum q_k A_k.
 * ref_typical runs 400,000 draws of two cases; at every position the
 * closed-form TV(r_k, p_k) and KL(r_k || p_k) must lie in the measured
 * intervals (distance.c) at level 1 - 1e-6, and the measured acceptance
 * within 5 standard errors of alpha_k. Then ref, lossless: every interval
 * reaches 0. False alarm: about 1e-6 per interval, under 1e-4 in all (the
 * TV interval rests on bounds, so it covers more often than its level). */
#include <math.h>
#include <stdlib.h>
#include "check.h"
#include "rules.h"
#include "sv_cases.h"
#include "sv_check.h"
#include "sv_registry.h"
#include "sv_run.h"
#include "sv_stats.h"

#define LEVEL (1.0 - 1e-6)

/* r_k, the law of position k's token under typical acceptance; alpha_k. */
static double typical_law(const sv_case *c, int32_t k, const double *p, double *r)
{
    const int32_t V = c->V;
    double h = 0.0, qs = 0.0, alpha = 0.0;
    for (int32_t i = 0; i < V; i++) {
        h -= p[i] > 0.0 ? p[i] * log(p[i]) : 0.0;
        qs += c->draft[(size_t)k * V + i];
    }
    const double thr = fmin(SV_TYPICAL_EPS, SV_TYPICAL_DELTA * exp(-h));
    for (int32_t i = 0; i < V; i++) {
        const double q = c->draft[(size_t)k * V + i] / qs;
        r[i] = p[i] > thr ? q : 0.0;
        alpha += r[i];
    }
    for (int32_t i = 0; i < V; i++)
        r[i] += (1.0 - alpha) * p[i];
    return alpha;
}

static sv_tally *run(const sv_sampler *s, const sv_case *c, uint64_t draws)
{
    sv_drafter *d = NULL;
    sv_tally *t = NULL;
    sv_pair_plan plan = {0};
    sv_run_config cfg = {s, draws, 7, 4096, 2, 0, "measure", 0, 1, 0.0, NULL, 0, 0, NULL, 0};
    if (sv_drafter_alloc(c, &d) != SV_OK || sv_tally_alloc(c, &plan, &t) != SV_OK ||
        sv_run(&cfg, c, d, &plan, t) != SV_OK) {
        sv_tally_free(t);
        t = NULL;
    }
    sv_drafter_free(d);
    return t;
}

static void typical_against_its_closed_form(const char *spec)
{
    sv_case *c = NULL;
    char err[256];
    CHECK(sv_case_from_spec(spec, &c, err, sizeof err) == 0);
    sv_tally *t = c ? run(&sv_sampler_ref_typical, c, 400000) : NULL;
    CHECK(t != NULL && t->violations == 0);
    double *p = malloc(2 * (size_t)(c ? c->V : 1) * sizeof *p);
    for (int32_t k = 0; t && p && k < c->K; k++) {
        double *r = p + c->V;
        sv_case_target_dist(c, k, p);
        const double alpha = typical_law(c, k, p, r);
        double tv = 0.0, kl = 0.0;
        for (int32_t i = 0; i < c->V; i++) {
            tv += 0.5 * fabs(r[i] - p[i]);
            kl += r[i] > 0.0 ? r[i] * log(r[i] / p[i]) : 0.0;
        }
        const uint64_t N = t->reached[k];
        sv_distance d = sv_distance_estimate(p, t->hist + (size_t)k * c->V, c->V, N, LEVEL);
        if (!(d.tv_lo <= tv && tv <= d.tv_hi && d.kl_lo <= kl && kl <= d.kl_hi))
            fprintf(stderr, "  %s position %d: closed form TV %.5f KL %.5f, measured TV "
                    "[%.5f, %.5f] KL [%.5f, %.5f] (N %llu)\n", spec, k + 1, tv, kl, d.tv_lo,
                    d.tv_hi, d.kl_lo, d.kl_hi, (unsigned long long)N);
        CHECK(d.tv_lo <= tv && tv <= d.tv_hi);
        CHECK(d.kl_lo <= kl && kl <= d.kl_hi);
        CHECK(tv > 0.01); /* the case shows the loss: a test that could not fail is none */
        /* acceptance: of the steps given all K that tested draft k, those accepting */
        uint64_t tested = 0, accepted = 0;
        for (int32_t n = k; n <= c->K; n++)
            tested += t->length[n];
        for (int32_t n = k + 1; n <= c->K; n++)
            accepted += t->length[n];
        const double se = sqrt(alpha * (1.0 - alpha) / (double)tested);
        CHECK(tested > 0 && fabs((double)accepted / (double)tested - alpha) <= 5.0 * se + 1e-12);
    }
    free(p);
    sv_tally_free(t);
    sv_case_free(c);
}

static void lossless_reaches_zero(const char *spec)
{
    sv_case *c = NULL;
    char err[256];
    CHECK(sv_case_from_spec(spec, &c, err, sizeof err) == 0);
    sv_tally *t = c ? run(&sv_sampler_ref, c, 400000) : NULL;
    CHECK(t != NULL);
    double *p = malloc((size_t)(c ? c->V : 1) * sizeof *p);
    for (int32_t k = 0; t && p && k <= c->K; k++) {
        sv_case_target_dist(c, k, p);
        sv_distance d =
            sv_distance_estimate(p, t->hist + (size_t)k * c->V, c->V, t->reached[k], LEVEL);
        CHECK(d.tv_lo == 0.0 && d.kl_lo == 0.0);
    }
    free(p);
    sv_tally_free(t);
    sv_case_free(c);
}

int main(void)
{
    typical_against_its_closed_form("seedlab:V=100,K=3");
    typical_against_its_closed_form("zipf:V=200,K=4");
    feature("ref_typical: measured TV, KL and acceptance agree with the closed form");
    lossless_reaches_zero("seedlab:V=100,K=3");
    lossless_reaches_zero("zipf:V=200,K=4");
    feature("ref, lossless: every measured interval reaches 0");
    return check_exit();
}
