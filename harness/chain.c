/* chain.c: context-dependent cases. A target and a draft Markov chain over V
 * states are spec-decoded as many independent streams; the emitted stream's
 * transition counts must follow the target chain (DESIGN.md, fact 4).
 * Unlike fixed-row cases, every sequence gets its own rows (stride (K+1)V). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_cdf.h>
#include "sampler_host.h"
#include "sv_philox.h"

/* The smallest token whose cumulative draft mass exceeds u * total: never a
 * token of zero mass, since its cumulative equals its predecessor's. */
static int32_t draw_from_row(const double *cum, int32_t V, double u)
{
    double target = u * cum[V - 1];
    int32_t lo = 0, hi = V - 1;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (cum[mid] > target)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

int sv_chain_unit(const sv_run_config *cfg, const sv_case *c, int32_t B, uint64_t steps,
                  uint64_t unit, sv_worker_buffers *w, sv_tally *t, atomic_uint_fast64_t *done)
{
    const int32_t K = c->K, V = c->V;
    const uint64_t streams = (uint64_t)c->chain->streams, first_stream = unit * (uint64_t)B;
    if (first_stream + (uint64_t)B > streams)
        B = (int32_t)(streams - first_stream);
    const size_t tstride = (size_t)(K + 1) * V, dstride = (size_t)K * V;
    for (int32_t b = 0; b < B; b++)
        w->states[b] = 0; /* every stream starts in state 0 */

    for (uint64_t step = 0; step < steps; step++) {
        /* stream s at step t is sequence t * streams + s: unique whatever the
         * chunking, and consecutive across a chunk, so one call covers it */
        const uint64_t first = step * streams + first_stream;
        for (int32_t b = 0; b < B; b++) {
            int32_t from = w->states[b], *x = w->drafts + (size_t)b * K;
            for (int32_t k = 0; k < K; k++) {
                double u = sv_philox_uniform(cfg->seed, first + (uint64_t)b, (uint32_t)k,
                                             SV_PURPOSE_DRAFT, 0);
                x[k] = draw_from_row(c->chain->Qcum + (size_t)from * V, V, u);
                from = x[k];
            }
            sv_chain_step_rows(c, w->states[b], x, w->rows_target + b * tstride,
                               w->rows_draft + b * dstride);
        }
        sv_batch bt = {
            .B = B, .K = K, .V = V,
            .target = w->rows_target, .target_stride = (int64_t)tstride,
            .draft = c->draft_probs_given ? w->rows_draft : NULL, .draft_stride = (int64_t)dstride,
            .draft_tokens = w->drafts,
            .seed = cfg->seed, .first_index = first,
            .stream = NULL,
        };
        int rc = sv_host_verify(w->host, w->slot, &bt, t);
        if (rc != SV_SAMPLER_OK)
            return rc;
        for (int32_t b = 0; b < B; b++) {
            uint64_t index = first + (uint64_t)b;
            const int32_t *y = bt.out_tokens + (size_t)b * (K + 1);
            int32_t n = bt.out_accepted[b];
            if (!sv_check_sequence(t, K, V, w->rows_target + b * tstride, index,
                                   w->drafts + (size_t)b * K, y, n)) {
                w->states[b] = 0; /* the stream is broken; the case fails anyway */
                continue;
            }
            /* the chance draft 1 had, from the rows the sampler saw */
            const int32_t x1 = w->drafts[(size_t)b * K];
            const double p1 = w->rows_target[b * tstride + (size_t)x1];
            const double q1 = c->draft_probs_given ? w->rows_draft[b * dstride + (size_t)x1] : 1.0;
            const double a = q1 > 0.0 ? fmin(1.0, p1 / q1) : 1.0;
            t->first_accepted += n >= 1;
            t->first_chance_fx += (uint64_t)llround(ldexp(a, 32));
            t->first_variance_fx += (uint64_t)llround(ldexp(a * (1.0 - a), 32));
            int32_t prev = w->states[b];
            for (int32_t k = 0; k <= n; k++) {
                t->transitions[(size_t)prev * V + y[k]]++;
                prev = y[k];
            }
            w->states[b] = prev;
            t->length[n]++;
            t->reached[0]++;
        }
        t->draws += (uint64_t)B;
        atomic_fetch_add(done, (uint64_t)B);
    }
    return SV_SAMPLER_OK;
}

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
    if (var > 0.0) {
        double z = ((double)t->first_accepted - chance) / sqrt(var);
        ev->length = (sv_gof){z * z, 1, gsl_cdf_chisq_Q(z * z, 1), 0};
        ev->length_verdict = sv_verdict_of(ev->length.p, split);
    } else if ((double)t->first_accepted != chance) { /* every a_i is 0 or 1: exact */
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
