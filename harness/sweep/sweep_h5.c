/* sweep_h5.c: a sweep's results as DIR/sweep.h5 (docs/formats.md), written
 * whole; sweep_resume.c reads them back. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "sv_store.h"
#include "sv_sweep.h"

const char *const sv_sweep_distance_names[6] = {"tv", "tv_lo", "tv_hi", "kl", "kl_lo", "kl_hi"};

/* B, target_us [nB], sampler_us [n][nB], speedup_batched [n][nB * n_c]
 * (B major), and the sampler time's source. */
static int write_h5_batched(sv_h5 *f, const sv_sweep_setup *set, const sv_sweep_point *pts, size_t n)
{
    const size_t nB = (size_t)set->n_B, nc = (size_t)set->n_c;
    double *buf = malloc((n * nB * (nc + 1) + nB) * sizeof *buf);
    if (!buf)
        return sv_fail(SV_EENV, "out of memory writing the batched speedups");
    double *s = buf, *sp = buf + n * nB, *axis = sp + n * nB * nc;
    for (size_t b = 0; b < nB; b++)
        axis[b] = set->B[b];
    int rc = sv_h5_doubles(f, "B", axis, nB, 0);
    for (size_t b = 0; b < nB; b++)
        axis[b] = sv_batch_cost_target_us(&set->cost, set->B[b]);
    if (rc == SV_OK)
        rc = sv_h5_doubles(f, "target_us", axis, nB, 0);
    for (size_t i = 0; i < n; i++)
        for (size_t b = 0; b < nB; b++) {
            sv_sweep_batched(set, &pts[i], set->B[b], 0.0, &s[i * nB + b]);
            for (size_t j = 0; j < nc; j++)
                sp[(i * nB + b) * nc + j] = sv_sweep_batched(set, &pts[i], set->B[b], set->c[j], NULL);
        }
    if (rc == SV_OK)
        rc = sv_h5_doubles(f, "sampler_us", s, n, nB);
    if (rc == SV_OK)
        rc = sv_h5_doubles(f, "speedup_batched", sp, n, nB * nc);
    if (rc == SV_OK)
        rc = sv_h5_attr(f, "sampler_time_source", set->cost.source);
    free(buf);
    return rc;
}

int sv_sweep_write_h5(const char *path, const sv_sweep_setup *set, const sv_sweep_point *pts, size_t n)
{
    const size_t kmax = SV_MAX_K;
    /* room for the four alpha tables, or one row per point of n_c or kmax + 1 values */
    size_t row_values = kmax * 4 > (size_t)set->n_c ? kmax * 4 : (size_t)set->n_c;
    double *rows = malloc(n * row_values * sizeof *rows);
    double *cols = malloc(n * sizeof *cols);
    if (!rows || !cols) {
        free(rows);
        free(cols);
        return sv_fail(SV_EENV, "out of memory writing %s", path);
    }
    sv_h5 f;
    int rc = sv_h5_create(&f, path);
    double *an = rows, *me = rows + n * kmax, *lo = rows + 2 * n * kmax, *hi = rows + 3 * n * kmax;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < kmax; k++) {
            int in = (int32_t)k < pts[i].K;
            an[i * kmax + k] = in ? pts[i].analytic[k] : NAN;
            me[i * kmax + k] = in ? pts[i].measured[k].value : NAN;
            lo[i * kmax + k] = in ? pts[i].measured[k].lo : NAN;
            hi[i * kmax + k] = in ? pts[i].measured[k].hi : NAN;
        }
    if (rc == SV_OK)
        rc = sv_h5_doubles(&f, "alpha_analytic", an, n, kmax);
    if (rc == SV_OK)
        rc = sv_h5_doubles(&f, "alpha_measured", me, n, kmax);
    if (rc == SV_OK)
        rc = sv_h5_doubles(&f, "alpha_lo", lo, n, kmax);
    if (rc == SV_OK)
        rc = sv_h5_doubles(&f, "alpha_hi", hi, n, kmax);
    const char *names[6] = {"T", "K", "tokens_analytic", "tokens_measured", "tokens_lo",
                            "tokens_hi"};
    for (int c = 0; rc == SV_OK && c < 6; c++) {
        for (size_t i = 0; i < n; i++) {
            const double v[6] = {pts[i].T, pts[i].K, pts[i].tokens_analytic,
                                 pts[i].tokens_measured, pts[i].tokens_lo, pts[i].tokens_hi};
            cols[i] = v[c];
        }
        rc = sv_h5_doubles(&f, names[c], cols, n, 0);
    }
    if (rc == SV_OK)
        rc = sv_h5_doubles(&f, "c", set->c, (size_t)set->n_c, 0);
    for (size_t i = 0; rc == SV_OK && i < n; i++)
        for (int j = 0; j < set->n_c; j++)
            rows[i * (size_t)set->n_c + (size_t)j] = sv_speedup(pts[i].tokens_analytic, pts[i].K,
                                                              set->c[j]);
    if (rc == SV_OK)
        rc = sv_h5_doubles(&f, "speedup_analytic", rows, n, (size_t)set->n_c);
    if (rc == SV_OK && set->n_B > 0)
        rc = write_h5_batched(&f, set, pts, n);
    for (size_t i = 0; rc == SV_OK && i < n; i++)
        for (size_t m = 0; m <= kmax; m++)
            rows[i * (kmax + 1) + m] = (int32_t)m <= pts[i].K ? (double)pts[i].length[m] : 0.0;
    if (rc == SV_OK)
        rc = sv_h5_doubles(&f, "accepted_lengths", rows, n, kmax + 1);
    /* each position's distance from p (verify --measure's): NaN where unmeasured */
    for (int d = 0; rc == SV_OK && d < 6; d++) {
        for (size_t i = 0; i < n; i++)
            for (size_t m = 0; m <= kmax; m++) {
                const sv_distance *x = &pts[i].dist[m];
                const double v[6] = {x->tv, x->tv_lo, x->tv_hi, x->kl, x->kl_lo, x->kl_hi};
                rows[i * (kmax + 1) + m] = (int32_t)m <= pts[i].K && isfinite(v[d]) ? v[d] : NAN;
            }
        rc = sv_h5_doubles(&f, sv_sweep_distance_names[d], rows, n, kmax + 1);
    }
    if (rc == SV_OK)
        rc = sv_h5_attr(&f, "distances", "tv tv_lo tv_hi kl kl_lo kl_hi");
    char text[64];
    snprintf(text, sizeof text, "%llu", (unsigned long long)set->run.seed);
    if (rc == SV_OK)
        rc = sv_h5_attr(&f, "seed", text);
    snprintf(text, sizeof text, "%llu", (unsigned long long)set->run.draws);
    if (rc == SV_OK)
        rc = sv_h5_attr(&f, "draws", text);
    snprintf(text, sizeof text, "%.17g", set->run.level);
    if (rc == SV_OK)
        rc = sv_h5_attr(&f, "level", text);
    if (rc == SV_OK)
        rc = sv_h5_attr(&f, "case", set->run.spec);
    if (rc == SV_OK)
        rc = sv_h5_attr(&f, "sampler", set->run.sampler);
    if (rc == SV_OK)
        rc = sv_h5_attr(&f, "specverify_version", SV_VERSION);
    if (rc == SV_OK)
        rc = sv_h5_attr(&f, "kind", "sweep");
    if (rc == SV_OK)
        rc = sv_h5_commit(&f);
    else
        sv_h5_abort(&f);
    free(rows);
    free(cols);
    return rc;
}
