/* case.c: a case's rows, their validation, and what follows from them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sv_cases.h"

sv_case *sv_case_alloc(int32_t K, int32_t V)
{
    sv_case *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->K = K;
    c->V = V;
    c->draft_probs_given = 1;
    c->target = calloc((size_t)(K + 1) * (size_t)V, sizeof(float));
    c->draft = calloc((size_t)(K > 0 ? K : 1) * (size_t)V, sizeof(float));
    if (!c->target || !c->draft) {
        sv_case_free(c);
        return NULL;
    }
    return c;
}

void sv_case_free(sv_case *c)
{
    if (!c)
        return;
    free(c->target);
    free(c->draft);
    free(c->draft_sampled);
    if (c->chain) {
        free(c->chain->P);
        free(c->chain->Q);
        free(c->chain->Qcum);
        free(c->chain);
    }
    free(c);
}

static int validate_row(const sv_case *c, const char *what, int32_t k, const float *row,
                        char *err, size_t errlen)
{
    double sum = 0.0;
    for (int32_t i = 0; i < c->V; i++) {
        float v = row[i];
        if (!isfinite(v) || v < 0.0f) {
            snprintf(err, errlen, "case %s, %s row %d, token %d: probability %g is %s", c->name,
                     what, k + 1, i, (double)v, isfinite(v) ? "negative" : "not finite");
            return -1;
        }
        sum += v;
    }
    if (sum == 0.0) {
        snprintf(err, errlen, "case %s, %s row %d: every probability is 0, so no token can "
                 "be drawn from it", c->name, what, k + 1);
        return -1;
    }
    if (fabs(sum - 1.0) > 1e-3) {
        snprintf(err, errlen, "case %s, %s row %d: row sums to %.6g, expected 1 +- 1e-3",
                 c->name, what, k + 1, sum);
        return -1;
    }
    return 0;
}

int sv_case_validate(const sv_case *c, char *err, size_t errlen)
{
    /* K is bounded by the sampler contract's SV_MAX_K = 16 */
    int bad_V = c->V < 2 || c->V > SV_MAX_V;
    if (bad_V || c->K < 1 || c->K > 16) {
        snprintf(err, errlen, "case %s: %s = %d is outside [%d, %d]%s", c->name,
                 bad_V ? "V" : "K", bad_V ? c->V : c->K, bad_V ? 2 : 1, bad_V ? SV_MAX_V : 16,
                 bad_V && c->V == 1 ? ": a single token leaves nothing to test"
                 : !bad_V && c->K == 0 ? ": no drafts, nothing to verify" : "");
        return -1;
    }
    for (int32_t s = 0; c->chain && s < c->V; s++) {
        if (validate_row(c, "target chain state", s, c->chain->P + (size_t)s * c->V, err,
                         errlen) != 0 ||
            validate_row(c, "draft chain state", s, c->chain->Q + (size_t)s * c->V, err,
                         errlen) != 0)
            return -1;
    }
    for (int32_t k = 0; k <= c->K; k++)
        if (validate_row(c, "target", k, c->target + (size_t)k * c->V, err, errlen) != 0)
            return -1;
    for (int32_t k = 0; k < c->K; k++)
        if (validate_row(c, "draft", k, c->draft + (size_t)k * c->V, err, errlen) != 0)
            return -1;
    return 0;
}

/* Sum of a row in double, for renormalizing float rows. */
static double row_sum(const float *row, int32_t V)
{
    double s = 0.0;
    for (int32_t i = 0; i < V; i++)
        s += row[i];
    return s;
}

void sv_case_target_dist(const sv_case *c, int32_t k, double *out)
{
    const float *p = c->target + (size_t)k * c->V;
    double s = row_sum(p, c->V);
    for (int32_t i = 0; i < c->V; i++)
        out[i] = p[i] / s;
}

/* Mass of "drafted x and accepted it", before dividing by alpha. */
static double accepted_weight(const sv_case *c, const double *p, const double *q, int32_t i)
{
    return c->draft_probs_given ? fmin(p[i], q[i]) : q[i] * p[i];
}

int sv_case_accepted_dist(const sv_case *c, int32_t k, double *out)
{
    const int32_t V = c->V;
    double *p = malloc(2 * (size_t)V * sizeof *p);
    if (!p)
        return -1;
    double *q = p + V;
    sv_case_target_dist(c, k, p);
    const float *qf = c->draft + (size_t)k * V;
    double qs = row_sum(qf, V);
    for (int32_t i = 0; i < V; i++)
        q[i] = qf[i] / qs;
    double alpha = 0.0;
    for (int32_t i = 0; i < V; i++) {
        out[i] = accepted_weight(c, p, q, i);
        alpha += out[i];
    }
    for (int32_t i = 0; i < V; i++)
        out[i] = alpha > 0.0 ? out[i] / alpha : 0.0;
    free(p);
    return 0;
}

double sv_case_alpha(const sv_case *c, int32_t k)
{
    const float *p = c->target + (size_t)k * c->V;
    const float *q = c->draft + (size_t)k * c->V;
    double ps = row_sum(p, c->V), qs = row_sum(q, c->V), alpha = 0.0;
    for (int32_t i = 0; i < c->V; i++) {
        double pi = p[i] / ps, qi = q[i] / qs;
        alpha += c->draft_probs_given ? fmin(pi, qi) : qi * pi;
    }
    return alpha;
}

void sv_chain_step_rows(const sv_case *c, int32_t state, const int32_t *drafts, float *target,
                        float *draft)
{
    const size_t V = (size_t)c->V;
    for (int32_t k = 0; k <= c->K; k++) {
        int32_t from = k == 0 ? state : drafts[k - 1];
        memcpy(target + (size_t)k * V, c->chain->P + (size_t)from * V, V * sizeof(float));
        if (k < c->K)
            memcpy(draft + (size_t)k * V, c->chain->Q + (size_t)from * V, V * sizeof(float));
    }
}
