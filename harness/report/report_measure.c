/* report_measure.c: `verify --measure`'s table: per case and position how
 * far the tokens are from p (TV and KL with their intervals, distance.c),
 * the acceptance per position against the chain rule's, and the tokens per
 * step gained. A lossy rule gets it in place of verdicts; a lossless rule
 * beside them (report_text.c). */
#include <math.h>
#include <string.h>
#include "sv_report.h"

/* alpha_k measured: of the steps given all K drafts that tested draft k, the
 * share that accepted it. NaN where none tested it. */
static double measured_alpha(const sv_run_eval *ev, int32_t k)
{
    uint64_t tested = 0, accepted = 0;
    for (int32_t n = k; n <= ev->K; n++)
        tested += ev->length_observed[n];
    for (int32_t n = k + 1; n <= ev->K; n++)
        accepted += ev->length_observed[n];
    return tested ? (double)accepted / (double)tested : NAN;
}

static void interval(char *buf, size_t len, double v, double lo, double hi)
{
    if (isnan(v))
        snprintf(buf, len, "-");
    else if (isinf(v))
        snprintf(buf, len, "inf (a token p never emits)");
    else
        snprintf(buf, len, "%.4f [%.4f, %.4f]", v, lo, hi);
}

void sv_report_distances(const sv_report *r, FILE *out)
{
    fprintf(out, "%s: each position's distance from p with %g%% intervals "
            "(TV's rests on bounds, KL's is Miller-Madow corrected; docs/statistics.md)\n\n",
            r->verdicts_dropped ? "measured, not judged" : "measured, beside the verdicts",
            100.0 * SV_MEASURE_LEVEL);
    fprintf(out, "%-34s %3s %10s  %-26s %-26s %9s %9s\n", "case", "pos", "N",
            "TV [interval]", "KL [interval]", "alpha", "chain's");
    for (size_t i = 0; i < r->n_cases; i++) {
        const sv_case_report *cr = &r->cases[i];
        const sv_run_eval *ev = &cr->runs[0];
        if (ev->chain) {
            fprintf(out, "%-34s %3s %10llu  a Markov pair: measured per position only on "
                    "fixed rows\n", cr->name, "seq", (unsigned long long)ev->draws);
            continue;
        }
        double E = 0.0, steps = 0.0, E_chain = 1.0, reach = 1.0;
        for (int32_t n = 0; n <= ev->K; n++) {
            E += (double)n * (double)ev->length_observed[n];
            steps += (double)ev->length_observed[n];
        }
        for (int32_t k = 0; k <= ev->K; k++) {
            const sv_position_eval *pe = &ev->pos[k];
            char tv[64], kl[64], a[16] = "", ac[16] = "";
            interval(tv, sizeof tv, pe->dist.tv, pe->dist.tv_lo, pe->dist.tv_hi);
            interval(kl, sizeof kl, pe->dist.kl, pe->dist.kl_lo, pe->dist.kl_hi);
            if (k < ev->K) {
                snprintf(a, sizeof a, "%.4f", measured_alpha(ev, k));
                snprintf(ac, sizeof ac, "%.4f", cr->alpha[k]);
                reach *= cr->alpha[k];
                E_chain += reach;
            }
            fprintf(out, "%-34s %3d %10llu  %-26s %-26s %9s %9s\n", k ? "" : cr->name, k + 1,
                    (unsigned long long)pe->N, tv, kl, a, ac);
        }
        if (steps > 0.0)
            fprintf(out, "%-34s tokens per step %.4f, the chain rule's %.4f (%+.1f%%)\n", "",
                    1.0 + E / steps, E_chain, 100.0 * ((1.0 + E / steps) / E_chain - 1.0));
    }
}

void sv_report_measure(const sv_report *r, FILE *out)
{
    sv_report_distances(r, out);
    for (size_t i = 0; i < r->n_cases; i++) /* what broke the contract still says so */
        for (int32_t f = 0; r->cases[i].runs[0].contract_verdict == SV_FAIL &&
                            f < r->cases[i].runs[0].n_findings; f++)
            fprintf(out, "FAIL    %s: %s\n", r->cases[i].name, r->cases[i].runs[0].findings[f]);
    fprintf(out, "\n%zu cases measured. %.3g M draws in %.1f s\n", r->n_cases,
            (double)r->total_draws / 1e6, r->seconds);
}
