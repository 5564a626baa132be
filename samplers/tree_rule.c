/* tree_rule.c: tree verification (contract version 6), and its references
 * ref_tree (SV_RULE_TREE: recursive rejection sampling) and
 * ref_tree_target_only (SV_RULE_TREE_TARGET_ONLY: SGLang's target-only rule),
 * written to be obviously right: double precision throughout, one node at a
 * time, the residual kept whole as a row of doubles.
 *
 * Randomness, under each sequence's own seed and index: child k+1's test
 * uses (k+1, SV_PURPOSE_ACCEPT), the token that ends the step at node u
 * (u, SV_PURPOSE_FINAL). Both layouts. The flaws the broken variants need
 * are switches (rules.h). */
#include <math.h>
#include <stdlib.h>
#include "sv_registry.h"
#include "rules.h"
#include "sv_philox.h"

typedef struct tree_ws {
    double *r, *s; /* [max_V] each: the residual target and the draft row */
    int32_t V;
} tree_ws;

int sv_tree_init(void **state, const sv_limits *limits)
{
    tree_ws *w = calloc(1, sizeof *w);
    if (w) {
        w->V = limits->max_V;
        w->r = malloc((size_t)w->V * sizeof *w->r);
        w->s = malloc((size_t)w->V * sizeof *w->s);
    }
    if (!w || !w->r || !w->s) {
        sv_tree_destroy(w);
        return SV_SAMPLER_ENOMEM;
    }
    *state = w;
    return SV_SAMPLER_OK;
}

void sv_tree_destroy(void *state)
{
    tree_ws *w = state;
    if (!w)
        return;
    free(w->r);
    free(w->s);
    free(w);
}

/* Row `row` as doubles scaled to sum 1; 0, or -1 when it has no mass. */
static int load_row(const float *row, int32_t V, double *out)
{
    double sum = 0.0;
    for (int32_t i = 0; i < V; i++) {
        out[i] = row[i] > 0.0f ? (double)row[i] : 0.0;
        sum += out[i];
    }
    if (!(sum > 0.0))
        return -1;
    for (int32_t i = 0; i < V; i++)
        out[i] /= sum;
    return 0;
}

/* The smallest token whose cumulative weight exceeds u times the total:
 * never a token of weight 0. -1 when every weight is 0. */
static int32_t draw(const double *w, int32_t V, double u)
{
    double total = 0.0;
    for (int32_t i = 0; i < V; i++)
        total += w[i];
    if (!(total > 0.0))
        return -1;
    const double at = u * total;
    double acc = 0.0;
    int32_t last = -1;
    for (int32_t i = 0; i < V; i++) {
        if (w[i] <= 0.0)
            continue;
        acc += w[i];
        last = i;
        if (acc > at)
            return i;
    }
    return last; /* rounding left u * total at the very top */
}

int sv_tree_seq_of(const sv_batch *bt, int32_t b, sv_tree_seq *t)
{
    if (!bt->parents || !bt->out_path || sv_rule_seq_of(bt, b, &t->s) != 0)
        return -1;
    t->parents = bt->parents + sv_batch_drafts_offset(bt, b);
    t->path = bt->out_path + sv_batch_out_offset(bt, b);
    for (int32_t k = 0; k < t->s.d; k++)
        if (t->parents[k] < 0 || t->parents[k] > k)
            return -1;
    return 0;
}

void sv_tree_finish(const sv_tree_seq *t, int32_t n)
{
    for (int32_t k = n; k <= t->s.d; k++)
        t->path[k] = -1;
    for (int32_t k = n + 1; k <= t->s.d; k++)
        t->s.y[k] = -1;
}

/* Recursive rejection at node u: the child accepted (a node index), or 0
 * with the final token in *token. */
static int32_t reject_siblings(const sv_tree_seq *t, int32_t u, int distinct, tree_ws *w,
                               int32_t *token)
{
    const sv_rule_seq *s = &t->s;
    const int32_t V = s->V;
    if (load_row(s->P + (int64_t)u * V, V, w->r) != 0)
        return -1;
    int have_s = 0;
    for (int32_t k = 0; k < s->d; k++) {
        if (t->parents[k] != u)
            continue;
        if (!have_s) { /* the children's shared draft row */
            if (!s->Q || load_row(s->Q + (int64_t)k * V, V, w->s) != 0)
                return -1;
            have_s = 1;
        }
        const int32_t x = s->x[k];
        const double a = w->s[x] > 0.0 ? fmin(1.0, w->r[x] / w->s[x]) : 0.0;
        if (sv_philox_uniform(s->seed, s->index, (uint32_t)k + 1u, SV_PURPOSE_ACCEPT, 0) < a)
            return k + 1;
        double rsum = 0.0;
        for (int32_t i = 0; i < V; i++)
            rsum += sv_positive_part(w->r[i] - w->s[i]);
        if (rsum > 0.0) /* else r = s: no later sibling can be rejected */
            for (int32_t i = 0; i < V; i++)
                w->r[i] = sv_positive_part(w->r[i] - w->s[i]) / rsum;
        if (distinct) {
            const double left = 1.0 - w->s[x];
            w->s[x] = 0.0;
            if (left > 0.0)
                for (int32_t i = 0; i < V; i++)
                    w->s[i] /= left;
        }
    }
    *token = draw(w->r, V, sv_philox_uniform(s->seed, s->index, (uint32_t)u, SV_PURPOSE_FINAL, 0));
    return *token < 0 ? -1 : 0;
}

int sv_tree_walk(const sv_batch *bt, sv_tree_step step, void *ctx)
{
    if (!bt->target)
        return SV_SAMPLER_EINVAL;
    for (int32_t b = 0; b < bt->B; b++) {
        sv_tree_seq t;
        if (sv_tree_seq_of(bt, b, &t) != 0)
            return SV_SAMPLER_EINVAL;
        int32_t u = 0, n = 0, token = -1;
        for (;;) {
            const int32_t next = step(&t, u, ctx, &token);
            if (next < 0)
                return SV_SAMPLER_EINVAL;
            if (next == 0)
                break;
            t.path[n] = next;
            t.s.y[n++] = t.s.x[next - 1];
            u = next;
        }
        t.s.y[n] = token;
        sv_tree_finish(&t, n);
        bt->out_accepted[b] = n;
    }
    return SV_SAMPLER_OK;
}

typedef struct reject_ctx {
    tree_ws *w;
    int distinct;
} reject_ctx;

static int32_t reject_step(const sv_tree_seq *t, int32_t u, void *ctx, int32_t *token)
{
    const reject_ctx *c = ctx;
    return reject_siblings(t, u, c->distinct, c->w, token);
}

int sv_tree_verify(void *state, const sv_batch *bt, sv_tree_flaw flaw)
{
    tree_ws *w = state;
    if (bt->V > w->V)
        return SV_SAMPLER_EINVAL;
    reject_ctx c = {w, flaw == SV_TREE_SIBLINGS_AS_DISTINCT ||
                           bt->siblings == SV_SIBLINGS_DISTINCT};
    return sv_tree_walk(bt, reject_step, &c);
}

static int tree_verify(void *state, const sv_batch *bt)
{
    return sv_tree_verify(state, bt, SV_TREE_RIGHT);
}

const sv_sampler sv_sampler_ref_tree = {
    "ref_tree", "CPU reference tree verification: recursive rejection over siblings",
    SV_MEM_HOST, sv_tree_init, tree_verify, sv_tree_destroy, 0,
    SV_LAYOUT_BIT(SV_LAYOUT_PADDED) | SV_LAYOUT_BIT(SV_LAYOUT_PACKED), SV_RULE_TREE};
