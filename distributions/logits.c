/* logits.c: logits -> probabilities (temperature; T = 0 is greedy). */
#include <math.h>
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
