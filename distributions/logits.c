/* logits.c: logits -> probabilities: temperature, top-k, top-p.
 *
 * The order and the tie rules are the contract a logits-input kernel must
 * follow to imply the same p and q (docs/design.md: the CPU twin of the logits
 * mode): tokens are ranked by logit, larger first, the lower index first on
 * ties; T = 0 is greedy (one-hot at the first-ranked token); otherwise
 * top-k keeps the first k ranked tokens, the softmax of logit / T is taken
 * over them, and top-p keeps the shortest ranked prefix whose mass reaches
 * top_p (the token that crosses it is kept), renormalized. */
#include <math.h>
#include <stdlib.h>
#include "sv_cases.h"

void sv_softmax(const double *logits, int32_t V, double T, float *p)
{
    int32_t best = 0;
    for (int32_t i = 1; i < V; i++)
        if (logits[i] > logits[best]) /* strict: the lowest index wins ties */
            best = i;
    if (T == 0.0) {
        for (int32_t i = 0; i < V; i++)
            p[i] = (i == best) ? 1.0f : 0.0f;
        return;
    }
    double sum = 0.0;
    for (int32_t i = 0; i < V; i++)
        sum += exp((logits[i] - logits[best]) / T);
    for (int32_t i = 0; i < V; i++)
        p[i] = (float)(exp((logits[i] - logits[best]) / T) / sum);
}

typedef struct ranked {
    double logit;
    int32_t index;
} ranked;

/* Larger logit first; the lower index first on ties: a total order, so the
 * result does not depend on the sort algorithm. */
static int by_rank(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->logit != y->logit)
        return x->logit > y->logit ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

int sv_logits_to_probs(const double *logits, int32_t V, const sv_sampling *s, float *p)
{
    const int top_k = s->top_k > 0 && s->top_k < V;
    const int top_p = s->top_p < 1.0;
    if (s->T == 0.0 || (!top_k && !top_p)) {
        sv_softmax(logits, V, s->T, p); /* nothing is cut: the plain softmax */
        return 0;
    }
    ranked *r = malloc((size_t)V * sizeof *r);
    double *w = malloc((size_t)V * sizeof *w);
    if (!r || !w) {
        free(r);
        free(w);
        return -1;
    }
    for (int32_t i = 0; i < V; i++)
        r[i] = (ranked){logits[i], i};
    qsort(r, (size_t)V, sizeof *r, by_rank);

    int32_t kept = top_k ? s->top_k : V;
    double sum = 0.0;
    for (int32_t j = 0; j < kept; j++) {
        w[j] = exp((r[j].logit - r[0].logit) / s->T);
        sum += w[j];
    }
    if (top_p) {
        double mass = 0.0, cut_sum = 0.0;
        int32_t j = 0;
        while (j < kept) {
            mass += w[j] / sum;
            cut_sum += w[j];
            j++;
            if (mass >= s->top_p)
                break;
        }
        kept = j;
        sum = cut_sum;
    }
    for (int32_t i = 0; i < V; i++)
        p[i] = 0.0f;
    for (int32_t j = 0; j < kept; j++)
        p[r[j].index] = (float)(w[j] / sum);
    free(r);
    free(w);
    return 0;
}
