/* predict.c: the output distribution of each broken variant, in closed form,
 * so the harness can say before sampling how likely it is to catch it.
 *
 * One verification position with target p, drafting distribution q: a draft
 * x ~ q is accepted with probability A(x), else the token is drawn from a
 * residual R. The emitted token is distributed as
 *     out = sum_x q(x) A(x) e_x + (1 - alpha') R,  alpha' = sum_x q(x) A(x).
 * Correct: A = min(1, p/q), R = max(p - q, 0) / (1 - alpha), out = p.
 * Each variant changes A or R (see its file in samplers/broken/). The
 * predictions here cover cases with draft probs; a one-hot drafter makes R
 * depend on x and is left unpredicted. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sv_stats.h"
#include "sv_half.h"
#include "row_argmax.h"
#include "sv_bf16.h"

typedef struct rows {
    int32_t V;
    const float *pf, *qf;   /* the case's float rows, as the sampler sees them */
    double *p, *q, *A, *R;  /* normalized p and q; acceptance; residual weights */
} rows;

static double accept_correct(double p, double q) { return q > 0 ? fmin(1.0, p / q) : (p > 0); }

/* out = sum q A e_x + (1 - alpha') R / sum R; returns alpha' */
static double combine(const rows *w, double *out)
{
    double alpha = 0.0, rsum = 0.0;
    for (int32_t i = 0; i < w->V; i++) {
        alpha += w->q[i] * w->A[i];
        rsum += w->R[i];
    }
    for (int32_t i = 0; i < w->V; i++)
        out[i] = w->q[i] * w->A[i] + (rsum > 0 ? (1.0 - alpha) * w->R[i] / rsum : 0.0);
    return alpha;
}

static void residual_correct(rows *w)
{
    for (int32_t i = 0; i < w->V; i++)
        w->R[i] = fmax(w->p[i] - w->q[i], 0.0);
}

static void accept_all_correct(rows *w)
{
    for (int32_t i = 0; i < w->V; i++)
        w->A[i] = accept_correct(w->p[i], w->q[i]);
}

/* ---- one function per variant: fill A and R, or compute out directly ---- */

static double resample_from_p(rows *w, double *out)
{
    accept_all_correct(w);
    memcpy(w->R, w->p, (size_t)w->V * sizeof *w->R);
    return combine(w, out);
}

static double residual_unnormalized(rows *w, double *out)
{
    accept_all_correct(w);
    residual_correct(w);
    double alpha = 0.0, s = 0.0;
    int32_t last = -1;
    for (int32_t i = 0; i < w->V; i++) {
        alpha += w->q[i] * w->A[i];
        s += w->R[i];
        if (w->R[i] > 0)
            last = i;
    }
    /* u is not scaled by the residual's sum s: token i takes mass w_i of the
     * (1 - alpha) rejections, the last positive one also the 1 - s beyond */
    for (int32_t i = 0; i < w->V; i++)
        out[i] = w->q[i] * w->A[i] + (1.0 - alpha) * w->R[i];
    if (last >= 0)
        out[last] += (1.0 - alpha) * (1.0 - s);
    return alpha;
}

static double residual_swapped(rows *w, double *out)
{
    accept_all_correct(w);
    for (int32_t i = 0; i < w->V; i++)
        w->R[i] = fmax(w->q[i] - w->p[i], 0.0);
    return combine(w, out);
}

static double ratio_inverted(rows *w, double *out)
{
    for (int32_t i = 0; i < w->V; i++) /* accepted iff u p < q */
        w->A[i] = w->p[i] > 0 ? fmin(1.0, w->q[i] / w->p[i]) : (w->q[i] > 0);
    residual_correct(w);
    return combine(w, out);
}

static double residual_epsilon_floor(rows *w, double *out)
{
    accept_all_correct(w);
    for (int32_t i = 0; i < w->V; i++)
        w->R[i] = fmax(w->p[i] - w->q[i], 1e-6);
    return combine(w, out);
}

static double draft_temperature_mismatch(rows *w, double *out)
{
    double s = 0.0;
    for (int32_t i = 0; i < w->V; i++)
        s += sqrt(w->q[i]);
    for (int32_t i = 0; i < w->V; i++) {
        double q2 = sqrt(w->q[i]) / s; /* the q' the kernel believes in */
        w->A[i] = accept_correct(w->p[i], q2);
        w->R[i] = fmax(w->p[i] - q2, 0.0);
    }
    return combine(w, out);
}

static double float16_ratio(rows *w, double *out)
{
    for (int32_t i = 0; i < w->V; i++) {
        float hp = sv_half_round(w->pf[i]), hq = sv_half_round(w->qf[i]);
        double ratio = hq > 0.0f ? (double)sv_half_round(hp / hq) : (hp > 0.0f ? INFINITY : 0.0);
        w->A[i] = fmin(1.0, ratio);
    }
    residual_correct(w);
    return combine(w, out);
}

/* Drafts drawn from another law d than the q the ratio and the residual
 * use (samplers that draw their own drafts): out = sum_x d(x) A(x) e_x +
 * (1 - alpha') R, A and R the correct ones for q. */
static double drafts_from(rows *w, double *out, const double *d)
{
    accept_all_correct(w);
    residual_correct(w);
    memcpy(w->q, d, (size_t)w->V * sizeof *w->q); /* combine weighs by the drafts' law */
    return combine(w, out);
}

static double drafts_bf16(rows *w, double *out)
{
    double *d = malloc((size_t)w->V * sizeof *d), s = 0.0;
    if (!d)
        return -1.0; /* out of memory */
    for (int32_t i = 0; i < w->V; i++)
        s += d[i] = sv_bf16_to_float(sv_bf16_from_float(w->qf[i]));
    for (int32_t i = 0; i < w->V; i++)
        d[i] = s > 0.0 ? d[i] / s : 0.0;
    double alpha = drafts_from(w, out, d);
    free(d);
    return alpha;
}

static double drafts_argmax(rows *w, double *out)
{
    double *d = calloc((size_t)w->V, sizeof *d);
    if (!d)
        return -1.0; /* out of memory */
    d[sv_row_argmax(w->qf, w->V)] = 1.0;
    double alpha = drafts_from(w, out, d);
    free(d);
    return alpha;
}

typedef struct ranked_threshold {
    double rho, q;
} ranked_threshold;

static int by_rho(const void *a, const void *b)
{
    double x = ((const ranked_threshold *)a)->rho, y = ((const ranked_threshold *)b)->rho;
    return (x > y) - (x < y);
}

/* The rejected draft's uniform u is reused: given x, a rejection means u is
 * uniform on [rho_x, 1), rho_x = min(1, p/q), and the inverse CDF then picks
 * token i when C_{i-1} <= u < C_i. So the residual part of out(i) is
 * G(C_i) - G(C_{i-1}) with G(t) = sum_x q(x) max(0, t - rho_x). */
static double uniform_reused(rows *w, double *out)
{
    accept_all_correct(w);
    residual_correct(w);
    const int32_t V = w->V;
    ranked_threshold *t = malloc((size_t)V * sizeof *t);
    if (!t)
        return -1.0;
    double alpha = 0.0, s = 0.0;
    for (int32_t i = 0; i < V; i++) {
        t[i] = (ranked_threshold){w->A[i], w->q[i]};
        alpha += w->q[i] * w->A[i];
        s += w->R[i];
    }
    qsort(t, (size_t)V, sizeof *t, by_rho);
    /* walk the CDF points C_i (increasing) and the thresholds together */
    double c_prev = 0.0, g_prev = 0.0, q_below = 0.0, qrho_below = 0.0;
    int32_t j = 0;
    for (int32_t i = 0; i < V; i++) {
        double c = c_prev + (s > 0 ? w->R[i] / s : 0.0);
        if (i == V - 1 || c > 1.0)
            c = 1.0;
        while (j < V && t[j].rho < c) {
            q_below += t[j].q;
            qrho_below += t[j].q * t[j].rho;
            j++;
        }
        double g = c * q_below - qrho_below;
        out[i] = w->q[i] * w->A[i] + (g - g_prev);
        c_prev = c;
        g_prev = g;
    }
    free(t);
    return alpha;
}

/* The float32-truncated race's draw from weights w (race_float32_truncated.c),
 * in place: a token of probability pi = w_i / sum(w) wins with probability
 * pi a / sinh(a), a = 2^-24 / pi (its exponential takes only the values
 * (2j - 1) 2^-24 near 0, each with probability 2^-23, against the rest's
 * Exp(1) time); what the tiny tokens lose goes to the rest in proportion. */
static void truncated_race(double *w, int32_t V)
{
    double sum = 0.0, kept = 0.0;
    for (int32_t i = 0; i < V; i++)
        sum += w[i];
    if (!(sum > 0.0))
        return;
    for (int32_t i = 0; i < V; i++) {
        if (w[i] > 0.0) {
            const double a = 0x1p-24 * sum / w[i];
            w[i] *= a / sinh(a); /* 0 once sinh overflows */
        }
        kept += w[i];
    }
    for (int32_t i = 0; i < V; i++)
        w[i] *= sum / kept;
}

static double race_float32_truncated(rows *w, double *out)
{
    accept_all_correct(w);
    residual_correct(w);
    truncated_race(w->R, w->V);
    return combine(w, out);
}

/* exact match against the target's argmax at draft positions: the draft is
 * kept only when it is the argmax a, and a mismatch emits a, so every draft
 * position emits a (a point mass), reached with chance q(a) per position */
static double exact_match_argmax(rows *w, double *out)
{
    const int32_t a = sv_row_argmax(w->pf, w->V);
    for (int32_t i = 0; i < w->V; i++) {
        w->A[i] = i == a;
        w->R[i] = i == a;
    }
    return combine(w, out);
}

/* ---- variants whose error joins the positions: the whole step at once ---- */

/* Exact match with one uniform u for every position: y_j = F_j^{-1}(u) (the
 * smallest token whose CDF exceeds u). Position m is reached when the
 * drafts x_j (independent, of law q_j) equal y_j for every j < m, so, u
 * being uniform,
 *     P(reach m, y_m = t) = integral over {u: F_m^{-1}(u) = t} of
 *                           prod_{j<m} q_j(F_j^{-1}(u)) du,
 * a sum over the cells between the CDF points of rows 0..K, where every
 * F_j^{-1} is constant: one walk through them, every row's CDF in step. */
static int exact_shared_sample(const sv_case *c, sv_prediction *pr)
{
    const int32_t V = c->V, K = c->K, R = K + 1;
    double *cdf = calloc((size_t)R * V, sizeof *cdf), *q = calloc((size_t)K * V + 1, sizeof *q);
    int32_t *at = calloc((size_t)R, sizeof *at);
    if (!cdf || !q || !at) {
        free(cdf), free(q), free(at);
        return sv_fail(SV_EENV, "out of memory predicting exact_match_shared_sample");
    }
    for (int32_t j = 0; j < R; j++) {
        double *row = cdf + (size_t)j * V, acc = 0.0;
        sv_case_target_dist(c, j, row);
        for (int32_t i = 0; i < V; i++)
            row[i] = acc += row[i];
        row[V - 1] = 1.0; /* the last cell closes at 1 whatever the rounding */
    }
    /* the drafts' own law, as verify gives an exact-match sampler (sv_case_as_one_hot) */
    const float *drafts = c->draft_sampled ? c->draft_sampled : c->draft;
    for (int32_t j = 0; j < K; j++) {
        const float *qf = drafts + (size_t)j * V;
        double qs = 0.0;
        for (int32_t i = 0; i < V; i++)
            qs += qf[i];
        for (int32_t i = 0; i < V; i++)
            q[(size_t)j * V + i] = qs > 0.0 ? qf[i] / qs : 0.0;
    }
    memset(pr->out, 0, (size_t)R * V * sizeof *pr->out);
    double reach[SV_MAX_K + 1] = {0}, u = 0.0;
    while (u < 1.0) {
        double next = 1.0;
        for (int32_t j = 0; j < R; j++) { /* row j's token at u: its CDF passes u there */
            while (at[j] < V - 1 && cdf[(size_t)j * V + at[j]] <= u)
                at[j]++;
            next = fmin(next, cdf[(size_t)j * V + at[j]]);
        }
        double weight = next - u; /* the cell [u, next), then the drafts that match it */
        for (int32_t m = 0; m < R && weight > 0.0; m++) {
            pr->out[(size_t)m * V + at[m]] += weight;
            reach[m] += weight;
            if (m < K)
                weight *= q[(size_t)m * V + at[m]];
        }
        u = next;
    }
    for (int32_t m = 0; m < R; m++) {
        for (int32_t i = 0; reach[m] > 0.0 && i < V; i++)
            pr->out[(size_t)m * V + i] /= reach[m];
        pr->reach[m] = reach[m];
        if (m < K)
            pr->accept[m] = reach[m] > 0.0 ? reach[m + 1] / reach[m] : 0.0;
    }
    free(cdf), free(q), free(at);
    return SV_OK;
}

/* ---- the table ------------------------------------------------------------- */

typedef double position_fn(rows *w, double *out);

typedef struct model {
    const char *variant;
    position_fn *position; /* NULL: positions 1..K are right */
    int bonus_from_row_K;  /* the bonus is drawn from p_K, not p_{K+1} */
    int (*step)(const sv_case *c, sv_prediction *pr); /* or the whole step at once */
} model;

static const model models[] = {
    {"resample_from_p", resample_from_p, 0, NULL},
    {"residual_unnormalized", residual_unnormalized, 0, NULL},
    {"residual_swapped", residual_swapped, 0, NULL},
    {"ratio_inverted", ratio_inverted, 0, NULL},
    {"bonus_wrong_row", NULL, 1, NULL},
    {"residual_epsilon_floor", residual_epsilon_floor, 0, NULL},
    {"uniform_reused", uniform_reused, 0, NULL},
    {"draft_temperature_mismatch", draft_temperature_mismatch, 0, NULL},
    {"float16_ratio", float16_ratio, 0, NULL},
    {"race_float32_truncated", race_float32_truncated, 0, NULL},
    {"exact_match_argmax", exact_match_argmax, 0, NULL},
    {"exact_match_shared_sample", NULL, 0, exact_shared_sample},
    {"drafts_bf16", drafts_bf16, 0, NULL},
    {"drafts_argmax", drafts_argmax, 0, NULL},
};

/* Variants whose bonus draw is wrong too: what they make of the bonus row. */
typedef struct bonus_model {
    const char *variant;
    void (*draw)(double *dist, int32_t V); /* in place */
} bonus_model;
static const bonus_model bonus_models[] = {{"race_float32_truncated", truncated_race}};

/* Variants the contract check catches when an event happens (sv_predict_event). */
static const char *const event_variants[] = {"counts_off_by_one", "no_chain_stop",
                                             "accept_zero_target", "oov_float_rounding",
                                             "tree_cdf_boundary"};

int sv_predict_known(const char *variant)
{
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
        if (strcmp(models[i].variant, variant) == 0)
            return 1;
    for (size_t i = 0; i < sizeof event_variants / sizeof event_variants[0]; i++)
        if (strcmp(event_variants[i], variant) == 0)
            return 1;
    return 0;
}

int sv_predict(const char *variant, const sv_case *c, sv_prediction *pr)
{
    const model *m = NULL;
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
        if (strcmp(models[i].variant, variant) == 0)
            m = &models[i];
    memset(pr, 0, sizeof *pr);
    pr->K = c->K;
    pr->V = c->V;
    if (!m || (!c->draft_probs_given && m->position))
        return 1; /* no closed form here */
    const int32_t V = c->V, K = c->K;
    pr->out = malloc((size_t)(K + 1) * (size_t)V * sizeof *pr->out);
    if (m->step) {
        int rc = pr->out ? m->step(c, pr) : sv_fail(SV_EENV, "out of memory predicting %s", variant);
        if (rc != SV_OK)
            sv_prediction_free(pr);
        return rc;
    }
    double *scratch = malloc(4 * (size_t)V * sizeof *scratch);
    if (!pr->out || !scratch) {
        free(scratch);
        sv_prediction_free(pr);
        return sv_fail(SV_EENV, "out of memory predicting %s on %s", variant, c->name);
    }
    rows w = {V, NULL, NULL, scratch, scratch + V, scratch + 2 * (size_t)V, scratch + 3 * (size_t)V};
    double reach = 1.0;
    for (int32_t k = 0; k <= K; k++) {
        double *out = pr->out + (size_t)k * V;
        pr->reach[k] = reach;
        if (k == K) {
            sv_case_target_dist(c, m->bonus_from_row_K ? K - 1 : K, out);
            for (size_t b = 0; b < sizeof bonus_models / sizeof bonus_models[0]; b++)
                if (strcmp(bonus_models[b].variant, variant) == 0)
                    bonus_models[b].draw(out, V);
            break;
        }
        sv_case_target_dist(c, k, w.p);
        const float *qf = c->draft + (size_t)k * V;
        double qs = 0.0;
        for (int32_t i = 0; i < V; i++)
            qs += qf[i];
        for (int32_t i = 0; i < V; i++)
            w.q[i] = qf[i] / qs;
        w.pf = c->target + (size_t)k * V;
        w.qf = qf;
        double alpha;
        if (m->position) {
            alpha = m->position(&w, out);
            if (alpha < 0) {
                free(scratch);
                sv_prediction_free(pr);
                return sv_fail(SV_EENV, "out of memory predicting %s", variant);
            }
        } else {
            memcpy(out, w.p, (size_t)V * sizeof *out);
            alpha = sv_case_alpha(c, k);
        }
        pr->accept[k] = alpha;
        reach *= alpha;
    }
    free(scratch);
    return SV_OK;
}

void sv_prediction_free(sv_prediction *pr)
{
    free(pr->out);
    pr->out = NULL;
}

/* ---- variants caught by the contract check: the chance per draw ------------ */

/* The float32 running sum of max(p - q, 0) (q NULL: p) to its end, as
 * oov_float_rounding sums it (a token below half the sum's spacing is lost
 * whole), and the weights' sum in double (*sum). */
static float float_running_sum(const float *p, const float *q, int32_t V, double *sum)
{
    float c = 0.0f;
    *sum = 0.0;
    for (int32_t i = 0; i < V; i++) {
        float w = q ? p[i] - q[i] : p[i];
        w = w > 0.0f ? w : 0.0f;
        c += w;
        *sum += w;
    }
    return c;
}

/* oov_float_rounding emits V when its target, u for the bonus row and u * sum
 * for a residual, lands past the float running sum: a chance of what the sum
 * lost. A one-hot drafter's residual is p without the draft x, short by what
 * p is short: its rejections, 1 - alpha of the draws, fire (1 - c) / (1 - alpha)
 * of the time. */
static double oov_chance(const sv_case *c)
{
    double reach = 1.0, chance = 0.0, sum;
    for (int32_t k = 0; k <= c->K; k++) {
        const float *p = c->target + (size_t)k * c->V;
        const double short_p = fmax(0.0, 1.0 - float_running_sum(p, NULL, c->V, &sum));
        if (k == c->K)
            return chance + reach * short_p;
        const double alpha = sv_case_alpha(c, k);
        if (!c->draft_probs_given) {
            chance += reach * short_p;
        } else {
            const float cw = float_running_sum(p, c->draft + (size_t)k * c->V, c->V, &sum);
            chance += reach * (1.0 - alpha) * (sum > 0.0 ? fmax(0.0, 1.0 - cw / sum) : short_p);
        }
        reach *= alpha;
    }
    return chance;
}

double sv_predict_event(const char *variant, const sv_case *c)
{
    if (strcmp(variant, "oov_float_rounding") == 0)
        return oov_chance(c);
    double all_accepted = 1.0;
    for (int32_t k = 0; k < c->K; k++)
        all_accepted *= sv_case_alpha(c, k);
    if (strcmp(variant, "counts_off_by_one") == 0)
        return all_accepted; /* n = K + 1 is reported only then */
    if (strcmp(variant, "no_chain_stop") == 0)
        return 1.0 - all_accepted; /* then tokens stand where -1 belongs */
    if (strcmp(variant, "accept_zero_target") == 0) {
        /* a float32 uniform is exactly 0 once in 2^24 tests; it matters when
         * the draft has p = 0 */
        double reach = 1.0, chance = 0.0;
        for (int32_t k = 0; k < c->K; k++) {
            const float *p = c->target + (size_t)k * c->V, *q = c->draft + (size_t)k * c->V;
            double q_on_zero = 0.0, qs = 0.0;
            for (int32_t i = 0; i < c->V; i++) {
                qs += q[i];
                if (p[i] == 0.0f)
                    q_on_zero += q[i];
            }
            chance += reach * q_on_zero / qs / 16777216.0;
            reach *= sv_case_alpha(c, k);
        }
        return chance;
    }
    if (strcmp(variant, "tree_cdf_boundary") == 0) {
        /* the root's float32 coin is exactly 0 once in 2^24 steps; it matters
         * when the first child (a draw from q_1) has p_1 = 0. Deeper nodes
         * add chances of their own, so this is at least the step's chance
         * (exactly it where no draft has mass under p, as on binary:p=0) */
        const float *p = c->target, *q = c->draft;
        double q_on_zero = 0.0, qs = 0.0;
        for (int32_t i = 0; i < c->V; i++) {
            qs += q[i];
            if (p[i] == 0.0f)
                q_on_zero += q[i];
        }
        return q_on_zero / qs / 16777216.0;
    }
    return -1.0;
}
