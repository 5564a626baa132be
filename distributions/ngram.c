/* ngram.c: interpolated modified Kneser-Ney word n-gram models (the
 * formulas are in ngram.h).
 *
 * Each order m >= 2 keeps its distinct m-grams sorted, grouped by history
 * (the first m-1 words): a row is the unigram row scaled by each found
 * history's back-off weight, plus that history's discounted followers, order
 * by order, so one row costs O(order V) and needs no hash table. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ngram.h"

typedef struct gram {
    int32_t w[SV_NGRAM_MAX_ORDER]; /* unused slots 0 */
} gram;

typedef struct level {
    double D[3];      /* D1, D2, D3+ */
    size_t n_hist;
    int32_t *hist;    /* [n_hist][m-1], sorted */
    size_t *first;    /* [n_hist + 1]: history i's followers are first[i] .. first[i+1]-1 */
    double *total;    /* [n_hist]: sum of the followers' counts */
    double *backoff;  /* [n_hist]: D1 N1 + D2 N2 + D3 N3+, the mass given to the lower order */
    int32_t *word;    /* [n_grams]: the last word, ascending within a history */
    double *count;    /* [n_grams] */
} level;

struct sv_ngram {
    int order;
    int32_t V;
    size_t n_tokens;
    double fixed;          /* 0: modified Kneser-Ney */
    double uni_D[3];
    double *uni_count;     /* [V] */
    double *uni;           /* [V]: P_1, interpolated with the uniform */
    level lv[SV_NGRAM_MAX_ORDER + 1]; /* lv[m] for m = 2 .. order */
};

static int by_gram(const void *a, const void *b)
{
    const int32_t *x = ((const gram *)a)->w, *y = ((const gram *)b)->w;
    for (int i = 0; i < SV_NGRAM_MAX_ORDER; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return 0;
}

static int same_prefix(const gram *a, const gram *b, int len)
{
    return memcmp(a->w, b->w, (size_t)len * sizeof(int32_t)) == 0;
}

static double discount_of(const double D[3], double c)
{
    return c >= 3.0 ? D[2] : c >= 2.0 ? D[1] : D[0];
}

/* D1, D2, D3+ from the counts of counts (Chen and Goodman), or `fixed`. */
static void discounts(const double *count, size_t u, double fixed, double D[3])
{
    if (fixed > 0.0) {
        D[0] = D[1] = D[2] = fixed;
        return;
    }
    double nk[5] = {0};
    for (size_t i = 0; i < u; i++)
        if (count[i] <= 4.0)
            nk[(int)count[i]] += 1.0;
    double Y = (nk[1] > 0 && nk[2] > 0) ? nk[1] / (nk[1] + 2.0 * nk[2]) : 0.5;
    if (nk[1] > 0 && nk[2] > 0 && nk[3] > 0 && nk[4] > 0) {
        D[0] = 1.0 - 2.0 * Y * nk[2] / nk[1];
        D[1] = 2.0 - 3.0 * Y * nk[3] / nk[2];
        D[2] = 3.0 - 4.0 * Y * nk[4] / nk[3];
    } else {
        D[0] = D[1] = D[2] = Y;
    }
    for (int k = 0; k < 3; k++) /* positive: every history leaves mass to back off to */
        D[k] = fmin(fmax(D[k], 0.05), (double)(k + 1));
}

/* Sorts g [n] and folds equal grams: g keeps the u distinct ones, count[i]
 * their multiplicity. */
static size_t fold(gram *g, size_t n, double *count)
{
    qsort(g, n, sizeof *g, by_gram);
    size_t u = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && by_gram(&g[i], &g[j]) == 0)
            j++;
        g[u] = g[i];
        count[u++] = (double)(j - i);
        i = j;
    }
    return u;
}

/* Level m from its u distinct sorted m-grams and their counts. */
static int build_level(level *L, int m, const gram *g, const double *count, size_t u,
                       double fixed)
{
    discounts(count, u, fixed, L->D);
    size_t nh = 0;
    for (size_t i = 0; i < u; i++)
        nh += (i == 0 || !same_prefix(&g[i - 1], &g[i], m - 1));
    L->n_hist = nh;
    const size_t nh1 = nh ? nh : 1, u1 = u ? u : 1; /* malloc(0) may be NULL */
    /* NOLINTNEXTLINE(clang-analyzer-optin.portability.UnixAPI): m >= 2 (levels 2 .. order) */
    L->hist = malloc(nh1 * (size_t)(m - 1) * sizeof *L->hist);
    L->first = malloc((nh + 1) * sizeof *L->first);
    L->total = calloc(nh1, sizeof *L->total);
    L->backoff = calloc(nh1, sizeof *L->backoff);
    L->word = malloc(u1 * sizeof *L->word);
    L->count = malloc(u1 * sizeof *L->count);
    if (!L->hist || !L->first || !L->total || !L->backoff || !L->word || !L->count)
        return -1;
    size_t h = (size_t)-1;
    for (size_t i = 0; i < u; i++) {
        if (i == 0 || !same_prefix(&g[i - 1], &g[i], m - 1)) {
            h++;
            memcpy(L->hist + h * (size_t)(m - 1), g[i].w, (size_t)(m - 1) * sizeof(int32_t));
            L->first[h] = i;
        }
        L->word[i] = g[i].w[m - 1];
        L->count[i] = count[i];
        L->total[h] += count[i];
        L->backoff[h] += discount_of(L->D, count[i]);
    }
    L->first[nh] = u;
    return 0;
}

static void free_level(level *L)
{
    free(L->hist);
    free(L->first);
    free(L->total);
    free(L->backoff);
    free(L->word);
    free(L->count);
}

int sv_ngram_train(const int32_t *tokens, size_t n, int32_t V, int order, double fixed_discount,
                   sv_ngram **out, char *err, size_t errlen)
{
    *out = NULL;
    if (order < 1 || order > SV_NGRAM_MAX_ORDER)
        return sv_ngram_fail(err, errlen, "n-gram order %d: outside [1, %d]", order, SV_NGRAM_MAX_ORDER);
    if (V < 1)
        return sv_ngram_fail(err, errlen, "vocabulary size %d: at least 1", V);
    if (!(fixed_discount >= 0.0 && fixed_discount < 1.0))
        return sv_ngram_fail(err, errlen, "discount %g: outside [0, 1)", fixed_discount);
    if (n < (size_t)order)
        return sv_ngram_fail(err, errlen, "%zu training tokens: fewer than the order %d", n, order);
    for (size_t i = 0; i < n; i++)
        if (tokens[i] < 0 || tokens[i] >= V)
            return sv_ngram_fail(err, errlen, "training token %zu is %d, outside [0, %d)", i, tokens[i], V);
    sv_ngram *m = calloc(1, sizeof *m);
    size_t ng = n - (size_t)order + 1;
    gram *g = calloc(ng, sizeof *g);
    double *count = malloc(ng * sizeof *count);
    int rc = -1;
    if (!m || !g || !count)
        goto done;
    m->order = order;
    m->V = V;
    m->n_tokens = n;
    m->fixed = fixed_discount;
    m->uni_count = calloc((size_t)V, sizeof *m->uni_count);
    m->uni = malloc((size_t)V * sizeof *m->uni);
    if (!m->uni_count || !m->uni)
        goto done;
    for (size_t i = 0; i < ng; i++)
        memcpy(g[i].w, tokens + i, (size_t)order * sizeof(int32_t));
    size_t u = ng;
    /* the highest order counts n-grams; each lower order counts the distinct
     * words before its grams: the distinct grams one order up, less their first word */
    for (int k = order; k >= 1; k--) {
        if (k < order)
            for (size_t i = 0; i < u; i++) {
                memmove(g[i].w, g[i].w + 1, (size_t)k * sizeof(int32_t));
                g[i].w[k] = 0;
            }
        u = fold(g, u, count);
        if (k >= 2) {
            if (build_level(&m->lv[k], k, g, count, u, fixed_discount) != 0)
                goto done;
        } else {
            for (size_t i = 0; i < u; i++)
                m->uni_count[g[i].w[0]] = count[i];
            discounts(count, u, fixed_discount, m->uni_D);
        }
    }
    double total = 0.0, mass = 0.0;
    for (int32_t w = 0; w < V; w++)
        if (m->uni_count[w] > 0) {
            total += m->uni_count[w];
            mass += discount_of(m->uni_D, m->uni_count[w]);
        }
    for (int32_t w = 0; w < V; w++) {
        double c = m->uni_count[w];
        m->uni[w] = (c > 0 ? (c - discount_of(m->uni_D, c)) / total : 0.0) +
                    mass / total / (double)V;
    }
    rc = 0;
done:
    free(g);
    free(count);
    if (rc != 0) {
        sv_ngram_free(m);
        return sv_ngram_fail(err, errlen, "out of memory training a %d-gram model on %zu tokens", order, n);
    }
    *out = m;
    return 0;
}

void sv_ngram_free(sv_ngram *m)
{
    if (!m)
        return;
    for (int k = 2; k <= SV_NGRAM_MAX_ORDER; k++)
        free_level(&m->lv[k]);
    free(m->uni_count);
    free(m->uni);
    free(m);
}

int sv_ngram_order(const sv_ngram *m) { return m->order; }
int32_t sv_ngram_vocab(const sv_ngram *m) { return m->V; }
size_t sv_ngram_tokens(const sv_ngram *m) { return m->n_tokens; }

/* The index of history h [m-1] in level m, or -1. */
static long find_hist(const level *L, int m, const int32_t *h)
{
    size_t lo = 0, hi = L->n_hist;
    size_t len = (size_t)(m - 1);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const int32_t *x = L->hist + mid * len;
        int c = 0;
        for (size_t i = 0; i < len && c == 0; i++)
            c = x[i] < h[i] ? -1 : x[i] > h[i] ? 1 : 0;
        if (c == 0)
            return (long)mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

void sv_ngram_probs(const sv_ngram *m, const int32_t *context, size_t len, double *out)
{
    memcpy(out, m->uni, (size_t)m->V * sizeof *out);
    for (int k = 2; k <= m->order && (size_t)(k - 1) <= len; k++) {
        const level *L = &m->lv[k];
        long h = find_hist(L, k, context + len - (size_t)(k - 1));
        if (h < 0)
            break; /* no longer history can have been seen either */
        double inv = 1.0 / L->total[h], gamma = L->backoff[h] * inv;
        for (int32_t w = 0; w < m->V; w++)
            out[w] *= gamma;
        for (size_t j = L->first[h]; j < L->first[h + 1]; j++)
            out[L->word[j]] += (L->count[j] - discount_of(L->D, L->count[j])) * inv;
    }
}

void sv_ngram_logprobs(const sv_ngram *m, const int32_t *context, size_t len, double *out)
{
    sv_ngram_probs(m, context, len, out);
    for (int32_t w = 0; w < m->V; w++)
        out[w] = log(out[w]);
}

double sv_ngram_count(const sv_ngram *m, const int32_t *gram_, int len)
{
    if (len < 1 || len > m->order)
        return 0.0;
    if (len == 1)
        return (gram_[0] >= 0 && gram_[0] < m->V) ? m->uni_count[gram_[0]] : 0.0;
    const level *L = &m->lv[len];
    long h = find_hist(L, len, gram_);
    if (h < 0)
        return 0.0;
    for (size_t j = L->first[h]; j < L->first[h + 1]; j++) /* ascending: could bisect */
        if (L->word[j] == gram_[len - 1])
            return L->count[j];
    return 0.0;
}

void sv_ngram_discounts(const sv_ngram *m, int len, double D[3])
{
    /* lv[len] only where it exists: len <= order <= SV_NGRAM_MAX_ORDER */
    const double *src = (len <= 1 || len > m->order) ? m->uni_D : m->lv[len].D;
    memcpy(D, src, 3 * sizeof *D);
}

void sv_ngram_describe(const sv_ngram *m, char *out, size_t len)
{
    size_t at = 0;
#define PUT(...)                                                           \
    do {                                                                   \
        int w_ = snprintf(out + at, at < len ? len - at : 0, __VA_ARGS__); \
        if (w_ > 0)                                                        \
            at += (size_t)w_;                                              \
    } while (0)
    if (len)
        out[0] = '\0';
    if (m->fixed > 0.0) {
        PUT("word %d-gram, interpolated Kneser-Ney, D=%.2f", m->order, m->fixed);
    } else {
        PUT("word %d-gram, interpolated modified Kneser-Ney, D1/D2/D3+ by order", m->order);
        for (int k = m->order; k >= 1; k--) {
            double D[3];
            sv_ngram_discounts(m, k, D);
            PUT(" %d: %.2f/%.2f/%.2f%s", k, D[0], D[1], D[2], k > 1 ? "," : "");
        }
    }
    PUT("; V=%d, trained on %zu tokens", m->V, m->n_tokens);
#undef PUT
}
