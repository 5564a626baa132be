/* bench_inputs.c: benchmark inputs with a chosen acceptance rate, and the
 * byte floor of a step.
 *
 * One row set is drawn (target and draft rows: softmax of 2 z, z standard
 * normal, the draft mixed half-and-half with the target so they overlap as
 * real models do), the draft token of position k is the mode of q_k, and
 * p_k there is set to accept * q_k(x_k) with the rest of p_k rescaled, so
 * draft k is accepted with probability exactly `accept`. Every sequence
 * gets its own copy of the rows, so the device reads B distinct row sets.
 * The logits modes take the log of these rows (T = 1 gives them back). */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sv_bench.h"
#include "sv_base.h"
#include "sv_cases.h"
#include "sv_bf16.h"
#include "row_argmax.h"

static void softmax_row(gsl_rng *r, float *row, int32_t V)
{
    double sum = 0.0;
    for (int32_t i = 0; i < V; i++) {
        row[i] = (float)exp(2.0 * gsl_ran_gaussian_ziggurat(r, 1.0));
        sum += row[i];
    }
    for (int32_t i = 0; i < V; i++)
        row[i] = (float)(row[i] / sum);
}

int sv_bench_input_make(sv_bench_input *in, int32_t B, int32_t K, int32_t V, double accept)
{
    memset(in, 0, sizeof *in);
    if (B < 1 || K < 1 || V < 2)
        return sv_fail(SV_EBAD, "bench: B=%d, K=%d, V=%d: need B >= 1, K >= 1, V >= 2", B, K, V);
    in->B = B, in->K = K, in->V = V, in->accept = accept;
    const size_t tset = (size_t)(K + 1) * V, dset = (size_t)K * V;
    in->target = malloc((size_t)B * tset * sizeof(float));
    in->draft = malloc((size_t)B * dset * sizeof(float));
    in->draft_tokens = malloc((size_t)B * (size_t)K * sizeof(int32_t));
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!in->target || !in->draft || !in->draft_tokens || !r) {
        gsl_rng_free(r);
        sv_bench_input_free(in);
        return sv_fail(SV_EENV, "bench: out of host memory for B=%d, K=%d, V=%d (%.3g GB)", B, K,
                       V, (double)B * (double)(tset + dset) * 4e-9);
    }
    gsl_rng_set(r, 20261122);

    float *p = in->target, *q = in->draft, *mix = malloc((size_t)V * sizeof(float));
    if (!mix) {
        gsl_rng_free(r);
        sv_bench_input_free(in);
        return sv_fail(SV_EENV, "bench: out of host memory for one row of %d", V);
    }
    for (int32_t k = 0; k <= K; k++)
        softmax_row(r, p + (size_t)k * V, V);
    for (int32_t k = 0; k < K; k++) {
        float *pk = p + (size_t)k * V, *qk = q + (size_t)k * V;
        softmax_row(r, mix, V);
        for (int32_t i = 0; i < V; i++)
            qk[i] = 0.5f * (pk[i] + mix[i]);
        int32_t x = sv_row_argmax(qk, V);
        double want = accept * qk[x], rest = 1.0 - pk[x];
        double scale = rest > 0.0 ? (1.0 - want) / rest : 0.0;
        for (int32_t i = 0; i < V; i++)
            pk[i] = (float)(pk[i] * scale);
        pk[x] = (float)want;
        in->draft_tokens[k] = x;
    }
    free(mix);
    gsl_rng_free(r);
    for (int32_t b = 1; b < B; b++) {
        memcpy(p + (size_t)b * tset, p, tset * sizeof(float));
        memcpy(q + (size_t)b * dset, q, dset * sizeof(float));
        memcpy(in->draft_tokens + (size_t)b * K, in->draft_tokens, (size_t)K * sizeof(int32_t));
    }
    return SV_OK;
}

void sv_bench_input_free(sv_bench_input *in)
{
    free(in->target);
    free(in->draft);
    free(in->draft_tokens);
    free(in->target_logits);
    free(in->draft_logits);
    memset(in, 0, sizeof *in);
}

int sv_bench_value_bytes(int input)
{
    return (int)sv_input_value_bytes(input);
}

/* n logits log(rows[i]) as mode `input` into a new array; NULL: no memory. */
static void *logits_of(const float *rows, size_t n, int input)
{
    const size_t bytes = (size_t)sv_bench_value_bytes(input);
    void *out = malloc(n * bytes);
    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        float l = logf(rows[i]); /* p = 0 (an acceptance rate of 0): -inf, weight 0 */
        if (input == SV_INPUT_LOGITS_BF16)
            ((uint16_t *)out)[i] = sv_bf16_from_float(l);
        else
            ((float *)out)[i] = l;
    }
    return out;
}

int sv_bench_input_logits(sv_bench_input *in, int input, double T, int32_t top_k, double top_p)
{
    if (input != SV_INPUT_LOGITS_F32 && input != SV_INPUT_LOGITS_BF16)
        return sv_fail(SV_EBAD, "bench: input mode %d is not a logits mode", input);
    if (!in->target || !in->draft)
        return sv_fail(SV_EBAD, "bench: the input has no probability rows to take logits of");
    const size_t tn = (size_t)in->B * (size_t)(in->K + 1) * (size_t)in->V,
                 dn = (size_t)in->B * (size_t)in->K * (size_t)in->V;
    void *t = logits_of(in->target, tn, input), *d = t ? logits_of(in->draft, dn, input) : NULL;
    if (!t || !d) {
        free(t);
        free(d);
        return sv_fail(SV_EENV, "bench: out of host memory for the logits of B=%d, K=%d, V=%d",
                       in->B, in->K, in->V);
    }
    free(in->target);
    free(in->draft);
    in->target = in->draft = NULL;
    in->target_logits = t;
    in->draft_logits = d;
    in->input = input;
    in->T = T;
    in->top_k = top_k;
    in->top_p = top_p;
    return SV_OK;
}

double sv_bench_floor_bytes(int32_t B, int32_t K, int32_t V, const int32_t *accepted)
{
    double bytes = 0.0;
    for (int32_t b = 0; b < B; b++) {
        int32_t n = accepted[b], tested = n < K ? n + 1 : K;
        bytes += 2.0 * 4.0 * tested;              /* p_k(x_k), q_k(x_k) */
        bytes += (n < K ? 2.0 : 1.0) * 4.0 * V;   /* residual pair, or the bonus row */
        bytes += 4.0 * K + 4.0 * (K + 1) + 4.0;   /* drafts in; tokens and count out */
    }
    return bytes;
}

double sv_bench_floor_bytes_logits(int32_t B, int32_t K, int32_t V, int value_bytes)
{
    double rows = (double)B * (2.0 * K + 1.0) * (double)V * value_bytes; /* every row once */
    return rows + (double)B * (4.0 * K + 4.0 * (K + 1) + 4.0);          /* drafts, outputs */
}

double sv_bench_accept_rate(int32_t B, int32_t K, const int32_t *accepted)
{
    double acc = 0.0, tested = 0.0;
    for (int32_t b = 0; b < B; b++) {
        acc += accepted[b];
        tested += accepted[b] < K ? accepted[b] + 1 : K;
    }
    return tested > 0.0 ? acc / tested : NAN;
}

int64_t sv_bench_cold_copies(double read_bytes, double l2_bytes)
{
    double others = ceil(2.0 * l2_bytes / fmax(read_bytes, 1.0)); /* the copies between */
    return others + 1.0 > SV_BENCH_MAX_COPIES ? SV_BENCH_MAX_COPIES
           : others < 1.0                     ? 2
                                              : (int64_t)others + 1;
}

int sv_bench_input_recorded(sv_bench_input *in, int32_t B, int32_t K, const char *spec,
                            int64_t steps, int input)
{
    memset(in, 0, sizeof *in);
    char err[2048], step[2048];
    sv_case *c = NULL;
    /* the first step gives V; every step shares it */
    snprintf(step, sizeof step, "%s,K=%d,step=0", spec, K);
    if (sv_case_from_spec(step, &c, err, sizeof err) != 0)
        return sv_fail(SV_EBAD, "bench --recorded: %s", err);
    const int32_t V = c->V;
    sv_case_free(c);
    const int logits = input != SV_INPUT_PROBS;
    const size_t value = logits ? (size_t)sv_bench_value_bytes(input) : sizeof(float);
    in->B = B, in->K = K, in->V = V, in->accept = NAN; /* the recording's own */
    in->input = input, in->T = 1.0, in->top_p = 1.0;
    const size_t tset = (size_t)(K + 1) * V, dset = (size_t)K * V;
    void *t = malloc((size_t)B * tset * value), *d = malloc((size_t)B * dset * value);
    if (logits)
        in->target_logits = t, in->draft_logits = d;
    else
        in->target = t, in->draft = d;
    in->draft_tokens = malloc((size_t)B * K * sizeof(int32_t));
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    double *w = malloc((size_t)V * sizeof *w);
    if (!t || !d || !in->draft_tokens || !r || !w) {
        gsl_rng_free(r);
        free(w);
        sv_bench_input_free(in);
        return sv_fail(SV_EENV, "bench: out of host memory for B=%d, K=%d, V=%d (%.3g GB)", B, K,
                       V, (double)B * (double)(tset + dset) * (double)value * 1e-9);
    }
    gsl_rng_set(r, 20261123);
    int rc = SV_OK;
    /* sequence b holds step b mod steps, built once; drafts drawn from its q */
    for (int64_t s = 0; rc == SV_OK && s < steps && s < B; s++) {
        snprintf(step, sizeof step, "%s,K=%d,step=%lld", spec, K, (long long)s);
        if (sv_case_from_spec(step, &c, err, sizeof err) != 0 ||
            (logits && sv_case_use_logits(c, input, err, sizeof err) != 0)) {
            sv_case_free(c);
            rc = sv_fail(SV_EBAD, "bench --recorded: %s", err);
            break;
        }
        if (logits) /* the rule the sampler applies; the same for every step */
            in->T = c->sampling.T, in->top_k = c->sampling.top_k, in->top_p = c->sampling.top_p;
        /* the rows: target's then draft's, probabilities or the rounded logits */
        const char *rows_t = logits ? (const char *)c->input_logits : (const char *)c->target;
        const char *rows_d = logits ? rows_t + tset * value : (const char *)c->draft;
        gsl_ran_discrete_t *table[SV_MAX_K] = {0}; /* once per step, not per sequence */
        for (int32_t k = 0; k < K; k++) {
            for (int32_t i = 0; i < V; i++)
                w[i] = c->draft[(size_t)k * V + i];
            table[k] = gsl_ran_discrete_preproc((size_t)V, w);
        }
        for (int32_t b = (int32_t)s; b < B; b += (int32_t)(steps < B ? steps : B)) {
            memcpy((char *)t + (size_t)b * tset * value, rows_t, tset * value);
            memcpy((char *)d + (size_t)b * dset * value, rows_d, dset * value);
            for (int32_t k = 0; k < K; k++)
                in->draft_tokens[(size_t)b * K + k] =
                    table[k] ? (int32_t)gsl_ran_discrete(r, table[k]) : 0;
        }
        for (int32_t k = 0; k < K; k++)
            if (table[k])
                gsl_ran_discrete_free(table[k]);
        sv_case_free(c);
    }
    free(w);
    gsl_rng_free(r);
    if (rc != SV_OK)
        sv_bench_input_free(in);
    return rc;
}
