/* budget_print.c: what `verify --budget` buys, said before the run: how
 * much of the suite's sizing it keeps, the cases' min-det, each case's draws
 * against the suite's, and the power of each case built for a rare bug
 * against that bug. A TV of 1 or more is no detection at all: said so. */
#include <math.h>
#include <string.h>
#include "budget.h"

/* 0.71, or 1 - 2e-07 near 1: power in words that keep its digits. */
static void power_words(double power, char *out, size_t len)
{
    if (!isfinite(power))
        snprintf(out, len, "-");
    else if (power > 0.999)
        snprintf(out, len, "1 - %.2g", 1.0 - power);
    else
        snprintf(out, len, "%.3f", power);
}

/* "0.0123", or "nothing detectable" where min-det reaches 1 */
static const char *tv_words(double tv, char *out, size_t len)
{
    if (!isfinite(tv))
        snprintf(out, len, "-");
    else if (tv >= 1.0)
        snprintf(out, len, "nothing detectable");
    else
        snprintf(out, len, "%.4g", tv);
    return out;
}

static const char *short_name(const char *spec, char *out, size_t len)
{
    size_t n = strcspn(spec, ":");
    snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), spec);
    return out;
}

void sv_budget_print(const sv_budget *b, const sv_budget_case *cs, size_t n,
                     double probe_seconds, FILE *out)
{
    char pw[32], cap_pw[32], name[64], lo[32], hi[32];
    double cap_lo = INFINITY, cap_hi = 0.0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(cs[i].cap_min_det)) {
            cap_lo = fmin(cap_lo, cs[i].cap_min_det);
            cap_hi = fmax(cap_hi, cs[i].cap_min_det);
        }
    fprintf(out, "budget: in %g s: each case at %.3g%% or more of the suite's draws", b->seconds,
            100.0 * b->share);
    if (isfinite(cap_lo))
        fprintf(out, "; min-det TV %s to %s (the suite's sizing: %.4g to %.4g; at position 1, "
                "with probability >= 1 - %.2g)", tv_words(b->fewest_min_det, lo, sizeof lo),
                tv_words(b->min_det, hi, sizeof hi), cap_lo, cap_hi, b->split);
    for (size_t i = 0; i < n; i++)
        if (isfinite(cs[i].power)) {
            power_words(cs[i].power, pw, sizeof pw);
            power_words(cs[i].cap_power, cap_pw, sizeof cap_pw);
            fprintf(out, "; %s's %s power %s (%s at the suite's draws)",
                    short_name(cs[i].spec, name, sizeof name), cs[i].why, pw, cap_pw);
        }
    fprintf(out, "\n");
    fprintf(out, "budget: the run takes %.1f s at the probes' rates, %.2f s of it the "
            "sampler's start-up (the probes took %.1f s more, not counted)", b->run_seconds,
            b->start_up, probe_seconds);
    if (b->rerun && n) {
        fprintf(out, ", %.1f s kept for one SUSPECT re-run (%s at %dx its draws", b->reserve_seconds,
                cs[b->reserve_for].spec, SV_RERUN_FACTOR);
        if (b->rerun_seconds > b->reserve_seconds) { /* the reserve is at most a fifth */
            const sv_budget_case *c = &cs[b->reserve_for];
            const uint64_t again = sv_budget_rerun_draws(b, c);
            fprintf(out, ", %.1f s; so a re-run of it is cut to %llu draws, %.2gx", b->rerun_seconds,
                    (unsigned long long)again, (double)again / (double)c->draws);
        }
        fprintf(out, ")");
    }
    fprintf(out, "\n\n%-34s %12s %12s %12s %9s %9s %9s\n", "case", "draws", "cap",
            "draws/s", "seconds", "min-det", "at cap");
    size_t cut = 0;
    double worst_cap = 0.0;
    for (size_t i = 0; i < n; i++) {
        const sv_budget_case *c = &cs[i];
        cut += c->draws < c->cap;
        if (isfinite(c->cap_min_det))
            worst_cap = fmax(worst_cap, c->cap_min_det);
        char md[16] = "seq", cmd[16] = "seq"; /* a Markov pair: transitions, no TV */
        if (isfinite(c->min_det)) {
            snprintf(md, sizeof md, "%.4f", c->min_det); /* the report's, unclamped */
            snprintf(cmd, sizeof cmd, "%.4f", c->cap_min_det);
        }
        if (isinf(c->cost.rate)) { /* not given to the sampler (own_drafts.c) */
            fprintf(out, "%-34.34s %12s left out: the sampler draws its own drafts, the "
                    "case has no draft rows\n", c->spec, "-");
            continue;
        }
        fprintf(out, "%-34.34s %12llu %12llu %12.4g %9.1f %9s %9s\n", c->spec,
                (unsigned long long)c->draws, (unsigned long long)c->cap, c->cost.rate,
                c->seconds, md, cmd);
    }
    for (size_t i = 0; i < n; i++)
        if (isfinite(cs[i].power)) {
            power_words(cs[i].power, pw, sizeof pw);
            power_words(cs[i].cap_power, cap_pw, sizeof cap_pw);
            fprintf(out, "%s, built for %s: power %s at %llu draws (%s at the cap's %llu)\n",
                    cs[i].spec, cs[i].why, pw, (unsigned long long)cs[i].draws, cap_pw,
                    (unsigned long long)cs[i].cap);
        }
    if (cut)
        fprintf(out, "budget: buys less than the cap on %zu of %zu cases: min-det at most %.3g "
                "times the suite's sizing (the worst %s against %.4g at the caps)\n", cut, n,
                b->ratio, tv_words(b->min_det, hi, sizeof hi), worst_cap);
    else
        fprintf(out, "budget: every case at its cap (more draws would exceed what the suite "
                "was sized for; --draws N raises the cap): %.1f s of the %g\n",
                b->run_seconds + b->reserve_seconds, b->seconds);
    fprintf(out, "\n");
}
