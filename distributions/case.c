/* case.c: a case's rows, their validation, and what follows from them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sv_cases.h"
#include "sv_bf16.h"

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
    free(c->logits);
    free(c->input_logits);
    if (c->chain) {
        free(c->chain->P);
        free(c->chain->Q);
        free(c->chain->Qcum);
        free(c->chain);
    }
    free(c);
}

int sv_case_keep_logits(sv_case *c, const sv_sampling *s)
{
    c->logits = calloc((2 * (size_t)c->K + 1) * (size_t)c->V, sizeof *c->logits);
    c->sampling = *s;
    return c->logits ? 0 : -1;
}

int sv_case_use_logits(sv_case *c, int32_t input, char *err, size_t errlen)
{
    if (input != 1 && input != 2) {
        snprintf(err, errlen, "case %s: input mode %d is not a logits mode", c->name, input);
        return -1;
    }
    if (!c->logits) {
        snprintf(err, errlen, "case %s has no logits for logits input: %s", c->name,
                 c->no_logits ? c->no_logits
                              : "it is not made from logits (use the logits or onehot "
                                "families, or a recording)");
        return -1;
    }
    const size_t rows = (2 * (size_t)c->K + 1), V = (size_t)c->V;
    const int bf16 = input == 2;
    free(c->input_logits);
    c->input_logits = malloc(rows * V * (bf16 ? sizeof(uint16_t) : sizeof(float)));
    double *rounded = malloc(rows * V * sizeof *rounded);
    if (!c->input_logits || !rounded) {
        free(rounded);
        snprintf(err, errlen, "case %s: out of memory for %zu logits rows", c->name, rows);
        return -1;
    }
    for (size_t j = 0; j < rows * V; j++) {
        const float f = (float)c->logits[j];
        if (bf16) {
            uint16_t b = sv_bf16_from_float(f);
            ((uint16_t *)c->input_logits)[j] = b;
            rounded[j] = sv_bf16_to_float(b);
        } else {
            ((float *)c->input_logits)[j] = f;
            rounded[j] = f;
        }
        if (isnan(rounded[j]) || rounded[j] == INFINITY) { /* -inf: a masked token, p = 0 */
            snprintf(err, errlen, "case %s, logits row %zu, token %zu: %g is %s as %s", c->name,
                     j / V + 1, j % V, c->logits[j], isnan(rounded[j]) ? "NaN" : "+inf",
                     bf16 ? "bfloat16" : "float");
            free(rounded);
            return -1;
        }
    }
    int rc = 0;
    for (int32_t k = 0; k <= c->K && rc == 0; k++)
        rc = sv_logits_to_probs(rounded + (size_t)k * V, c->V, &c->sampling,
                                c->target + (size_t)k * V);
    for (int32_t k = 0; k < c->K && rc == 0; k++)
        rc = sv_logits_to_probs(rounded + ((size_t)c->K + 1 + (size_t)k) * V, c->V, &c->sampling,
                                c->draft + (size_t)k * V);
    free(rounded);
    if (rc != 0) {
        snprintf(err, errlen, "case %s: out of memory in the sampling pipeline", c->name);
        return -1;
    }
    c->input = input;
    return sv_case_validate(c, err, errlen);
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

void sv_case_as_one_hot(sv_case *c)
{
    c->draft_probs_given = 0;
    if (c->draft_sampled) { /* the drafts' own law is what exact match meets */
        free(c->draft);
        c->draft = c->draft_sampled;
        c->draft_sampled = NULL;
    }
}

/* sum_x min(p(x), q(x)), or sum_x q(x) p(x) (one_hot), of rows p and q
 * normalised */
static double alpha_of(const float *p, const float *q, int32_t V, int one_hot)
{
    double ps = row_sum(p, V), qs = row_sum(q, V), alpha = 0.0;
    for (int32_t i = 0; i < V; i++) {
        double pi = p[i] / ps, qi = q[i] / qs;
        alpha += one_hot ? qi * pi : fmin(pi, qi);
    }
    return alpha > 1.0 ? 1.0 : alpha; /* p = q sums to 1 + 2^-52 at times: a chance */
}

double sv_case_alpha(const sv_case *c, int32_t k)
{
    return alpha_of(c->target + (size_t)k * c->V, c->draft + (size_t)k * c->V, c->V,
                    !c->draft_probs_given);
}

double sv_case_alpha_exact_match(const sv_case *c, int32_t k)
{
    const float *q = c->draft_sampled ? c->draft_sampled : c->draft;
    return alpha_of(c->target + (size_t)k * c->V, q + (size_t)k * c->V, c->V, 1);
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
