/* sweep_resume.c: `sweep --resume`: the points of an earlier run of the
 * same sweep read back from DIR/sweep.h5, which is input like any file: the
 * run must be the same (case, sampler, seed, draws, level) and every number
 * finite, in its range and consistent across datasets before it becomes a
 * point. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sv_input.h"
#include "sv_sweep.h"
#include "sv_store.h"

void sv_sweep_earlier_free(sv_sweep_earlier *e)
{
    free(e->T), free(e->K), free(e->analytic), free(e->tokens), free(e->lengths);
    for (int d = 0; d < 6; d++)
        free(e->dist[d]);
    memset(e, 0, sizeof *e);
}

/* Across datasets: alpha given for each of a point's K positions, E within
 * [1, K + 1], and K + 1 accepted-length counts that sum to the draws. */
static int check_across(const sv_h5_reader *r, const sv_sweep_run *a,
                        const sv_sweep_earlier *e)
{
    for (size_t i = 0; i < e->n; i++) {
        const size_t K = (size_t)e->K[i];
        char want[64];
        snprintf(want, sizeof want, "from 1 to K + 1 = %zu", K + 1);
        if (e->tokens[i] > (double)(K + 1))
            return sv_h5_bad_value(r, "tokens_analytic", i, SIZE_MAX, e->tokens[i], want);
        for (size_t k = 0; k < K; k++)
            if (isnan(e->analytic[i * SV_MAX_K + k]))
                return sv_h5_bad_value(r, "alpha_analytic", i, k, NAN,
                                       "a probability at each of the point's K positions");
        double sum = 0.0;
        for (size_t m = 0; m <= K; m++)
            sum += e->lengths[i * (SV_MAX_K + 1) + m];
        if (sum != (double)a->draws)
            return sv_fail(SV_EBAD, "%s: dataset 'accepted_lengths', row %zu: the counts of 0 "
                           "to K = %zu accepted sum to %.17g, not the sweep's draws, %llu",
                           r->path, i, K, sum, (unsigned long long)a->draws);
    }
    return SV_OK;
}

int sv_sweep_earlier_load(const char *dir, const sv_sweep_run *a, sv_sweep_earlier *e)
{
    char path[4096], text[1024], want[1024];
    memset(e, 0, sizeof *e);
    snprintf(path, sizeof path, "%s/sweep.h5", dir);
    char err[4200];
    if (sv_input_check(path, err, sizeof err) == SV_INPUT_UNREADABLE && errno == ENOENT) {
        fprintf(stderr, "specverify: --resume: no %s yet; running every point\n", path);
        return SV_OK;
    }
    sv_h5_reader r;
    int rc = sv_h5_open(&r, path);
    /* the file must be this sweep's: same case, sampler, seed, draws, level */
    const char *keys[5] = {"case", "sampler", "seed", "draws", "level"};
    for (int i = 0; rc == SV_OK && i < 5; i++) {
        switch (i) {
        case 0: snprintf(want, sizeof want, "%s", a->spec); break;
        case 1: snprintf(want, sizeof want, "%s", a->sampler); break;
        case 2: snprintf(want, sizeof want, "%llu", (unsigned long long)a->seed); break;
        case 3: snprintf(want, sizeof want, "%llu", (unsigned long long)a->draws); break;
        default: snprintf(want, sizeof want, "%.17g", a->level);
        }
        rc = sv_h5_read_attr(&r, keys[i], text, sizeof text);
        if (rc == SV_OK && strcmp(text, want) != 0)
            rc = sv_fail(SV_EBAD, "--resume: %s has %s '%s', this sweep '%s'; use another "
                         "--out or remove the file", path, keys[i], text, want);
    }
    /* every number is checked before it becomes a point (NaN: no T axis, alpha past K) */
    size_t cT = 0, nK = 0, cK = 0, nE = 0, cE = 0, nA = 0, cA = 0, nL = 0, cL = 0;
    if (rc == SV_OK)
        rc = sv_h5_read_checked(&r, "T", &e->T, &e->n, &cT, 0, 100, SV_H5_NAN_OK);
    if (rc == SV_OK)
        rc = sv_h5_read_checked(&r, "K", &e->K, &nK, &cK, 1, SV_MAX_K, SV_H5_WHOLE);
    if (rc == SV_OK)
        rc = sv_h5_read_checked(&r, "tokens_analytic", &e->tokens, &nE, &cE, 1, SV_MAX_K + 1, 0);
    if (rc == SV_OK)
        rc = sv_h5_read_checked(&r, "alpha_analytic", &e->analytic, &nA, &cA, 0, 1,
                                SV_H5_NAN_OK);
    if (rc == SV_OK)
        rc = sv_h5_read_checked(&r, "accepted_lengths", &e->lengths, &nL, &cL, 0,
                                9007199254740992.0 /* 2^53 */, SV_H5_WHOLE);
    if (rc == SV_OK && (cT || nK != e->n || cK || nE != e->n || cE || nA != e->n ||
                        cA != SV_MAX_K || nL != e->n || cL != SV_MAX_K + 1))
        rc = sv_fail(SV_EBAD, "%s: datasets disagree on the points: T %zu, K %zu, "
                     "tokens_analytic %zu, alpha_analytic %zu x %zu (expected x %d), "
                     "accepted_lengths %zu x %zu (expected x %d)", path, e->n, nK, nE, nA, cA,
                     SV_MAX_K, nL, cL, SV_MAX_K + 1);
    /* the distances, where the file has them (a sweep before they were kept has not) */
    for (int d = 0; rc == SV_OK && sv_h5_has_attr(&r, "distances") && d < 6; d++) {
        size_t nD = 0, cD = 0;
        rc = sv_h5_read_checked(&r, sv_sweep_distance_names[d], &e->dist[d], &nD, &cD,
                                d < 3 ? 0.0 : -INFINITY, d < 3 ? 1.0 : INFINITY, SV_H5_NAN_OK);
        if (rc == SV_OK && (nD != e->n || cD != SV_MAX_K + 1))
            rc = sv_fail(SV_EBAD, "%s: %s has %zu x %zu values, not %zu x %d", path,
                         sv_sweep_distance_names[d], nD, cD, e->n, SV_MAX_K + 1);
    }
    if (rc == SV_OK)
        rc = check_across(&r, a, e);
    sv_h5_close(&r);
    if (rc != SV_OK)
        sv_sweep_earlier_free(e);
    return rc;
}

int sv_sweep_earlier_take(const sv_sweep_earlier *e, const sv_sweep_run *a, double T,
                          int32_t K, sv_sweep_point *pt)
{
    for (size_t i = 0; i < e->n; i++) {
        if (!sv_same_T(e->T[i], T) || e->K[i] != (double)K)
            continue;
        pt->T = T, pt->K = K, pt->draws = a->draws;
        for (int32_t k = 0; k < K; k++)
            pt->analytic[k] = e->analytic[i * SV_MAX_K + (size_t)k];
        for (int32_t m = 0; m <= K; m++)
            pt->length[m] = (uint64_t)e->lengths[i * (SV_MAX_K + 1) + (size_t)m];
        sv_measured_alpha(pt->length, K, a->level, pt->measured);
        pt->tokens_analytic = e->tokens[i];
        pt->tokens_measured = sv_mean_tokens(pt->length, K);
        sv_mean_tokens_interval(pt->length, K, a->level, &pt->tokens_lo, &pt->tokens_hi);
        for (int32_t m = 0; m <= K; m++) { /* as the file kept them, or unmeasured */
            const size_t at = i * (SV_MAX_K + 1) + (size_t)m;
            pt->dist[m] = sv_distance_none();
            if (e->dist[0])
                pt->dist[m] = (sv_distance){e->dist[0][at], e->dist[1][at], e->dist[2][at],
                                            e->dist[3][at], e->dist[4][at], e->dist[5][at], 0};
        }
        return 1;
    }
    return 0;
}
