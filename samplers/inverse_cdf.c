/* inverse_cdf.c: one draw from max(p - q, 0) by inverse CDF, in double.
 *
 * Pass 1 sums the weights of each block of SV_CDF_BLOCK tokens; the search
 * then finds the block holding u * total and walks only that block. The
 * result is the token an element-by-element walk would find, up to rounding
 * at block edges, and never a token of weight 0. */
#include <math.h>
#include "inverse_cdf.h"

/* max(p_i - q_i, 0), branch-free: (w + |w|) / 2 is exact in binary floating
 * point, and a branch on the sign of w mispredicts half the time. */
static inline double weight(const float *p, const float *q, int32_t i)
{
    double w = (double)p[i] - (q ? (double)q[i] : 0.0);
    return 0.5 * (w + fabs(w));
}

/* Sum of the weights of tokens lo..hi-1, in four interleaved partial sums so
 * the additions do not wait on each other; split on q so that neither loop
 * carries a test. */
static double block_weight(const float *p, const float *q, int32_t lo, int32_t hi)
{
    double s[4] = {0.0, 0.0, 0.0, 0.0};
    int32_t i = lo;
    if (q) {
        for (; i + 4 <= hi; i += 4)
            for (int j = 0; j < 4; j++) {
                double w = (double)p[i + j] - (double)q[i + j];
                s[j] += 0.5 * (w + fabs(w));
            }
    } else {
        for (; i + 4 <= hi; i += 4)
            for (int j = 0; j < 4; j++)
                s[j] += (double)p[i + j];
    }
    for (; i < hi; i++)
        s[0] += weight(p, q, i);
    return (s[0] + s[1]) + (s[2] + s[3]);
}

int32_t sv_inverse_cdf(const float *p, const float *q, int32_t skip, int32_t V, double u,
                       double *block_sum)
{
    const int32_t n_blocks = sv_inverse_cdf_workspace(V);
    double total = 0.0;
    for (int32_t b = 0; b < n_blocks; b++) {
        int32_t lo = b * SV_CDF_BLOCK, hi = lo + SV_CDF_BLOCK < V ? lo + SV_CDF_BLOCK : V;
        double s = block_weight(p, q, lo, hi);
        if (skip >= lo && skip < hi)
            s -= weight(p, q, skip);
        block_sum[b] = s;
        total += s;
    }
    if (!(total > 0.0))
        return -1;

    double target = u * total, cumulative = 0.0;
    int32_t last = -1;
    for (int32_t b = 0; b < n_blocks; b++) {
        if (!(block_sum[b] > 0.0))
            continue;
        if (cumulative + block_sum[b] <= target) {
            cumulative += block_sum[b];
            continue;
        }
        int32_t lo = b * SV_CDF_BLOCK, hi = lo + SV_CDF_BLOCK < V ? lo + SV_CDF_BLOCK : V;
        for (int32_t i = lo; i < hi; i++) {
            double w = i == skip ? 0.0 : weight(p, q, i);
            if (w <= 0.0)
                continue;
            last = i;
            cumulative += w;
            if (target < cumulative)
                return i;
        }
        /* rounding left target past this block's end: go on to the next */
    }
    if (last >= 0)
        return last;
    /* target fell past every block: the last token of positive weight */
    for (int32_t i = V - 1; i >= 0; i--)
        if (i != skip && weight(p, q, i) > 0.0)
            return i;
    return -1;
}
