/* families.c: synthetic p/q families. Each position k gets its own rows,
 * drawn from a GSL generator seeded by (seed, k), so cases are the same on
 * every machine and every run. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include "families.h"

enum { V_, K_, SEED_ }; /* every family's first three values */

#define COMMON(v, k)                                                              \
    {"V", v, 2, SV_MAX_V, 1, "vocabulary size"},                                  \
    {"K", k, 1, 16, 1, "drafts per step"},                                        \
    {"seed", 1, 0, 4294967295.0, 1, "seed of the case's random rows"}

/* top-k and top-p of the logits families: values 7 and 8 */
#define CUTS                                                                      \
    {"topk", 0, 0, SV_MAX_V, SV_WHOLE | SV_UPTO_V,                                \
     "keep the k most likely tokens, target and drafter (0: all)"},               \
    {"topp", 1, 0.001, 1, 0, "keep the most likely tokens of mass >= topp, both (1: all)"}

static gsl_rng *position_rng(const double *v, int32_t k)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (r)
        gsl_rng_set(r, (unsigned long)v[SEED_] * 1000003ul + (unsigned long)k * 7919ul + 17ul);
    return r;
}

static float *target_row(sv_case *c, int32_t k) { return c->target + (size_t)k * c->V; }
static float *draft_row(sv_case *c, int32_t k) { return c->draft + (size_t)k * c->V; }

static void gaussian_logits(gsl_rng *r, double sigma, double *out, int32_t V)
{
    for (int32_t i = 0; i < V; i++)
        out[i] = gsl_ran_gaussian(r, sigma);
}

/* Runs fill(c, k, r, values, scratch) for every position with a fresh rng and
 * scratch space for 2V doubles. Allocation failures leave rows zero, which
 * sv_case_validate reports. */
typedef void fill_fn(sv_case *c, int32_t k, gsl_rng *r, const double *v, double *scratch);

static void each_position(sv_case *c, const double *v, fill_fn *fill)
{
    double *scratch = malloc(2 * (size_t)c->V * sizeof *scratch);
    for (int32_t k = 0; k <= c->K && scratch; k++) {
        gsl_rng *r = position_rng(v, k);
        if (!r)
            break;
        fill(c, k, r, v, scratch);
        gsl_rng_free(r);
    }
    free(scratch);
}

/* ---- seedlab: skewed (log-normal) target, uniform drafter ---------------- */
static void seedlab_fill(sv_case *c, int32_t k, gsl_rng *r, const double *v, double *l)
{
    gaussian_logits(r, v[3], l, c->V);
    sv_softmax(l, c->V, 1.0, target_row(c, k));
    if (k < c->K)
        for (int32_t i = 0; i < c->V; i++)
            draft_row(c, k)[i] = 1.0f / (float)c->V;
}
static void seedlab_build(sv_case *c, const double *v) { each_position(c, v, seedlab_fill); }

/* ---- identical: p = q ------------------------------------------------------ */
static void identical_fill(sv_case *c, int32_t k, gsl_rng *r, const double *v, double *l)
{
    gaussian_logits(r, v[3], l, c->V);
    sv_softmax(l, c->V, 1.0, target_row(c, k));
    if (k < c->K)
        memcpy(draft_row(c, k), target_row(c, k), (size_t)c->V * sizeof(float));
}
static void identical_build(sv_case *c, const double *v) { each_position(c, v, identical_fill); }

/* ---- disjoint: p on even tokens, q on odd ones; nothing is ever accepted --- */
static void disjoint_fill(sv_case *c, int32_t k, gsl_rng *r, const double *v, double *l)
{
    double *m = l + c->V;
    gaussian_logits(r, v[3], l, c->V);
    gaussian_logits(r, v[3], m, c->V);
    for (int32_t i = 0; i < c->V; i++) {
        l[i] = (i % 2 == 0) ? l[i] : -INFINITY;
        m[i] = (i % 2 == 1) ? m[i] : -INFINITY;
    }
    sv_softmax(l, c->V, 1.0, target_row(c, k));
    if (k < c->K)
        sv_softmax(m, c->V, 1.0, draft_row(c, k));
}
static void disjoint_build(sv_case *c, const double *v) { each_position(c, v, disjoint_fill); }

/* ---- zipf: Zipf(s) target, Zipf(s2) drafter over the same random ranking --- */
static void zipf_fill(sv_case *c, int32_t k, gsl_rng *r, const double *v, double *l)
{
    double *m = l + c->V;
    int32_t *rank = malloc((size_t)c->V * sizeof *rank);
    if (!rank)
        return;
    for (int32_t i = 0; i < c->V; i++)
        rank[i] = i;
    gsl_ran_shuffle(r, rank, (size_t)c->V, sizeof *rank);
    for (int32_t i = 0; i < c->V; i++) {
        l[rank[i]] = -v[3] * log(i + 1.0); /* log of (rank+1)^-s */
        m[rank[i]] = -v[4] * log(i + 1.0);
    }
    free(rank);
    sv_softmax(l, c->V, 1.0, target_row(c, k));
    if (k < c->K)
        sv_softmax(m, c->V, 1.0, draft_row(c, k));
}
static void zipf_build(sv_case *c, const double *v) { each_position(c, v, zipf_fill); }

/* ---- logits at temperature: target L/T, drafter (L + noise)/T2 -------------- */
/* values: 3 sigma, 4 noise, 5 T (target), 6 T of the drafter (< 0: same as T),
 * 7 top-k and 8 top-p, applied to target and drafter alike */
static void logits_fill(sv_case *c, int32_t k, gsl_rng *r, const double *v, double *l)
{
    double *m = l + c->V;
    gaussian_logits(r, v[3], l, c->V);
    for (int32_t i = 0; i < c->V; i++)
        m[i] = l[i] + gsl_ran_gaussian(r, v[4]);
    sv_sampling target = {v[5], (int32_t)v[7], v[8]}, drafter = target;
    drafter.T = v[6] < 0 ? v[5] : v[6];
    /* out of memory leaves the row zero, which sv_case_validate reports */
    (void)sv_logits_to_probs(l, c->V, &target, target_row(c, k));
    if (k < c->K)
        (void)sv_logits_to_probs(m, c->V, &drafter, draft_row(c, k));
    if (c->logits) { /* for logits input: target rows, then draft rows */
        memcpy(c->logits + (size_t)k * c->V, l, (size_t)c->V * sizeof *l);
        if (k < c->K)
            memcpy(c->logits + ((size_t)c->K + 1 + (size_t)k) * c->V, m,
                   (size_t)c->V * sizeof *m);
    }
}
/* Keeps the logits when target and drafter share one sampling rule, which
 * is all a logits-input sampler is told. Out of memory: no logits, said so. */
static void keep_logits(sv_case *c, const double *v)
{
    const sv_sampling rule = {v[5], (int32_t)v[7], v[8]};
    if (v[6] >= 0 && v[6] != v[5])
        c->no_logits = "its drafter samples at T2, not T, and logits input gives one "
                       "temperature for both";
    else if (sv_case_keep_logits(c, &rule) != 0)
        c->no_logits = "out of memory for its logits";
}
static void logits_build(sv_case *c, const double *v)
{
    keep_logits(c, v);
    each_position(c, v, logits_fill);
}
static void onehot_build(sv_case *c, const double *v)
{
    keep_logits(c, v);
    each_position(c, v, logits_fill);
    c->draft_probs_given = 0;
}

/* ---- tail: a head of H tokens, the rest share `tailmass` (most below 1e-7) -- */
/* values: 3 head, 4 tailmass; the drafter is half uniform, half the target */
static void tail_fill(sv_case *c, int32_t k, gsl_rng *r, const double *v, double *w)
{
    const int32_t V = c->V, head = (int32_t)v[3]; /* below V: spec.c */
    double head_sum = 0.0, tail_sum = 0.0;
    for (int32_t i = 0; i < V; i++) {
        w[i] = i < head ? exp(gsl_ran_gaussian(r, 1.0)) : gsl_ran_exponential(r, 1.0);
        if (i < head)
            head_sum += w[i];
        else
            tail_sum += w[i];
    }
    float *p = target_row(c, k);
    for (int32_t i = 0; i < V; i++)
        p[i] = (float)(i < head ? (1.0 - v[4]) * w[i] / head_sum : v[4] * w[i] / tail_sum);
    if (k < c->K)
        for (int32_t i = 0; i < V; i++)
            draft_row(c, k)[i] = (float)(0.5 / V + 0.5 * p[i]);
}
static void tail_build(sv_case *c, const double *v) { each_position(c, v, tail_fill); }

/* ---- cumshort, tinytail: tokens too small for float32, at the end of the vocabulary --
 * values: 3 head, 4 tokenp, and cumshort's 5 lead. Tokens head..V-1 get
 * tokenp each, the head the rest by log-normal weights. Added to a float32
 * sum past 1/2, whose spacing is 2^-24, a token below 2^-25 is rounded away
 * whole: a row's float32 cumulative sum stops short of 1 by the tail's
 * mass, (V - head) tokenp, with the last token of positive mass at V - 1.
 * tinytail: the drafter knows the head only (a reduced draft vocabulary),
 * so the bonus row carries the tail. cumshort: token 0 holds lead >= 1/2
 * and the drafter spreads evenly over tokens 1..head-1, so every residual
 * row starts with token 0's lead and falls short as the bonus row does. */
static void tiny_tail_fill(sv_case *c, int32_t k, gsl_rng *r, const double *v, double lead,
                           double *w)
{
    const int32_t V = c->V, head = (int32_t)v[3], first = lead > 0.0; /* head < V: spec.c */
    const double tail = (V - head) * v[4];
    double sum = 0.0;
    for (int32_t i = first; i < head; i++)
        sum += w[i] = exp(gsl_ran_gaussian(r, 1.0));
    float *p = target_row(c, k);
    if (first)
        p[0] = (float)lead;
    for (int32_t i = first; i < head; i++)
        p[i] = (float)((1.0 - lead - tail) * w[i] / sum);
    for (int32_t i = head; i < V; i++)
        p[i] = (float)v[4];
    if (k == c->K)
        return;
    float *q = draft_row(c, k);
    for (int32_t i = 0; i < head; i++)
        q[i] = first ? (i > 0 ? (float)(1.0 / (head - 1)) : 0.0f) : (float)(w[i] / sum);
}
static void tinytail_fill(sv_case *c, int32_t k, gsl_rng *r, const double *v, double *w)
{
    tiny_tail_fill(c, k, r, v, 0.0, w);
}
static void tinytail_build(sv_case *c, const double *v) { each_position(c, v, tinytail_fill); }
static void cumshort_fill(sv_case *c, int32_t k, gsl_rng *r, const double *v, double *w)
{
    tiny_tail_fill(c, k, r, v, v[5], w);
}
static void cumshort_build(sv_case *c, const double *v) { each_position(c, v, cumshort_fill); }

/* ---- binary: two tokens, exact probabilities -------------------------------
 * values: 3 p, 4 q. Every position has target (p, 1 - p) and drafter (q, 1 - q).
 * The cheapest case there is per draw: the power formula sizes rounding bugs
 * (float16_ratio, accept_zero_target) on it. */
static void binary_build(sv_case *c, const double *v)
{
    for (int32_t k = 0; k <= c->K; k++) {
        target_row(c, k)[0] = (float)v[3];
        target_row(c, k)[1] = (float)(1.0 - v[3]);
        if (k < c->K) {
            draft_row(c, k)[0] = (float)v[4];
            draft_row(c, k)[1] = (float)(1.0 - v[4]);
        }
    }
}

/* ---- markov: target and draft Markov chains over V states ------------------ */
/* values: 3 sigma, 4 eps (the drafter's perturbation), 5 T, 6 streams,
 * 7 support. Row s of the target is softmax(L_s / T), of the drafter
 * softmax((L_s + eps Z_s) / T). With support S > 0 the target row keeps only
 * its S largest logits (the rest get p = 0, as after top-k), while the
 * drafter keeps full support: drafts then often name impossible tokens. */
static void markov_build(sv_case *c, const double *v)
{
    const int32_t V = c->V;
    sv_chain *ch = calloc(1, sizeof *ch);
    double *l = malloc(3 * (size_t)V * sizeof *l);
    gsl_rng *r = position_rng(v, 0);
    if (ch) {
        ch->P = malloc((size_t)V * (size_t)V * sizeof *ch->P);
        ch->Q = malloc((size_t)V * (size_t)V * sizeof *ch->Q);
        ch->Qcum = malloc((size_t)V * (size_t)V * sizeof *ch->Qcum);
        ch->streams = (int32_t)v[6];
    }
    if (!ch || !ch->P || !ch->Q || !ch->Qcum || !l || !r) {
        if (ch) {
            free(ch->P);
            free(ch->Q);
            free(ch->Qcum);
        }
        free(ch);
        free(l);
        if (r)
            gsl_rng_free(r);
        return; /* the rows stay zero: validation reports it */
    }
    double *m = l + V, *sorted = l + 2 * (size_t)V;
    for (int32_t s = 0; s < V; s++) {
        gaussian_logits(r, v[3], l, V);
        for (int32_t i = 0; i < V; i++)
            m[i] = l[i] + gsl_ran_gaussian(r, v[4]);
        if (v[7] > 0 && v[7] < V) { /* top-S of the target: the S-th largest is the cut */
            memcpy(sorted, l, (size_t)V * sizeof *sorted);
            gsl_sort(sorted, 1, (size_t)V);
            double cut = sorted[V - (int32_t)v[7]];
            for (int32_t i = 0; i < V; i++)
                if (l[i] < cut)
                    l[i] = -INFINITY;
        }
        sv_softmax(l, V, v[5], ch->P + (size_t)s * V);
        sv_softmax(m, V, v[5], ch->Q + (size_t)s * V);
        double cum = 0.0;
        for (int32_t i = 0; i < V; i++) {
            cum += ch->Q[(size_t)s * V + i];
            ch->Qcum[(size_t)s * V + i] = cum;
        }
    }
    free(l);
    gsl_rng_free(r);
    c->chain = ch;
    /* the fixed rows: the first step of a stream from state 0 along its argmax path */
    int32_t path[16], state = 0; /* K <= 16 */
    for (int32_t k = 0; k < c->K; k++) {
        const float *q = ch->Q + (size_t)state * V;
        int32_t best = 0;
        for (int32_t i = 1; i < V; i++)
            if (q[i] > q[best])
                best = i;
        path[k] = state = best;
    }
    sv_chain_step_rows(c, 0, path, c->target, c->draft);
}

static const sv_family families[] = {
    {"seedlab", "the seed lab's pair: skewed (log-normal) target, uniform drafter",
     {COMMON(1000, 5), {"sigma", 2, 0, 20, 0, "spread of the target's Gaussian logits"}},
     seedlab_build},
    {"identical", "p = q: every draft is accepted (alpha = 1)",
     {COMMON(1000, 4), {"sigma", 2, 0, 20, 0, "spread of the Gaussian logits"}},
     identical_build},
    {"disjoint", "p on even tokens, q on odd ones: nothing is accepted (alpha = 0)",
     {COMMON(1000, 3), {"sigma", 1, 0, 20, 0, "spread of the Gaussian logits"}},
     disjoint_build},
    {"zipf", "Zipf(s) target, Zipf(s2) drafter over the same random ranking",
     {COMMON(1000, 8), {"s", 1.1, 0, 10, 0, "target exponent"},
      {"s2", 0.7, 0, 10, 0, "drafter exponent"}},
     zipf_build},
    {"logits", "random logits L at temperature T; drafter (L + noise) at temperature T2",
     {COMMON(1000, 5), {"sigma", 2, 0, 20, 0, "spread of the Gaussian logits"},
      {"noise", 1, 0, 20, 0, "spread of the drafter's logit noise"},
      {"T", 1, 0, 100, 0, "temperature of target and drafter (0: greedy)"},
      {"T2", -1, 0, 100, SV_OR_MINUS_ONE, "drafter temperature if not T (-1: same as T)"},
      CUTS},
     logits_build},
    {"peaked", "near-one-hot target (random logits at T = 0.05), drafter at T2 = 1",
     {COMMON(1000, 5), {"sigma", 1, 0, 20, 0, "spread of the Gaussian logits"},
      {"noise", 0.5, 0, 20, 0, "spread of the drafter's logit noise"},
      {"T", 0.05, 0, 100, 0, "target temperature"},
      {"T2", 1, 0, 100, SV_OR_MINUS_ONE, "drafter temperature (-1: same as T)"},
      CUTS},
     logits_build},
    {"greedy", "greedy target (temperature 0: one-hot at the argmax), sampled drafter",
     {COMMON(1000, 5), {"sigma", 1, 0, 20, 0, "spread of the Gaussian logits"},
      {"noise", 0.5, 0, 20, 0, "spread of the drafter's logit noise"},
      {"T", 0, 0, 0, 0, "target temperature (greedy)"},
      {"T2", 0.5, 0, 100, SV_OR_MINUS_ONE, "drafter temperature (-1: same as T)"},
      CUTS},
     logits_build},
    {"onehot", "one-hot drafter: drafts drawn from q, the sampler gets no draft probs",
     {COMMON(1000, 5), {"sigma", 2, 0, 20, 0, "spread of the Gaussian logits"},
      {"noise", 1, 0, 20, 0, "spread of the drafter's logit noise"},
      {"T", 0.3, 0, 100, 0, "temperature of target and drafter"},
      {"T2", -1, 0, 100, SV_OR_MINUS_ONE, "drafter temperature if not T (-1: same as T)"},
      CUTS},
     onehot_build},
    {"binary", "two tokens: target (p, 1 - p) and drafter (q, 1 - q) at every position",
     {{"V", 2, 2, 2, 1, "vocabulary size (always 2)"},
      {"K", 1, 1, 16, 1, "drafts per step"},
      {"seed", 1, 0, 4294967295.0, 1, "unused: the rows are exact"},
      {"p", 0.5, 0, 1, 0, "target probability of token 0"},
      {"q", 0.5, 0, 1, 0, "drafter probability of token 0"}},
     binary_build},
    {"markov", "target and draft Markov chains over V states (the drafter's a perturbation)",
     {{"V", 64, 16, 4096, 1, "states (the vocabulary)"},
      {"K", 4, 1, 16, 1, "drafts per step"},
      {"seed", 1, 0, 4294967295.0, 1, "seed of the case's random rows"},
      {"sigma", 2, 0, 20, 0, "spread of each row's Gaussian logits"},
      {"eps", 0.5, 0, 20, 0, "spread of the drafter's logit perturbation"},
      {"T", 1, 0.01, 100, 0, "temperature of both chains"},
      {"streams", 1024, 1, 1048576, 1, "independent streams the draws are spread over"},
      {"support", 0, 0, 4096, SV_WHOLE | SV_UPTO_V,
       "target transitions kept per state, the rest p = 0 (0: all)"}},
     markov_build},
    {"tail", "a head of H tokens; the rest share tailmass, most tokens below p = 1e-7",
     {COMMON(32000, 3),
      {"head", 50, 1, SV_MAX_V, SV_WHOLE | SV_BELOW_V,
       "tokens in the head (the default at most V - 1)"},
      {"tailmass", 1e-3, 0, 0.5, 0, "mass shared by the tail"}},
     tail_build},
    {"tinytail", "a head of H tokens, then V - H tokens of p = tokenp (below 2^-24) to the end",
     {COMMON(32003, 1),
      {"head", 4, 1, SV_MAX_V, SV_WHOLE | SV_BELOW_V,
       "tokens in the head, log-normal weights; the drafter knows only these"},
      {"tokenp", 1.4901161193847656e-08, 1e-12, 5.9604644775390625e-08, 0,
       "p of each token after the head (default 2^-26; at most 2^-24)"}},
     tinytail_build},
    {"cumshort", "float32 cumulative sums short of 1: tokens of p < 2^-25 end the vocabulary",
     {{"V", 32003, 3, SV_MAX_V, 1, "vocabulary size"},
      {"K", 2, 1, 16, 1, "drafts per step"},
      {"seed", 1, 0, 4294967295.0, 1, "seed of the case's random rows"},
      {"head", 16, 2, SV_MAX_V, SV_WHOLE | SV_BELOW_V,
       "tokens before the tail: token 0, then head - 1 the drafter spreads over evenly"},
      {"tokenp", 2.5e-08, 1e-12, 2.98e-08, 0,
       "p of each token after the head (below 2^-25: lost to a float32 sum past 1/2)"},
      {"lead", 0.6, 0.5, 0.95, 0, "p of token 0, which the drafter never proposes"}},
     cumshort_build},
};

size_t sv_family_count(void) { return sizeof families / sizeof families[0]; }
const sv_family *sv_family_get(size_t i) { return i < sv_family_count() ? &families[i] : NULL; }

const sv_family *sv_family_find(const char *name)
{
    for (size_t i = 0; i < sv_family_count(); i++)
        if (strcmp(families[i].name, name) == 0)
            return &families[i];
    return NULL;
}

size_t sv_family_param_count(const sv_family *f)
{
    size_t n = 0;
    while (n < SV_FAMILY_MAX_PARAMS && f->params[n].key)
        n++;
    return n;
}
