/* contingency.c: bins for tables of pairs of emitted tokens (independence). */
#include <stdlib.h>
#include <string.h>
#include "sv_stats.h"

#define MAX_TOP 12
#define MIN_CELL 5.0

void sv_binmap_free(sv_binmap *b)
{
    free(b->bin);
    free(b->mass);
    memset(b, 0, sizeof *b);
}

/* Indices of the `n` most probable tokens, most probable first. */
static int32_t top_tokens(const double *dist, int32_t V, int32_t n, int32_t *top)
{
    int32_t found = 0;
    for (int32_t i = 0; i < V; i++) {
        if (!(dist[i] > 0.0))
            continue;
        if (found == n && dist[i] <= dist[top[n - 1]])
            continue; /* not among the top n */
        int32_t j = found < n ? found++ : n - 1; /* append, or replace the last */
        while (j > 0 && dist[top[j - 1]] < dist[i]) {
            top[j] = top[j - 1];
            j--;
        }
        top[j] = i;
    }
    return found;
}

/* Bins: the first m of `top`, then one tail bin for the rest of positive
 * mass (if any). Tokens of zero mass get bin -1. */
static int build(const double *dist, int32_t V, const int32_t *top, int32_t m, sv_binmap *b)
{
    b->bin = malloc((size_t)V * sizeof *b->bin);
    b->mass = calloc((size_t)m + 1, sizeof *b->mass);
    if (!b->bin || !b->mass)
        return -1;
    double tail = 0.0;
    for (int32_t i = 0; i < V; i++) {
        b->bin[i] = dist[i] > 0.0 ? m : -1;
        if (dist[i] > 0.0)
            tail += dist[i];
    }
    for (int32_t j = 0; j < m; j++) {
        b->bin[top[j]] = j;
        b->mass[j] = dist[top[j]];
        tail -= dist[top[j]];
    }
    b->nbins = m;
    if (tail > 1e-12) {
        b->mass[m] = tail;
        b->nbins = m + 1;
    } else {
        for (int32_t i = 0; i < V; i++)
            if (b->bin[i] == m)
                b->bin[i] = -1;
    }
    return 0;
}

static double smallest(const sv_binmap *b)
{
    double s = 1.0;
    for (int32_t j = 0; j < b->nbins; j++)
        if (b->mass[j] < s)
            s = b->mass[j];
    return s;
}

int sv_pair_bins(const double *rows, const double *cols, int32_t V, double pairs,
                 sv_binmap *row_bins, sv_binmap *col_bins)
{
    int32_t rtop[MAX_TOP], ctop[MAX_TOP];
    int32_t rn = top_tokens(rows, V, MAX_TOP, rtop), cn = top_tokens(cols, V, MAX_TOP, ctop);
    memset(row_bins, 0, sizeof *row_bins);
    memset(col_bins, 0, sizeof *col_bins);
    for (int32_t m = MAX_TOP; m >= 1; m--) {
        if (build(rows, V, rtop, m < rn ? m : rn, row_bins) != 0 ||
            build(cols, V, ctop, m < cn ? m : cn, col_bins) != 0) {
            sv_binmap_free(row_bins);
            sv_binmap_free(col_bins);
            return -1;
        }
        if (row_bins->nbins >= 2 && col_bins->nbins >= 2 &&
            pairs * smallest(row_bins) * smallest(col_bins) >= MIN_CELL)
            return 0;
        sv_binmap_free(row_bins);
        sv_binmap_free(col_bins);
    }
    return 1;
}
