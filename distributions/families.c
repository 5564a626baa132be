/* families.c: synthetic p/q families. Each position k gets its own rows,
 * drawn from a GSL generator seeded by (seed, k), so cases are the same on
 * every machine and every run. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include "families.h"

enum { V_, K_, SEED_ }; /* every family's first three values */

#define COMMON(v, k)                                                              \
    {"V", v, 2, SV_MAX_V, 1, "vocabulary size"},                                  \
    {"K", k, 1, 16, 1, "drafts per step"},                                        \
    {"seed", 1, 0, 4294967295.0, 1, "seed of the case's random rows"}

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
/* values: 3 sigma, 4 noise, 5 T (target), 6 T of the drafter (< 0: same as T) */
static void logits_fill(sv_case *c, int32_t k, gsl_rng *r, const double *v, double *l)
{
    double *m = l + c->V;
    gaussian_logits(r, v[3], l, c->V);
    for (int32_t i = 0; i < c->V; i++)
        m[i] = l[i] + gsl_ran_gaussian(r, v[4]);
    sv_softmax(l, c->V, v[5], target_row(c, k));
    if (k < c->K)
        sv_softmax(m, c->V, v[6] < 0 ? v[5] : v[6], draft_row(c, k));
}
static void logits_build(sv_case *c, const double *v) { each_position(c, v, logits_fill); }
static void onehot_build(sv_case *c, const double *v)
{
    each_position(c, v, logits_fill);
    c->draft_probs_given = 0;
}

/* ---- tail: a head of H tokens, the rest share `tailmass` (most below 1e-7) -- */
/* values: 3 head, 4 tailmass; the drafter is half uniform, half the target */
static void tail_fill(sv_case *c, int32_t k, gsl_rng *r, const double *v, double *w)
{
    const int32_t V = c->V, head = (int32_t)v[3] < V ? (int32_t)v[3] : V - 1;
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
      {"T2", -1, -1, 100, 0, "drafter temperature if not T (-1: same as T)"}},
     logits_build},
    {"peaked", "near-one-hot target (random logits at T = 0.05), drafter at T2 = 1",
     {COMMON(1000, 5), {"sigma", 1, 0, 20, 0, "spread of the Gaussian logits"},
      {"noise", 0.5, 0, 20, 0, "spread of the drafter's logit noise"},
      {"T", 0.05, 0, 100, 0, "target temperature"},
      {"T2", 1, -1, 100, 0, "drafter temperature"}},
     logits_build},
    {"greedy", "greedy target (temperature 0: one-hot at the argmax), sampled drafter",
     {COMMON(1000, 5), {"sigma", 1, 0, 20, 0, "spread of the Gaussian logits"},
      {"noise", 0.5, 0, 20, 0, "spread of the drafter's logit noise"},
      {"T", 0, 0, 0, 0, "target temperature (greedy)"},
      {"T2", 0.5, -1, 100, 0, "drafter temperature"}},
     logits_build},
    {"onehot", "one-hot drafter: drafts drawn from q, the sampler gets no draft probs",
     {COMMON(1000, 5), {"sigma", 2, 0, 20, 0, "spread of the Gaussian logits"},
      {"noise", 1, 0, 20, 0, "spread of the drafter's logit noise"},
      {"T", 0.3, 0, 100, 0, "temperature of target and drafter"},
      {"T2", -1, -1, 100, 0, "drafter temperature if not T (-1: same as T)"}},
     onehot_build},
    {"tail", "a head of H tokens; the rest share tailmass, most tokens below p = 1e-7",
     {COMMON(32000, 3), {"head", 50, 1, SV_MAX_V, 1, "tokens in the head"},
      {"tailmass", 1e-3, 0, 0.5, 0, "mass shared by the tail"}},
     tail_build},
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
