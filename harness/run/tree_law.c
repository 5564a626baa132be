/* tree_law.c: the law of a tree step's accepted depth n given its tree
 * (the nodes' tokens and rows), under each tree rule: what a right sampler
 * must produce, step by step, and the length test sums (docs/statistics.md,
 * "Trees").
 *
 * Walking the tree from the root, node u is reached with probability R_u;
 * its children c_1..c_w are accepted with probabilities d_1..d_w (at most
 * one: they are tried in order), the step stops at u with R_u (1 - sum d_i)
 * and c_i is reached with R_u d_i. For SV_RULE_TREE, with r_1 = p_u, s_1 =
 * the children's draft row, d_i = prod_{j<i} (1 - a_j) a_i where a_i =
 * min(1, r_i(x_i) / s_i(x_i)), r_{i+1} = norm(max(r_i - s_i, 0)) and s_{i+1}
 * = s_i (independent siblings) or s_i without x_i, renormalized (distinct).
 * For SV_RULE_TREE_TARGET_ONLY, d_i = p_u(x_i) for the first child with
 * token x_i, 0 for a repeat. */
#include <math.h>
#include <string.h>
#include "sv_run.h"

/* a_i for child i of a node with p-row p and draft row q (normalized), the
 * residual r after i rejections given: the chance to accept x. */
static double chance(double r, double s)
{
    return s > 0.0 ? fmin(1.0, r / s) : 0.0;
}

/* Independent or distinct siblings from whole rows (Markov pairs, and a
 * fixed-row node's third distinct sibling on): d[0..w). ws: 2 V doubles,
 * r and s already loaded. */
static void rows_law(double *r, double *s, int32_t V, const int32_t *x, int32_t from,
                     int32_t w, int distinct, double reach, double *d)
{
    for (int32_t i = from; i < w; i++) {
        const double a = chance(r[x[i]], s[x[i]]);
        d[i] = reach * a;
        reach *= 1.0 - a;
        if (reach <= 0.0 || i + 1 == w)
            break;
        double sum = 0.0;
        for (int32_t v = 0; v < V; v++)
            sum += fmax(r[v] - s[v], 0.0);
        if (sum > 0.0)
            for (int32_t v = 0; v < V; v++)
                r[v] = fmax(r[v] - s[v], 0.0) / sum;
        if (distinct) {
            const double left = 1.0 - s[x[i]];
            s[x[i]] = 0.0;
            for (int32_t v = 0; v < V && left > 0.0; v++)
                s[v] /= left;
        }
    }
}

/* The children of node u at depth `depth`, tokens x[0..w): d_i into acc. */
static void node_law(const sv_tree_rows *r, uint32_t rule, int32_t u, int32_t depth,
                     const int32_t *x, int32_t w, const int32_t *tokens, int32_t state,
                     double *ws, double *acc)
{
    const int32_t V = r->V;
    const int distinct = r->t->siblings == SV_SIBLINGS_DISTINCT;
    const sv_chain *ch = r->c->chain;
    const int32_t from = ch ? (u ? tokens[u - 1] : state) : -1;
    double *a = ws, *b = ws + V;
    for (int32_t i = 0; i < w; i++)
        acc[i] = 0.0;
    if (rule == SV_RULE_TREE_TARGET_ONLY) {
        const double *p = r->p ? r->p + (size_t)depth * (size_t)V : a;
        if (ch)
            sv_row_normalize(ch->P + (size_t)from * (size_t)V, V, a);
        for (int32_t i = 0; i < w; i++) {
            int seen = 0;
            for (int32_t j = 0; j < i && !seen; j++)
                seen = x[j] == x[i];
            acc[i] = seen ? 0.0 : p[x[i]];
        }
        return;
    }
    if (ch) {
        sv_row_normalize(ch->P + (size_t)from * (size_t)V, V, a);
        sv_row_normalize(ch->Q + (size_t)from * (size_t)V, V, b);
        rows_law(a, b, V, x, 0, w, distinct, 1.0, acc);
        return;
    }
    /* fixed rows: the residual after i independent rejections is the same
     * in every tree (sv_tree_rows_init), so each a_i is a lookup; distinct
     * siblings share r_2 with them, and s_2 is q without x_1 */
    const double *q = r->q + (size_t)depth * (size_t)V;
    const double *res = r->res + (size_t)depth * (size_t)r->res_rows * (size_t)V;
    if (!distinct || w <= 2) {
        double reach = 1.0;
        for (int32_t i = 0; i < w; i++) {
            double s = q[x[i]];
            if (distinct && i == 1)
                s = x[1] == x[0] || q[x[0]] >= 1.0 ? 0.0 : q[x[1]] / (1.0 - q[x[0]]);
            const double ai = chance(res[(size_t)i * (size_t)V + (size_t)x[i]], s);
            acc[i] = reach * ai;
            reach *= 1.0 - ai;
        }
        return;
    }
    /* distinct, three siblings or more: r_3 depends on x_1, so whole rows
     * from sibling 2 on, starting from r_2 and s_2 */
    const double a1 = chance(res[x[0]], q[x[0]]);
    acc[0] = a1;
    memcpy(a, res + V, (size_t)V * sizeof *a);
    memcpy(b, q, (size_t)V * sizeof *b);
    const double left = 1.0 - b[x[0]];
    b[x[0]] = 0.0;
    for (int32_t v = 0; v < V && left > 0.0; v++)
        b[v] /= left;
    rows_law(a, b, V, x, 1, w, 1, 1.0 - a1, acc);
}

void sv_tree_law(const sv_tree_rows *r, uint32_t rule, const int32_t *tokens, int32_t state,
                 double *ws, double *pi)
{
    const sv_tree *t = r->t;
    double reach[SV_MAX_K + 1] = {0}, d[SV_MAX_K];
    for (int32_t l = 0; l <= t->depth; l++)
        pi[l] = 0.0;
    reach[0] = 1.0;
    for (int32_t u = 0; u <= t->nodes; u++) { /* breadth first: parents first */
        if (reach[u] <= 0.0)
            continue;
        const int32_t w = t->n_children[u], f = t->first_child[u];
        double stop = 1.0;
        if (w) {
            node_law(r, rule, u, t->node_depth[u], tokens + f - 1, w, tokens, state, ws, d);
            for (int32_t i = 0; i < w; i++) {
                reach[f + i] = reach[u] * d[i];
                stop -= d[i];
            }
        }
        pi[t->node_depth[u]] += reach[u] * fmax(stop, 0.0);
    }
}
