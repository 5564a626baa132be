/* tree.c: trees of drafts for the tree rules (contract version 6): the
 * shape, the rows a step draws from, and the drafting of its nodes.
 * Nodes are numbered breadth first (sv_run.h). Every random number is
 * addressed, so a tree depends only on (seed, index) and its root. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sv_run.h"
#include "sv_philox.h"

const char *sv_siblings_name(int siblings)
{
    return siblings == SV_SIBLINGS_DISTINCT ? "distinct" : "iid";
}

/* Numbers the nodes of widths[0..depth) breadth first; -1 past SV_MAX_K. */
static int build(sv_tree *t)
{
    int32_t level_start = 0, level_count = 1; /* the root */
    t->nodes = 0;
    t->node_depth[0] = 0;
    for (int32_t d = 0; d < t->depth; d++) {
        int32_t next_start = t->nodes + 1, next_count = 0;
        for (int32_t u = level_start; u < level_start + level_count; u++) {
            t->first_child[u] = t->nodes + 1;
            t->n_children[u] = t->widths[d];
            for (int32_t i = 0; i < t->widths[d]; i++) {
                if (t->nodes == SV_MAX_K)
                    return -1;
                t->parents[t->nodes] = u;
                t->node_depth[t->nodes + 1] = d + 1;
                t->nodes++;
                next_count++;
            }
        }
        level_start = next_start;
        level_count = next_count;
    }
    for (int32_t u = level_start; u < level_start + level_count; u++) { /* the leaves */
        t->first_child[u] = 0;
        t->n_children[u] = 0;
    }
    int len = 0;
    for (int32_t d = 0; d < t->depth; d++)
        len += snprintf(t->name + len, sizeof t->name - (size_t)len, "%s%d", d ? "x" : "",
                        t->widths[d]);
    snprintf(t->name + len, sizeof t->name - (size_t)len, " %s", sv_siblings_name(t->siblings));
    return 0;
}

int sv_tree_parse(const char *shape, int siblings, sv_tree *t)
{
    memset(t, 0, sizeof *t);
    t->siblings = siblings;
    const char *p = shape;
    while (*p) {
        char *end;
        errno = 0;
        long w = strtol(p, &end, 10);
        if (end == p || errno || w < 1 || w > SV_MAX_K || (*end && *end != 'x') ||
            (*end == 'x' && !end[1]))
            return sv_fail(SV_EBAD, "--tree '%s': not a tree shape; give the number of "
                           "children per node at each depth, 'x' between them (3x2x1: a root "
                           "of 3 children, each with 2, each of those with 1; 4x1x1: 4 "
                           "independent chains of 3)", shape);
        if (t->depth == SV_MAX_K)
            break;
        t->widths[t->depth++] = (int32_t)w;
        p = *end ? end + 1 : end;
    }
    if (t->depth == 0 || build(t) != 0)
        return sv_fail(SV_EBAD, "--tree '%s': %s; a tree has at most %d nodes besides the "
                       "root (contract version 6 verifies up to SV_MAX_K drafts)", shape,
                       t->depth == 0 ? "empty" : "too many nodes", SV_MAX_K);
    return SV_OK;
}

void sv_tree_cut(const sv_tree *full, int32_t K, sv_tree *out)
{
    *out = *full;
    if (out->depth > K)
        out->depth = K;
    build(out); /* fewer levels, fewer nodes: it fits */
}

/* Cumulative sums of row[0..V) into cum. */
static void cumulate(const float *row, int32_t V, double *cum)
{
    double acc = 0.0;
    for (int32_t i = 0; i < V; i++) {
        acc += row[i] > 0.0f ? (double)row[i] : 0.0;
        cum[i] = acc;
    }
}

static int32_t support(const float *row, int32_t V)
{
    int32_t n = 0;
    for (int32_t i = 0; i < V; i++)
        n += row[i] > 0.0f;
    return n;
}

void sv_row_normalize(const float *row, int32_t V, double *out)
{
    double sum = 0.0;
    for (int32_t i = 0; i < V; i++)
        sum += out[i] = row[i] > 0.0f ? (double)row[i] : 0.0;
    for (int32_t i = 0; i < V && sum > 0.0; i++)
        out[i] /= sum;
}

int sv_tree_rows_init(sv_tree_rows *r, const sv_case *c, const sv_tree *t)
{
    memset(r, 0, sizeof *r);
    r->t = t;
    r->c = c;
    r->V = c->V;
    const size_t V = (size_t)c->V, D = (size_t)t->depth;
    int32_t widest = 0;
    for (int32_t d = 0; d < t->depth; d++)
        widest = t->widths[d] > widest ? t->widths[d] : widest;
    if (c->chain) { /* the draft chain's rows: each must offer the widest node */
        for (int32_t s = 0; t->siblings == SV_SIBLINGS_DISTINCT && s < c->V; s++)
            if (support(c->chain->Q + (size_t)s * V, c->V) < widest)
                return sv_fail(SV_EBAD, "case %s: draft row of state %d has %d tokens of mass, "
                               "fewer than the %d distinct siblings tree %s draws there; use "
                               "--siblings iid or a narrower --tree", c->name, s,
                               support(c->chain->Q + (size_t)s * V, c->V), widest, t->name);
        return SV_OK;
    }
    r->cum = malloc(D * V * sizeof *r->cum);
    r->p = malloc((D + 1) * V * sizeof *r->p);
    r->q = malloc(D * V * sizeof *r->q);
    r->res_rows = widest;
    /* a tree cut to depth 0 (a case of no drafts) has no residuals: one row */
    r->res = malloc((D ? D : 1) * (size_t)(widest ? widest : 1) * V * sizeof *r->res);
    if (!r->cum || !r->p || !r->q || !r->res) {
        sv_tree_rows_free(r);
        return sv_fail(SV_EENV, "case %s: out of memory for tree %s's rows", c->name, t->name);
    }
    const float *drawn = c->draft_sampled ? c->draft_sampled : c->draft;
    for (size_t d = 0; d <= D; d++)
        sv_row_normalize(c->target + d * V, c->V, r->p + d * V);
    for (size_t d = 0; d < D; d++) {
        cumulate(drawn + d * V, c->V, r->cum + d * V);
        sv_row_normalize(c->draft + d * V, c->V, r->q + d * V);
        if (t->siblings == SV_SIBLINGS_DISTINCT && support(drawn + d * V, c->V) < t->widths[d]) {
            int32_t have = support(drawn + d * V, c->V);
            sv_tree_rows_free(r);
            return sv_fail(SV_EBAD, "case %s: draft row %zu has %d tokens of mass, fewer than "
                           "the %d distinct siblings tree %s draws there; use --siblings iid "
                           "or a narrower --tree", c->name, d + 1, have, t->widths[d], t->name);
        }
        /* the residuals after 0, 1, ... rejected independent siblings */
        double *res = r->res + d * (size_t)widest * V;
        memcpy(res, r->p + d * V, V * sizeof *res);
        for (int32_t i = 1; i < t->widths[d]; i++) {
            const double *prev = res + (size_t)(i - 1) * V, *q = r->q + d * V;
            double *next = res + (size_t)i * V, sum = 0.0;
            for (size_t x = 0; x < V; x++)
                sum += next[x] = fmax(prev[x] - q[x], 0.0);
            for (size_t x = 0; x < V; x++)
                next[x] = sum > 0.0 ? next[x] / sum : prev[x]; /* r = q: never rejected */
        }
    }
    return SV_OK;
}

void sv_tree_rows_free(sv_tree_rows *r)
{
    free(r->cum);
    free(r->p);
    free(r->q);
    free(r->res);
    r->cum = r->p = r->q = r->res = NULL;
}

int sv_tree_case(const sv_case *c, const sv_tree *t, sv_case **out)
{
    sv_case *x = sv_case_alloc(t->nodes, c->V);
    if (!x)
        return sv_fail(SV_EENV, "case %s: out of memory for tree %s's rows", c->name, t->name);
    snprintf(x->name, sizeof x->name, "%s", c->name);
    const size_t V = (size_t)c->V;
    x->draft_probs_given = 1; /* a tree's drafter has probabilities (target-only: unused) */
    if (!c->chain) {
        for (int32_t j = 0; j <= t->nodes; j++)
            memcpy(x->target + (size_t)j * V, c->target + (size_t)t->node_depth[j] * V,
                   V * sizeof(float));
        for (int32_t k = 0; k < t->nodes; k++)
            memcpy(x->draft + (size_t)k * V, c->draft + (size_t)(t->node_depth[k + 1] - 1) * V,
                   V * sizeof(float));
    }
    *out = x;
    return SV_OK;
}

int32_t sv_cum_search(const double *cum, int32_t V, double at)
{
    int32_t lo = 0, hi = V - 1;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (cum[mid] > at)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

static int taken(const int32_t *tokens, int32_t from, int32_t to, int32_t x)
{
    for (int32_t k = from; k < to; k++)
        if (tokens[k] == x)
            return 1;
    return 0;
}

/* Node k+1's token from cumulative row cum; distinct: none of its earlier
 * siblings' (tokens[first..k)). Rejection on fresh lanes, then, should the
 * siblings hold nearly all the mass, a walk that skips them: exact either way. */
static int32_t draw_node(const double *cum, int32_t V, uint64_t seed, uint64_t index, int32_t k,
                         int distinct, const int32_t *tokens, int32_t first)
{
    const double total = cum[V - 1];
    for (uint32_t lane = 0; lane < 64; lane++) {
        double u = sv_philox_uniform(seed, index, (uint32_t)k + 1u, SV_PURPOSE_DRAFT, lane);
        int32_t x = sv_cum_search(cum, V, u * total);
        if (!distinct || !taken(tokens, first, k, x))
            return x;
    }
    double left = total;
    for (int32_t j = first; j < k; j++)
        left -= cum[tokens[j]] - (tokens[j] ? cum[tokens[j] - 1] : 0.0);
    double at = sv_philox_uniform(seed, index, (uint32_t)k + 1u, SV_PURPOSE_DRAFT, 64) * left;
    int32_t last = 0;
    for (int32_t x = 0; x < V; x++) {
        double mass = cum[x] - (x ? cum[x - 1] : 0.0);
        if (mass <= 0.0 || taken(tokens, first, k, x))
            continue;
        last = x;
        if ((at -= mass) < 0.0)
            return x;
    }
    return last;
}

void sv_tree_draw(const sv_tree_rows *r, uint64_t seed, uint64_t index, int32_t state,
                  int32_t *tokens)
{
    const sv_tree *t = r->t;
    const int distinct = t->siblings == SV_SIBLINGS_DISTINCT;
    for (int32_t k = 0; k < t->nodes; k++) {
        const int32_t u = t->parents[k];
        const double *cum;
        if (r->c->chain) /* the draft chain's row at the parent's token */
            cum = r->c->chain->Qcum + (size_t)(u ? tokens[u - 1] : state) * (size_t)r->V;
        else
            cum = r->cum + (size_t)(t->node_depth[k + 1] - 1) * (size_t)r->V;
        tokens[k] = draw_node(cum, r->V, seed, index, k, distinct, tokens,
                              t->first_child[u] - 1);
    }
}

void sv_tree_step_rows(const sv_tree_rows *r, int32_t state, const int32_t *tokens,
                       float *target, float *draft)
{
    const sv_tree *t = r->t;
    const size_t V = (size_t)r->V;
    const sv_chain *ch = r->c->chain;
    for (int32_t j = 0; j <= t->nodes; j++)
        memcpy(target + (size_t)j * V, ch->P + (size_t)(j ? tokens[j - 1] : state) * V,
               V * sizeof(float));
    for (int32_t k = 0; k < t->nodes; k++) {
        const int32_t u = t->parents[k];
        memcpy(draft + (size_t)k * V, ch->Q + (size_t)(u ? tokens[u - 1] : state) * V,
               V * sizeof(float));
    }
}
