/* test_logits.c: logits input on the CPU.
 *
 * 1. The rank-threshold method (samplers/logits_rows.c, cuda_fused's) and the
 *    sorting twin (distributions/logits.c) give the same p on random rows,
 *    with exact ties, +-0, float and bfloat16, greedy, top-k, top-p and both:
 *    the same kept tokens, and each p_i within 4 float ulps (the method's
 *    weights are kernels/sv_softmax.h's float ones, within about 3 ulps of
 *    the twin's double softmax rounded once).
 *    sv_softmax_split4 (the kernels' four logits at a time) gives
 *    sv_softmax_split's n and f bits, in range, at the clamp and past it,
 *    for NaN, +-inf and +-0.
 * 2. verify --input logits-f32 and logits-bf16 passes ref_logits (family-wise
 *    false-alarm rate 1e-6 per run, seed fixed).
 * 3. Power: a sampler that ignores top_p (ref_logits told top_p = 1) FAILS
 *    the top-p case. It emits tokens the cut removed (target probability 0)
 *    in about a quarter of the draws, and its TV distance from p is about
 *    0.05 at every position, 2.5 times the smallest this N detects with
 *    probability 1 - 7e-9 (min-det in the report), so it cannot pass. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include "check.h"
#include "sv_bf16.h"
#include "logits_rows.h"
#include "sv_registry.h"
#include "sv_softmax.h"
#include "sv_base.h"
#include "sv_cases.h"
#include "sv_check.h"
#include "sv_report.h"

static double worst_ulps; /* the largest |p_twin - p_method| seen, in ulps of p */

/* One row through both; 1 when they agree. */
static int agree(const double *l, int32_t V, int bf16, const sv_sampling *s, float *a, float *b,
                 double *work, void *raw)
{
    double *as_read = work + 2 * (size_t)V;
    for (int32_t i = 0; i < V; i++) {
        if (bf16) {
            ((uint16_t *)raw)[i] = sv_bf16_from_float((float)l[i]);
            as_read[i] = sv_bf16_to_float(((uint16_t *)raw)[i]);
        } else {
            ((float *)raw)[i] = (float)l[i];
            as_read[i] = (float)l[i];
        }
    }
    if (sv_logits_to_probs(as_read, V, s, a) != 0)
        return 0;
    sv_logits_row_probs(raw, bf16, V, s->T, s->top_k, s->top_p, b, work);
    for (int32_t i = 0; i < V; i++) {
        const double ulps = fabs((double)a[i] - (double)b[i]) / (ldexp(1.0, -24) * fmax(a[i], b[i]));
        if (a[i] > 0.0f && ulps > worst_ulps)
            worst_ulps = ulps;
        if ((a[i] > 0.0f) != (b[i] > 0.0f) || ulps > 4.0) {
            fprintf(stderr, "  V=%d %s T=%g top_k=%d top_p=%g: token %d: twin %.9g, method %.9g\n",
                    V, bf16 ? "bf16" : "f32", s->T, s->top_k, s->top_p, i, (double)a[i],
                    (double)b[i]);
            return 0;
        }
    }
    return 1;
}

static void method_matches_twin(void)
{
    const int32_t Vs[] = {7, 1000, 4099};
    const sv_sampling rules[] = {{1.0, 0, 1.0},  {0.7, 0, 1.0},  {0.0, 0, 1.0}, {1.0, 50, 1.0},
                                 {1.5, 0, 0.9},  {0.8, 50, 0.9}, {1.0, 1, 1.0}, {2.0, 0, 0.5},
                                 {0.3, 3, 0.99}, {1.0, 0, 1e-6}};
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 20261123);
    size_t rows = 0, agreed = 0;
    for (size_t iv = 0; iv < sizeof Vs / sizeof Vs[0]; iv++) {
        const int32_t V = Vs[iv];
        double *l = malloc((size_t)V * sizeof *l), *work = malloc(3 * (size_t)V * sizeof *work);
        float *a = malloc((size_t)V * sizeof *a), *b = malloc((size_t)V * sizeof *b);
        void *raw = malloc((size_t)V * sizeof(float));
        for (int rep = 0; rep < 8; rep++) {
            for (int32_t i = 0; i < V; i++) {
                l[i] = gsl_ran_gaussian(r, rep < 4 ? 2.0 : 6.0);
                if (rep % 2) /* coarse values: many exact ties, and -0 beside +0 */
                    l[i] = i % 5 == 0 ? (i % 10 ? -0.0 : 0.0) : round(l[i] * 2.0) / 2.0;
            }
            for (size_t ir = 0; ir < sizeof rules / sizeof rules[0]; ir++)
                for (int bf16 = 0; bf16 <= 1; bf16++) {
                    rows++;
                    agreed += (size_t)agree(l, V, bf16, &rules[ir], a, b, work, raw);
                }
        }
        free(l);
        free(work);
        free(a);
        free(b);
        free(raw);
    }
    gsl_rng_free(r);
    printf("  %zu of %zu rows agree; the largest difference of a p_i: %.2f ulps\n", agreed, rows,
           worst_ulps);
    CHECK(rows == 480 && agreed == rows);
    feature("rank threshold (cuda_fused's method) = sorting twin: same kept set, p within 4 ulps");
}

/* sv_softmax_split4 = sv_softmax_split, logit by logit, bit for bit. */
static void split4_matches_split(void)
{
    const double Ts[] = {0.001, 0.7, 1.0, 3.0, 1e30};
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 20261124);
    size_t quads = 0, slow = 0, differ = 0;
    for (size_t it = 0; it < sizeof Ts / sizeof Ts[0]; it++) {
        const sv_softmax_scale sc = sv_softmax_scale_of(Ts[it]);
        /* values about the clamp, and those the fast test must send away */
        const float edge[] = {0.0f, -0.0f, sc.lmax, -sc.lmax, nextafterf(sc.lmax, INFINITY),
                              -nextafterf(sc.lmax, INFINITY), 0.5f * sc.lmax, INFINITY,
                              -INFINITY, NAN, FLT_MAX, -FLT_MAX, 1e-40f};
        const int n_edge = (int)(sizeof edge / sizeof edge[0]);
        for (int rep = 0; rep < 20000; rep++) {
            float l[4];
            for (int j = 0; j < 4; j++) {
                const double scale = rep % 3 == 0 ? 4.0 : rep % 3 == 1 ? 0.3 * sc.lmax : 30.0;
                l[j] = rep % 5 == 4 && j == rep % 4 ? edge[(rep / 5) % n_edge]
                                                    : (float)gsl_ran_gaussian(r, scale);
            }
            int32_t n4[4], n1;
            float f4[4], f1;
            sv_softmax_split4(l, sc, n4, f4);
            const float sum = fabsf(l[0]) + fabsf(l[1]) + fabsf(l[2]) + fabsf(l[3]);
            slow += !(sum <= sc.lmax);
            quads++;
            for (int j = 0; j < 4; j++) {
                n1 = sv_softmax_split(l[j], sc, &f1);
                if (n1 != n4[j] || memcmp(&f1, &f4[j], sizeof f1) != 0) {
                    if (differ++ < 5)
                        fprintf(stderr, "  T=%g logit %.9g: split n %d f %a, split4 n %d f %a\n",
                                Ts[it], (double)l[j], n1, (double)f1, n4[j], (double)f4[j]);
                }
            }
        }
    }
    gsl_rng_free(r);
    printf("  %zu quads, %zu of them past the one test\n", quads, slow);
    CHECK(differ == 0);
    CHECK(slow > quads / 10 && slow < quads); /* both paths taken, often */
    feature("sv_softmax_split4 = sv_softmax_split: same n and f bits, in range and past it");
}

static sv_report *run(const sv_sampler *s, int32_t input, const char *const *specs,
                      const uint64_t *draws, size_t n)
{
    sv_verify_config cfg = {.sampler = s, .suite = "test", .specs = specs, .draws = draws,
                            .n_cases = n, .seed = 1, .alpha = 1e-6, .batch = 4096,
                            .threads = 2, .rerun_suspects = 1, .input = input};
    sv_report *r = NULL;
    if (sv_verify(&cfg, &r) != SV_OK) {
        fprintf(stderr, "  verify: %s\n", sv_error_message());
        return NULL;
    }
    sv_report_text(r, stdout);
    return r;
}

/* ref_logits told top_p = 1 whatever the batch says: broken on purpose. */
static int no_top_p_verify(void *state, const sv_batch *bt)
{
    sv_batch copy = *bt;
    copy.top_p = 1.0;
    return sv_sampler_ref_logits.verify(state, &copy);
}

int main(void)
{
    method_matches_twin();
    split4_matches_split();

    const char *specs[] = {"logits:V=1000,K=4,T=0.7,topk=50", "onehot:V=500,K=3,topp=0.9",
                           "logits:V=4099,K=3,T=0", "logits:V=1000,K=3,T=1.5,topp=0.8"};
    const uint64_t draws[] = {300000, 300000, 100000, 300000};
    for (int32_t input = SV_INPUT_LOGITS_F32; input <= SV_INPUT_LOGITS_BF16; input++) {
        sv_report *r = run(&sv_sampler_ref_logits, input, specs, draws, 4);
        CHECK(r && r->n_cases == 4 && r->failed == 0 && r->input == input);
        sv_report_free(r);
    }
    feature("ref_logits passes logits-f32 and logits-bf16 input (1e-6 family-wise)");

    const sv_sampler no_top_p = {"no_top_p", "test: ignores top_p", SV_MEM_HOST,
                                 sv_sampler_ref_logits.init, no_top_p_verify,
                                 sv_sampler_ref_logits.destroy, sv_sampler_ref_logits.inputs, 0,
                                 SV_RULE_CHAIN};
    const char *cut[] = {"logits:V=1000,K=3,T=1.5,topp=0.8"};
    const uint64_t cut_draws[] = {300000};
    sv_report *r = run(&no_top_p, SV_INPUT_LOGITS_F32, cut, cut_draws, 1);
    CHECK(r && r->failed == 1);
    sv_report_free(r);
    feature("a sampler that ignores top_p FAILS the top-p case");
    return check_exit();
}
