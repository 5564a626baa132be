/* test_cases.c: case specs, the families, validation, the logits pipeline. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "families.h"
#include "sv_cases.h"

static int spec_fails_with(const char *spec, const char *words)
{
    sv_case *c = NULL;
    char err[512] = "";
    int rc = sv_case_from_spec(spec, &c, err, sizeof err);
    sv_case_free(c);
    if (rc == 0 || !strstr(err, words)) {
        fprintf(stderr, "  spec '%s': rc %d, message '%s', wanted '%s'\n", spec, rc, err, words);
        return 0;
    }
    return 1;
}

/* Every key of every family: just past its ends is refused as out of
 * range, naming the range (whole ends as integers), unless -1 is one of
 * its values; a key bounded by V is refused just past V (support=65 with
 * V=64 was taken and meant "all"). */
static void audit_keys(void)
{
    for (size_t i = 0; i < sv_family_count(); i++) {
        const sv_family *f = sv_family_get(i);
        for (size_t j = 0; j < sv_family_param_count(f); j++) {
            const sv_family_param *fp = &f->params[j];
            const double step = fp->flags & SV_WHOLE ? 1.0 : 1e-6 * fmax(1.0, fabs(fp->max));
            char spec[160], words[96];
            snprintf(words, sizeof words, "%s=", fp->key);
            snprintf(spec, sizeof spec, "%s:%s=%.17g", f->name, fp->key, fp->max + step);
            CHECK(spec_fails_with(spec, "out of range"));
            CHECK(spec_fails_with(spec, words));
            snprintf(spec, sizeof spec, "%s:%s=%.17g", f->name, fp->key, fp->min - step);
            if (!(fp->flags & SV_OR_MINUS_ONE && fp->min - step == -1.0))
                CHECK(spec_fails_with(spec, "out of range"));
            if (!(fp->flags & (SV_UPTO_V | SV_BELOW_V)))
                continue;
            const int V = f->params[0].min > 64 ? (int)f->params[0].min : 64;
            const int over = fp->flags & SV_UPTO_V ? V + 1 : V;
            snprintf(spec, sizeof spec, "%s:V=%d,K=1,%s=%d", f->name, V, fp->key, over);
            snprintf(words, sizeof words, "%s=%d is out of range [%g, %d] with V=%d", fp->key,
                     over, fp->min, over - 1, V);
            CHECK(spec_fails_with(spec, words));
            snprintf(spec, sizeof spec, "%s:V=%d,K=1,%s=%d", f->name, V, fp->key, over - 1);
            sv_case *c = NULL;
            char err[512] = "";
            CHECK(sv_case_from_spec(spec, &c, err, sizeof err) == 0);
            sv_case_free(c);
        }
    }
    CHECK(spec_fails_with("markov:V=64,support=65",
                          "support=65 is out of range [0, 64] with V=64"));
    CHECK(spec_fails_with("logits:T2=-0.5", "T2=-0.5 is out of range [0, 100] or -1"));
    CHECK(spec_fails_with("logits:V=100,topk=101", "topk=101 is out of range [0, 100]"));
    CHECK(spec_fails_with("tail:V=20,head=20", "head=20 is out of range [1, 19] with V=20"));
    CHECK(spec_fails_with("zipf:V=2000000", "out of range [2, 1048576]"));
    CHECK(spec_fails_with("zipf:V=1e400", "V=1e400 is out of range [2, 1048576]"));
    CHECK(spec_fails_with("zipf:s=1e-320", "out of range: nearer 0 than a double holds"));
    CHECK(spec_fails_with("zipf:V=0x40", "V='0x40' is not a number"));
    CHECK(spec_fails_with("zipf:V=64 ", "V='64 ' is not a number"));
    CHECK(spec_fails_with("zipf:V=64,,K=2", "'V=64,,K=2': item 2 is empty"));
    CHECK(spec_fails_with("zipf:,V=64", "item 1 is empty"));
    CHECK(spec_fails_with("zipf:V=64,", "item 2 is empty"));
    const char *taken[] = {"logits:V=64,K=1,T2=-1", "peaked:V=64,K=1,T2=-1", "logits:V=64,T2=0",
                           "tail:V=20,K=1" /* head's default cut to 19 */,
                           "markov:V=64,K=1,support=64"};
    for (size_t i = 0; i < sizeof taken / sizeof taken[0]; i++) {
        sv_case *c = NULL;
        char err[512] = "";
        if (sv_case_from_spec(taken[i], &c, err, sizeof err) != 0) {
            fprintf(stderr, "  %s: %s\n", taken[i], err);
            CHECK(0);
        }
        sv_case_free(c);
    }
}

static sv_case *build(const char *spec)
{
    sv_case *c = NULL;
    char err[512];
    if (sv_case_from_spec(spec, &c, err, sizeof err) != 0)
        fprintf(stderr, "  %s\n", err);
    return c;
}

int main(void)
{
    CHECK(spec_fails_with("nope", "unknown family 'nope'"));
    CHECK(spec_fails_with("zipf:foo=1", "unknown parameter 'foo'"));
    CHECK(spec_fails_with("zipf:V=abc", "not a number"));
    CHECK(spec_fails_with("zipf:V=1", "out of range"));
    CHECK(spec_fails_with("zipf:K=0", "out of range"));
    CHECK(spec_fails_with("zipf:K=17", "out of range"));
    CHECK(spec_fails_with("zipf:V=10.5", "whole number"));
    CHECK(spec_fails_with("zipf:s=1,s=2", "given twice"));
    CHECK(spec_fails_with("zipf:s", "not key=value"));
    CHECK(spec_fails_with(":V=3", "expected family"));
    feature("case specs: errors name what is wrong");

    audit_keys();
    feature("case specs: every key refused past its range, V-bounded keys past V, -1 "
            "where it means 'same as T', empty items by position");

    {
        sv_case *c = build("zipf");
        CHECK(c && strcmp(c->name, "zipf:V=1000,K=8") == 0);
        sv_case_free(c);
        c = build("zipf:s=1.3,V=50,K=2");
        CHECK(c && strcmp(c->name, "zipf:V=50,K=2,s=1.3") == 0);
        CHECK(c && c->V == 50 && c->K == 2);
        sv_case_free(c);
    }
    feature("case specs: canonical names");

    {
        const char *specs[] = {"seedlab:V=64", "identical:V=64", "disjoint:V=64", "zipf:V=64",
                               "logits:V=64", "peaked:V=64", "greedy:V=64", "onehot:V=64",
                               "tail:V=2000,head=20", "tinytail:V=2000", "cumshort:V=2000"};
        char err[512];
        for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
            sv_case *c = build(specs[i]);
            CHECK(c != NULL);
            if (!c)
                continue;
            CHECK(sv_case_validate(c, err, sizeof err) == 0);
            /* positions differ from each other */
            CHECK(memcmp(c->target, c->target + c->V, (size_t)c->V * sizeof(float)) != 0);
            sv_case_free(c);
        }
    }
    feature("every family builds valid rows, different per position");

    {
        sv_case *same = build("identical:V=100,K=3"), *apart = build("disjoint:V=100,K=3");
        sv_case *seed = build("seedlab:V=100,K=2"), *onehot = build("onehot:V=100,K=2");
        for (int32_t k = 0; k < 3; k++) {
            CHECK_NEAR(sv_case_alpha(same, k), 1.0, 1e-6);
            CHECK(sv_case_alpha(apart, k) == 0.0);
        }
        /* independent sums: min(p, 1/V) for the uniform drafter, q.p one-hot */
        double a = 0.0, b = 0.0, s = 0.0;
        for (int32_t i = 0; i < 100; i++)
            s += seed->target[i];
        for (int32_t i = 0; i < 100; i++)
            a += fmin(seed->target[i] / s, 0.01);
        CHECK_NEAR(sv_case_alpha(seed, 0), a, 1e-6);
        CHECK(onehot->draft_probs_given == 0);
        for (int32_t i = 0; i < 100; i++)
            b += (double)onehot->target[100 + i] * onehot->draft[100 + i];
        CHECK_NEAR(sv_case_alpha(onehot, 1), b, 1e-6);
        double dist[100], sum = 0.0;
        CHECK(sv_case_accepted_dist(onehot, 1, dist) == 0);
        for (int32_t i = 0; i < 100; i++)
            sum += dist[i];
        CHECK_NEAR(sum, 1.0, 1e-12);
        CHECK_NEAR(dist[7], (double)onehot->target[107] * onehot->draft[107] / b, 1e-6);
        sv_case_free(same);
        sv_case_free(apart);
        sv_case_free(seed);
        sv_case_free(onehot);
    }
    feature("alpha and the accepted distribution");

    {
        double logits[5] = {0.5, 2.0, -1.0, 2.0, 1.0};
        float p[5];
        sv_softmax(logits, 5, 0.0, p);
        CHECK(p[1] == 1.0f && p[0] == 0.0f && p[3] == 0.0f); /* tie: lowest index */
        sv_softmax(logits, 5, 1.0, p);
        double sum = 0.0;
        for (int i = 0; i < 5; i++)
            sum += p[i];
        CHECK_NEAR(sum, 1.0, 1e-6);
        CHECK_NEAR(p[1] / p[0], exp(1.5), 1e-5);
        sv_softmax(logits, 5, 0.5, p);
        CHECK_NEAR(p[1] / p[0], exp(3.0), 1e-4);
    }
    feature("softmax with temperature; T = 0 is greedy, ties to the lowest index");

    {
        /* ranks: 1 and 3 (logit 2, index 1 first), 4, 0, 2 */
        double logits[5] = {0.5, 2.0, -1.0, 2.0, 1.0};
        float p[5], plain[5];
        sv_sampling s = {1.0, 0, 1.0};
        CHECK(sv_logits_to_probs(logits, 5, &s, p) == 0);
        sv_softmax(logits, 5, 1.0, plain);
        CHECK(memcmp(p, plain, sizeof p) == 0); /* no cut: sv_softmax bit for bit */

        s.top_k = 1; /* the tie at the top goes to the lower index */
        CHECK(sv_logits_to_probs(logits, 5, &s, p) == 0);
        CHECK(p[1] == 1.0f && p[3] == 0.0f);

        s.top_k = 3; /* keeps 1, 3, 4: weights e^2, e^2, e^1 */
        CHECK(sv_logits_to_probs(logits, 5, &s, p) == 0);
        double z = 2.0 * exp(2.0) + exp(1.0);
        CHECK_NEAR(p[1], exp(2.0) / z, 1e-7);
        CHECK_NEAR(p[3], exp(2.0) / z, 1e-7);
        CHECK_NEAR(p[4], exp(1.0) / z, 1e-7);
        CHECK(p[0] == 0.0f && p[2] == 0.0f);

        /* probabilities 0.5, 0.3, 0.2 by logs: top-p 0.75 keeps two (0.8 >= 0.75),
         * top-p 0.45 keeps one, the token that crosses the mass is kept */
        double three[3] = {log(0.3), log(0.5), log(0.2)};
        float q[3];
        sv_sampling c = {1.0, 0, 0.75};
        CHECK(sv_logits_to_probs(three, 3, &c, q) == 0);
        CHECK_NEAR(q[1], 0.625, 1e-7);
        CHECK_NEAR(q[0], 0.375, 1e-7);
        CHECK(q[2] == 0.0f);
        c.top_p = 0.45;
        CHECK(sv_logits_to_probs(three, 3, &c, q) == 0);
        CHECK(q[1] == 1.0f && q[0] == 0.0f && q[2] == 0.0f);

        /* top-k first, then top-p over what is left: k = 2 gives 0.625, 0.375;
         * top-p 0.6 then keeps the first alone */
        c.top_k = 2;
        c.top_p = 0.6;
        CHECK(sv_logits_to_probs(three, 3, &c, q) == 0);
        CHECK(q[1] == 1.0f && q[0] == 0.0f);

        c.T = 0.0; /* greedy ignores the cuts */
        CHECK(sv_logits_to_probs(three, 3, &c, q) == 0);
        CHECK(q[1] == 1.0f);

        /* a logits family with cuts: exactly topk tokens have p > 0, in target
         * and drafter alike */
        sv_case *k20 = NULL;
        char err[256];
        CHECK(sv_case_from_spec("logits:V=1000,K=2,topk=20", &k20, err, sizeof err) == 0);
        for (int32_t k = 0; k20 && k <= 2; k++) {
            int nonzero_p = 0, nonzero_q = 0;
            for (int32_t i = 0; i < 1000; i++) {
                nonzero_p += k20->target[k * 1000 + i] > 0.0f;
                nonzero_q += k < 2 && k20->draft[k * 1000 + i] > 0.0f;
            }
            CHECK(nonzero_p == 20);
            CHECK(k == 2 || nonzero_q == 20);
        }
        sv_case_free(k20);
    }
    feature("top-k and top-p: ranks, ties, the crossing token kept, k before p");

    {
        sv_case *c = sv_case_alloc(1, 3);
        char err[512];
        snprintf(c->name, sizeof c->name, "crafted");
        float good[3] = {0.2f, 0.3f, 0.5f};
        memcpy(c->target, good, sizeof good);
        memcpy(c->target + 3, good, sizeof good);
        memcpy(c->draft, good, sizeof good);
        CHECK(sv_case_validate(c, err, sizeof err) == 0);
        c->target[4] = NAN;
        CHECK(sv_case_validate(c, err, sizeof err) != 0 && strstr(err, "not finite") &&
              strstr(err, "target row 2, token 1"));
        c->target[4] = -0.1f;
        CHECK(sv_case_validate(c, err, sizeof err) != 0 && strstr(err, "negative"));
        c->target[4] = 0.3f;
        c->draft[0] = 0.25f;
        CHECK(sv_case_validate(c, err, sizeof err) != 0 && strstr(err, "draft row 1") &&
              strstr(err, "sums to 1.05"));
        sv_case_free(c);
    }
    feature("validation: NaN, negative, bad sums named with row and token");

    return check_exit();
}
