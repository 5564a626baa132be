/* logits_rows.c: logits -> probabilities by rank threshold (see logits_rows.h).
 *
 * Rank order is the contract's: larger logit first, the lower index first on
 * ties. A threshold (key, index) in that order keeps token i when its key is
 * larger, or equal with i <= index. Keys are the logits' float bits mapped so
 * that unsigned order is float order (-0 is read as +0: the rules compare
 * values, and -0 == +0 ties by index). Both cuts find their threshold digit
 * by digit, 8 bits at a time from the top, over histograms: top-k counts
 * tokens per digit, top-p sums their weights. The weights are
 * kernels/sv_softmax.h's, bit for bit the GPU's. */
#include <math.h>
#include <string.h>
#include "logits_rows.h"
#include "sv_softmax.h"

static double logit_at(const void *row, int bf16, int32_t i)
{
    float f;
    if (bf16) {
        uint32_t u = (uint32_t)((const uint16_t *)row)[i] << 16;
        memcpy(&f, &u, sizeof f);
    } else {
        f = ((const float *)row)[i];
    }
    return (double)f + 0.0; /* + 0.0 turns -0 into +0 */
}

/* Larger float, larger key. */
static uint32_t key_of(double logit)
{
    float f = (float)logit;
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

typedef struct threshold {
    uint32_t key;
    int32_t index;
} threshold;

static int kept_by(const threshold *t, uint32_t key, int32_t i)
{
    return key > t->key || (key == t->key && i <= t->index);
}

/* The `want`-th tied token (1-based) in index order among those with key. */
static int32_t nth_tie(const double *l, int32_t V, uint32_t key, double want)
{
    int32_t last = -1;
    double seen = 0.0;
    for (int32_t i = 0; i < V; i++) {
        if (key_of(l[i]) != key)
            continue;
        last = i;
        if (++seen >= want)
            break;
    }
    return last;
}

/* The k-th ranked token (1-based), k in [1, V). */
static threshold top_k_threshold(const double *l, int32_t V, int32_t k)
{
    uint32_t prefix = 0, mask = 0;
    int64_t remaining = k;
    for (int shift = 24; shift >= 0; shift -= 8) {
        int64_t count[256] = {0};
        for (int32_t i = 0; i < V; i++) {
            uint32_t key = key_of(l[i]);
            if ((key & mask) == prefix)
                count[(key >> shift) & 0xffu]++;
        }
        int d = 255;
        for (; d > 0 && count[d] < remaining; d--)
            remaining -= count[d];
        prefix |= (uint32_t)d << shift;
        mask |= 0xffu << shift;
    }
    return (threshold){prefix, nth_tie(l, V, prefix, (double)remaining)};
}

/* The token whose cumulative weight in rank order first reaches `mass`,
 * among the tokens `kept` keeps (w: their weights). If rounding leaves the
 * whole kept set short of `mass`, its last-ranked token. */
static threshold top_p_threshold(const double *l, const double *w, int32_t V,
                                 const threshold *kept, double mass)
{
    uint32_t prefix = 0, mask = 0;
    double above = 0.0; /* weight of the tokens ranked above the current digit */
    for (int shift = 24; shift >= 0; shift -= 8) {
        double weight[256] = {0};
        int present[256] = {0};
        for (int32_t i = 0; i < V; i++) {
            uint32_t key = key_of(l[i]);
            if ((key & mask) == prefix && kept_by(kept, key, i)) {
                weight[(key >> shift) & 0xffu] += w[i];
                present[(key >> shift) & 0xffu] = 1;
            }
        }
        int chosen = -1, lowest = 0;
        for (int d = 255; d >= 0; d--) {
            if (!present[d])
                continue;
            lowest = d;
            if (above + weight[d] >= mass) {
                chosen = d;
                break;
            }
            above += weight[d];
        }
        if (chosen < 0) { /* short by rounding: the lowest digit, all of it */
            chosen = lowest;
            above -= weight[lowest];
        }
        prefix |= (uint32_t)chosen << shift;
        mask |= 0xffu << shift;
    }
    /* ties at the crossing value share one weight: walk them in index order */
    int32_t index = -1;
    for (int32_t i = 0; i < V; i++) {
        if (key_of(l[i]) != prefix || !kept_by(kept, prefix, i))
            continue;
        index = i;
        above += w[i];
        if (above >= mass)
            break;
    }
    return (threshold){prefix, index};
}

void sv_logits_row_probs(const void *row, int bf16, int32_t V, double T, int32_t top_k,
                         double top_p, float *p, double *work)
{
    double *l = work, *w = work + V;
    int32_t best = 0;
    for (int32_t i = 0; i < V; i++) {
        l[i] = logit_at(row, bf16, i);
        if (l[i] > l[best]) /* strict: the lowest index wins ties */
            best = i;
    }
    if (T == 0.0) { /* greedy */
        for (int32_t i = 0; i < V; i++)
            p[i] = i == best ? 1.0f : 0.0f;
        return;
    }
    /* the weights of kernels/sv_softmax.h against the row's largest exponent */
    const sv_softmax_scale scale = sv_softmax_scale_of(T);
    int32_t N = SV_SOFTMAX_NO_EXPONENT;
    for (int32_t i = 0; i < V; i++) {
        const int32_t n = sv_softmax_exponent((float)l[i], scale);
        N = n > N ? n : N;
    }
    const int cut_k = top_k > 0 && top_k < V, cut_p = top_p < 1.0;
    threshold keep = {0, V}; /* key 0 is below every finite logit's: all kept */
    if (cut_k)
        keep = top_k_threshold(l, V, top_k);
    double sum = 0.0;
    for (int32_t i = 0; i < V; i++) {
        w[i] = kept_by(&keep, key_of(l[i]), i) ? sv_softmax_weight((float)l[i], scale, N) : 0.0;
        sum += w[i];
    }
    if (cut_p) {
        keep = top_p_threshold(l, w, V, &keep, top_p * sum);
        sum = 0.0;
        for (int32_t i = 0; i < V; i++) {
            if (!kept_by(&keep, key_of(l[i]), i))
                w[i] = 0.0;
            sum += w[i];
        }
    }
    const double R = sv_softmax_reciprocal(sum);
    for (int32_t i = 0; i < V; i++)
        p[i] = sv_softmax_prob((float)w[i], R);
}
