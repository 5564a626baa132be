/* sweep_tables.c: a sweep's results as Markdown: tokens per step and the
 * speedup per cost ratio c, the acceptance per position against its
 * interval, the best K per (T, c), and with a batch axis the speedup with
 * the sampler's own time in it. */
#include <math.h>
#include <stdio.h>
#include "sv_base.h"
#include "sv_sweep.h"

/* A temperature for the tables: "-" when the sweep has no T axis. */
static const char *T_text(double T, char *buf, size_t len)
{
    if (isnan(T))
        return "-";
    snprintf(buf, len, "%g", T);
    return buf;
}

static int agrees(const sv_sweep_point *p, int32_t k)
{
    return p->analytic[k] >= p->measured[k].lo - 1e-12 &&
           p->analytic[k] <= p->measured[k].hi + 1e-12;
}

/* The speedup with the sampler's time in it, at point i and batch size B. */
double sv_sweep_batched(const sv_sweep_setup *set, const sv_sweep_point *p, int32_t B, double c,
                      double *sampler_us)
{
    double s = NAN;
    if (sv_batch_cost_sampler_us(&set->cost, B, p->K, &s) != SV_OK) /* checked when parsed */
        s = NAN;
    if (sampler_us)
        *sampler_us = s;
    return sv_speedup_batched(p->tokens_analytic, p->K, c, s, sv_batch_cost_target_us(&set->cost, B));
}

/* Per (T, K, B): the two times and the speedup per c; then the best K per
 * (T, c, B), "none" where no K beats plain decoding. */
static void batched_tables(FILE *f, const sv_sweep_setup *set, const sv_sweep_point *pts, size_t n)
{
    char tb[32];
    fprintf(f, "\nBatched speedup E / (K c + 1 + s(B) / t(B)); s: %s; t: %g + %g B us\n\n",
            set->cost.source, set->cost.target_us[0], set->cost.target_us[1]);
    fprintf(f, "| T | K | B | t(B) us | s(B) us |");
    for (int j = 0; j < set->n_c; j++)
        fprintf(f, " speedup c=%g |", set->c[j]);
    fprintf(f, "\n|---:|---:|---:|---:|---:|");
    for (int j = 0; j < set->n_c; j++)
        fprintf(f, "---:|");
    fprintf(f, "\n");
    for (size_t i = 0; i < n; i++)
        for (int b = 0; b < set->n_B; b++) {
            double s;
            sv_sweep_batched(set, &pts[i], set->B[b], 0.0, &s);
            fprintf(f, "| %s | %d | %d | %.4g | %.4g |", T_text(pts[i].T, tb, sizeof tb),
                    pts[i].K, set->B[b], sv_batch_cost_target_us(&set->cost, set->B[b]), s);
            for (int j = 0; j < set->n_c; j++)
                fprintf(f, " %.3f |", sv_sweep_batched(set, &pts[i], set->B[b], set->c[j], NULL));
            fprintf(f, "\n");
        }
    fprintf(f, "\n| T | c | B | best K | speedup |\n|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < n;) {
        size_t end = i;
        while (end < n && sv_same_T(pts[end].T, pts[i].T))
            end++;
        for (int j = 0; j < set->n_c; j++)
            for (int b = 0; b < set->n_B; b++) {
                size_t best = i;
                for (size_t m = i; m < end; m++)
                    if (sv_sweep_batched(set, &pts[m], set->B[b], set->c[j], NULL) >
                        sv_sweep_batched(set, &pts[best], set->B[b], set->c[j], NULL))
                        best = m;
                double sp = sv_sweep_batched(set, &pts[best], set->B[b], set->c[j], NULL);
                if (sp > 1.0)
                    fprintf(f, "| %s | %g | %d | %d | %.3f |\n", T_text(pts[i].T, tb, sizeof tb),
                            set->c[j], set->B[b], pts[best].K, sp);
                else
                    fprintf(f, "| %s | %g | %d | none | %.3f |\n",
                            T_text(pts[i].T, tb, sizeof tb), set->c[j], set->B[b], sp);
            }
        i = end;
    }
}

void sv_sweep_tables(FILE *f, const sv_sweep_setup *set, const sv_sweep_point *pts, size_t n)
{
    char tb[32];
    const int block = set->run.rule == SV_RULE_BLOCK || set->run.rule == SV_RULE_TYPICAL ||
                      sv_rule_is_tree(set->run.rule);
    if (block)
        fprintf(f, "Sampler %s verifies by %s, which has no closed form here: \"analytic\" is "
                "the chain rule's on the same rows (and the speedups and best K with it), "
                "\"measured\" its own.%s\n\n", set->run.sampler,
                set->run.rule == SV_RULE_BLOCK     ? "blocks"
                : set->run.rule == SV_RULE_TYPICAL ? "typical acceptance (lossy)"
                                                   : "a tree of drafts",
                sv_rule_is_tree(set->run.rule)
                    ? " K is the tree's depth; a step's drafts cost K c (one draft pass a "
                      "depth, as EAGLE drafts a level at a time), and acceptance at k is "
                      "P(n > k | n >= k) of the depth n."
                    : "");
    fprintf(f, "| T | K | E analytic | E measured | %g%% interval |", 100.0 * set->run.level);
    for (int j = 0; j < set->n_c; j++)
        fprintf(f, " speedup c=%g |", set->c[j]);
    fprintf(f, "\n|---:|---:|---:|---:|---|");
    for (int j = 0; j < set->n_c; j++)
        fprintf(f, "---:|");
    fprintf(f, "\n");
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "| %s | %d | %.4f | %.4f | [%.4f, %.4f] |", T_text(pts[i].T, tb, sizeof tb),
                pts[i].K, pts[i].tokens_analytic, pts[i].tokens_measured, pts[i].tokens_lo,
                pts[i].tokens_hi);
        for (int j = 0; j < set->n_c; j++)
            fprintf(f, " %.3f |", sv_speedup(pts[i].tokens_analytic, pts[i].K, set->c[j]));
        fprintf(f, "\n");
    }
    fprintf(f, "\n| T | K | position | alpha analytic | alpha measured | %g%% interval | agree |\n",
            100.0 * set->run.level);
    fprintf(f, "|---:|---:|---:|---:|---:|---|---|\n");
    for (size_t i = 0; i < n; i++)
        for (int32_t k = 0; k < pts[i].K; k++) {
            const sv_proportion *m = &pts[i].measured[k];
            fprintf(f, "| %s | %d | %d | %.5f |", T_text(pts[i].T, tb, sizeof tb), pts[i].K, k + 1,
                    pts[i].analytic[k]);
            if (m->trials == 0) /* no draw got this far: nothing measured */
                fprintf(f, " n/a | - | - |\n");
            else
                fprintf(f, " %.5f | [%.5f, %.5f] | %s |\n", m->value, m->lo, m->hi,
                        block ? "-" : agrees(&pts[i], k) ? "yes" : "NO");
        }
    if (set->run.rule == SV_RULE_TYPICAL) { /* lossy: how far, beside how fast */
        fprintf(f, "\n| T | K | position | TV | %g%% interval | KL | %g%% interval |\n",
                100.0 * set->run.level, 100.0 * set->run.level);
        fprintf(f, "|---:|---:|---:|---:|---|---:|---|\n");
        for (size_t i = 0; i < n; i++)
            for (int32_t k = 0; k <= pts[i].K; k++) {
                const sv_distance *d = &pts[i].dist[k];
                fprintf(f, "| %s | %d | %d |", T_text(pts[i].T, tb, sizeof tb), pts[i].K, k + 1);
                if (isnan(d->tv) || isinf(d->kl))
                    fprintf(f, " - | - | - | - |\n");
                else
                    fprintf(f, " %.4f | [%.4f, %.4f] | %.4f | [%.4f, %.4f] |\n", d->tv, d->tv_lo,
                            d->tv_hi, d->kl, d->kl_lo, d->kl_hi);
            }
    }
    /* best K for each (T, c), by the analytic speedup */
    fprintf(f, "\n| T | c | best K | speedup |\n|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < n;) {
        size_t end = i;
        while (end < n && sv_same_T(pts[end].T, pts[i].T))
            end++;
        for (int j = 0; j < set->n_c; j++) {
            size_t best = i;
            for (size_t m = i; m < end; m++)
                if (sv_speedup(pts[m].tokens_analytic, pts[m].K, set->c[j]) >
                    sv_speedup(pts[best].tokens_analytic, pts[best].K, set->c[j]))
                    best = m;
            fprintf(f, "| %s | %g | %d | %.3f |\n", T_text(pts[i].T, tb, sizeof tb), set->c[j],
                    pts[best].K,
                    sv_speedup(pts[best].tokens_analytic, pts[best].K, set->c[j]));
        }
        i = end;
    }
    if (set->n_B > 0)
        batched_tables(f, set, pts, n);
}
