/* sweep_rules.c: `sweep --sampler A,B,...`'s side-by-side table: tokens per
 * step of each sampler at every (T, K), measured, with the analytic value
 * where its rule has one (chain: sum min(p, q); exact match: sum p q; block
 * and typical acceptance: none), and each against the first sampler's.
 * Measured numbers carry their interval at the run's level: E's from its
 * accepted lengths (sv_mean_tokens_interval), the ratio's by the delta
 * method, relative half-widths added in quadrature: the samplers' draws
 * are taken as independent, which overstates the width where a shared seed
 * makes them move together. */
#include <math.h>
#include <stdio.h>
#include "sv_base.h"
#include "sv_store.h"
#include "sv_sweep.h"

/* The point of pts[0..n) at (T, K), or NULL. */
static const sv_sweep_point *find(const sv_sweep_point *pts, size_t n, double T, int32_t K)
{
    for (size_t i = 0; i < n; i++)
        if (sv_same_T(pts[i].T, T) && pts[i].K == K)
            return &pts[i];
    return NULL;
}

static int analytic(const sv_sampler *s)
{
    return s->rule == SV_RULE_CHAIN || s->rule == SV_RULE_EXACT_MATCH;
}

/* r = a / b and its interval from the two half-widths. */
static void ratio(const sv_sweep_point *a, const sv_sweep_point *b, double *r, double *lo,
                  double *hi)
{
    const double ha = (a->tokens_hi - a->tokens_lo) / 2.0, hb = (b->tokens_hi - b->tokens_lo) / 2.0;
    const double rel = sqrt(ha * ha / (a->tokens_measured * a->tokens_measured) +
                            hb * hb / (b->tokens_measured * b->tokens_measured));
    *r = a->tokens_measured / b->tokens_measured;
    *lo = *r * (1.0 - rel);
    *hi = *r * (1.0 + rel);
}

static void table(FILE *f, const sv_sampler *const *samplers, const sv_sweep_point *const *pts,
                  const size_t *n, int m)
{
    fprintf(f, "| T | K |");
    for (int s = 0; s < m; s++)
        fprintf(f, " %s (%s) E measured [interval] | analytic |%s", samplers[s]->name,
                sv_rule_name(samplers[s]->rule), s ? " vs first [interval] |" : "");
    fprintf(f, "\n|---:|---:|");
    for (int s = 0; s < m; s++)
        fprintf(f, "---:|---:|%s", s ? "---:|" : "");
    fprintf(f, "\n");
    for (size_t i = 0; i < n[0]; i++) {
        const sv_sweep_point *first = &pts[0][i];
        char tb[32] = "-";
        if (!isnan(first->T))
            snprintf(tb, sizeof tb, "%g", first->T);
        fprintf(f, "| %s | %d |", tb, first->K);
        for (int s = 0; s < m; s++) {
            const sv_sweep_point *p = find(pts[s], n[s], first->T, first->K);
            if (!p) {
                fprintf(f, " - | - |%s", s ? " - |" : "");
                continue;
            }
            fprintf(f, " %.4f [%.4f, %.4f] |", p->tokens_measured, p->tokens_lo, p->tokens_hi);
            if (analytic(samplers[s]))
                fprintf(f, " %.4f |", p->tokens_analytic);
            else
                fprintf(f, " - |");
            if (s) {
                double r, lo, hi;
                ratio(p, first, &r, &lo, &hi);
                fprintf(f, " %.3fx [%.3f, %.3f] |", r, lo, hi);
            }
        }
        fprintf(f, "\n");
    }
}

int sv_sweep_rules(FILE *out, const char *dir, const sv_sampler *const *samplers,
                   const sv_sweep_point *const *pts, const size_t *n, int m, const char *spec,
                   uint64_t draws, uint64_t seed)
{
    fprintf(out, "\n## tokens per step, side by side\n\n");
    table(out, samplers, pts, n, m);
    if (!dir)
        return SV_OK;
    char path[4096];
    snprintf(path, sizeof path, "%s/rules.md", dir);
    sv_atomic_file f;
    int rc = sv_atomic_open(&f, path);
    if (rc != SV_OK)
        return rc;
    fprintf(f.fp, "# specverify sweep: %s, tokens per step by sampler, %llu draws per point, "
            "seed %llu\n\n", spec, (unsigned long long)draws, (unsigned long long)seed);
    fprintf(f.fp, "Each sampler's own sweep (tables, sweep.h5, plots) is in the folder of its "
            "name. Analytic: the chain rule's sum of min(p, q), exact match's sum of p q; "
            "block verification, typical acceptance and trees have no closed form here. A "
            "tree sampler's K is its tree's depth (the tree cut to K), its sweep named with "
            "its shape in its own folder.\n\n");
    table(f.fp, samplers, pts, n, m);
    rc = sv_atomic_commit(&f);
    if (rc == SV_OK)
        fprintf(stderr, "wrote %s\n", path);
    return rc;
}
