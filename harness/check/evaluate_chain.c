/* evaluate_chain.c: the checks of a Markov-pair case (DESIGN: fact 4): the
 * emitted stream's transitions against the target chain, pooled chi-square
 * and G per visited state summed over states, and draft 1's acceptance
 * against the sum of its chances. */
#include <math.h>
#include <stdlib.h>
#include <gsl/gsl_cdf.h>
#include "sv_check.h"

#define CHAIN_MIN_EXPECTED 40.0

int sv_evaluate_chain(const sv_case *c, const sv_tally *t, double split, sv_run_eval *ev)
{
    const int32_t V = c->V;
    double *p = malloc((size_t)V * sizeof *p);
    if (!p)
        return sv_fail(SV_EENV, "case %s: out of memory", c->name);
    double x2 = 0.0, g2 = 0.0, worst_z = 0.0;
    int32_t df = 0, worst_state = -1, worst_token = -1;
    double worst_o = 0.0, worst_e = 0.0;
    int rc = SV_OK;
    for (int32_t s = 0; s < V && rc == SV_OK; s++) {
        const uint64_t *row = t->transitions + (size_t)s * V;
        uint64_t visits = 0;
        for (int32_t j = 0; j < V; j++)
            visits += row[j];
        if (visits == 0)
            continue;
        const float *P = c->chain->P + (size_t)s * V;
        double sum = 0.0;
        for (int32_t j = 0; j < V; j++)
            sum += P[j];
        for (int32_t j = 0; j < V; j++)
            p[j] = P[j] / sum;
        /* bins of at least 40 expected, not 10: summed over thousands of
         * states, the O(1/E^2) bias that Williams' correction leaves in G and
         * the excess variance of X^2 add up; at 40 they stay well under one
         * standard deviation of the sum (at 10, about one) */
        sv_pooled pooled;
        rc = sv_pool(p, row, V, visits, CHAIN_MIN_EXPECTED, &pooled);
        if (rc != SV_OK)
            break;
        if (pooled.nbins >= 2 && !pooled.exact_tail) {
            sv_gof a = sv_pearson(&pooled), b = sv_gtest(&pooled);
            x2 += a.stat;
            g2 += b.stat;
            df += a.df;
            ev->states_tested++;
            for (int32_t j = 0; j < pooled.nbins; j++) {
                double z = fabs(pooled.observed[j] - pooled.expected[j]) / sqrt(pooled.expected[j]);
                if (z > worst_z && pooled.token[j] >= 0) {
                    worst_z = z;
                    worst_state = s;
                    worst_token = pooled.token[j];
                    worst_o = pooled.observed[j];
                    worst_e = pooled.expected[j];
                }
            }
        }
        sv_pooled_free(&pooled);
    }
    free(p);
    if (rc != SV_OK)
        return rc;
    for (int32_t s = 0; s < V; s++)
        for (int32_t j = 0; j < V; j++)
            ev->transitions += t->transitions[(size_t)s * V + j];
    ev->chain = 1;
    ev->seq_chi2 = (sv_gof){x2, df, df ? gsl_cdf_chisq_Q(x2, df) : 1.0, 0};
    ev->seq_g = (sv_gof){g2, df, df ? gsl_cdf_chisq_Q(g2, df) : 1.0, 0};
    ev->seq_verdict = df ? sv_verdict_worst(sv_verdict_of(ev->seq_chi2.p, split),
                                            sv_verdict_of(ev->seq_g.p, split))
                         : SV_NA;

    /* acceptance: draft 1 is accepted with chance a_i = min(1, p/q) at each
     * step; the count of acceptances against the sum of the a_i, a normal
     * z-test on this Poisson-binomial sum (variance sum a_i (1 - a_i)) */
    const double chance = ldexp((double)t->first_chance_fx, -32);
    const double var = ldexp((double)t->first_variance_fx, -32);
    ev->first_accepted = t->first_accepted;
    ev->first_expected = chance;
    ev->length = (sv_gof){0.0, 0, 1.0, 0};
    ev->length_verdict = SV_NA;
    /* block verification and typical acceptance: draft 1's chance is not
     * min(1, p/q) (the transitions check holds for every lossless rule); a
     * tree's depth has its own whole law (evaluate_tree.c) */
    const int applies = ev->rule != SV_RULE_BLOCK && ev->rule != SV_RULE_TYPICAL &&
                        !sv_rule_is_tree(ev->rule);
    if (applies && var > 0.0) {
        double z = ((double)t->first_accepted - chance) / sqrt(var);
        ev->length = (sv_gof){z * z, 1, gsl_cdf_chisq_Q(z * z, 1), 0};
        ev->length_verdict = sv_verdict_of(ev->length.p, split);
    } else if (applies && (double)t->first_accepted != chance) { /* a_i all 0 or 1: exact */
        ev->length = (sv_gof){INFINITY, 1, 0.0, 0};
        ev->length_verdict = SV_FAIL;
    }
    if (ev->length_verdict > SV_PASS && ev->n_findings < SV_MAX_FINDINGS) {
        uint64_t valid = 0; /* steps that kept the contract */
        for (int32_t j = 0; j <= c->K; j++)
            valid += t->length[j];
        double steps = valid ? (double)valid : 1.0;
        char gap[64] = ": every chance is 0 or 1, so the count is exact";
        if (var > 0.0) {
            const double z = ((double)t->first_accepted - chance) / sqrt(var);
            snprintf(gap, sizeof gap, ": %.1f sd %s", fabs(z), z < 0 ? "fewer" : "more");
        }
        snprintf(ev->findings[ev->n_findings++], SV_FINDING_LEN,
                 "accepted length: draft 1 accepted in %llu of %.0f steps (%.3f%%), min(1, p/q) "
                 "says %.1f (%.3f%%)%s (p = %.3g)%s", (unsigned long long)t->first_accepted,
                 steps, 100.0 * (double)t->first_accepted / steps, chance,
                 100.0 * chance / steps, gap, ev->length.p,
                 t->first_accepted == 0 ? "; it accepts no drafts, so no speedup" : "");
    }
    if (ev->seq_verdict > SV_PASS && ev->n_findings < SV_MAX_FINDINGS) {
        if (worst_state >= 0 && worst_z > 3.0)
            snprintf(ev->findings[ev->n_findings++], SV_FINDING_LEN,
                     "sequence: after state %d, token %d follows %.3gx %s often than the "
                     "target chain says (%.0f vs %.1f expected; %d states, X^2 p = %.3g)",
                     worst_state, worst_token,
                     worst_o >= worst_e ? worst_o / worst_e : worst_e / (worst_o > 0 ? worst_o : 1),
                     worst_o >= worst_e ? "more" : "less", worst_o, worst_e, ev->states_tested,
                     ev->seq_chi2.p);
        else
            snprintf(ev->findings[ev->n_findings++], SV_FINDING_LEN,
                     "sequence: the emitted transitions do not follow the target chain "
                     "(X^2 = %.1f, df %d, p = %.3g)", x2, df, ev->seq_chi2.p);
    }
    return SV_OK;
}
