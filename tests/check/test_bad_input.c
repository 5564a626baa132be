/* test_bad_input.c: bad distributions and sizes get an error that names the
 * case, the row, the token and the value, never a crash:
 * - rows with NaN, infinite or negative values, rows that do not sum to 1,
 *   rows that are all zero, V = 1, K = 0 or K above the contract's 16;
 * - draft tokens with q = 0: the harness draws drafts from q, and a token of
 *   probability 0 is never drawn (recorded drafts are checked by the reader,
 *   test_recorded);
 * - B x (K+1) x V that overflows size_t or exceeds this machine's memory: the
 *   message gives the sizes and the bytes asked for. */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "sv_base.h"
#include "sv_cases.h"
#include "sv_run.h"
#include "sv_sampler.h"

/* A valid case: K = 2 drafts over V = 4 tokens, uniform rows. */
static sv_case *uniform_case(void)
{
    sv_case *c = sv_case_alloc(2, 4);
    snprintf(c->name, sizeof c->name, "crafted");
    for (int32_t i = 0; i < 3 * 4; i++)
        c->target[i] = 0.25f;
    for (int32_t i = 0; i < 2 * 4; i++)
        c->draft[i] = 0.25f;
    return c;
}

/* sv_case_validate fails and its message holds every fragment given. */
static int refused(const sv_case *c, const char *a, const char *b)
{
    char err[512] = "";
    int rc = sv_case_validate(c, err, sizeof err);
    int ok = rc != 0 && strstr(err, a) && (!b || strstr(err, b));
    if (!ok)
        fprintf(stderr, "  validate -> %d, '%s' (wanted '%s'%s%s)\n", rc, err, a,
                b ? " and " : "", b ? b : "");
    return ok;
}

static void test_rows(void)
{
    sv_case *c = uniform_case();
    char err[512];
    CHECK(sv_case_validate(c, err, sizeof err) == 0);
    c->target[4 + 2] = INFINITY; /* target row 2, token 2 */
    CHECK(refused(c, "case crafted, target row 2, token 2: probability inf is not finite", NULL));
    c->target[4 + 2] = -INFINITY;
    CHECK(refused(c, "target row 2, token 2: probability -inf is not finite", NULL));
    c->target[4 + 2] = NAN;
    CHECK(refused(c, "target row 2, token 2: probability nan is not finite", NULL));
    c->target[4 + 2] = -0.25f;
    CHECK(refused(c, "target row 2, token 2: probability -0.25 is negative", NULL));
    c->target[4 + 2] = 0.25f;
    c->draft[4 + 1] = 0.2625f; /* draft row 2 sums to 1.0125 */
    CHECK(refused(c, "case crafted, draft row 2: row sums to 1.0125, expected 1 +- 1e-3", NULL));
    c->draft[4 + 1] = 0.25f;
    for (int32_t i = 0; i < 4; i++)
        c->target[8 + i] = 0.0f; /* the bonus row, all zero */
    CHECK(refused(c, "case crafted, target row 3: every probability is 0", "no token"));
    for (int32_t i = 0; i < 4; i++)
        c->target[8 + i] = 0.25f;
    CHECK(sv_case_validate(c, err, sizeof err) == 0);
    sv_case_free(c);
    feature("rows: inf, -inf, NaN, negative, bad sum, all zero: named by case, row and token");
}

static void test_shapes(void)
{
    sv_case *c = uniform_case();
    c->V = 1; /* the rows are larger than one token needs: only the shape is wrong */
    CHECK(refused(c, "case crafted: V = 1 is outside [2, 1048576]", "single token"));
    c->V = 4;
    c->K = 0;
    CHECK(refused(c, "case crafted: K = 0 is outside [1, 16]", "no drafts"));
    c->K = 17;
    CHECK(refused(c, "case crafted: K = 17 is outside [1, 16]", NULL));
    c->K = 2;
    sv_case_free(c);

    /* the same through specs, as users give them */
    const char *bad[][2] = {
        {"zipf:V=1", "V=1 is out of range [2,"},
        {"zipf:K=0", "K=0 is out of range [1, 16]"},
        {"logits:K=17", "K=17 is out of range [1, 16]"},
        {"markov:V=1", "V=1 is out of range [16, 4096]"},
        {"logits:T=-0.5", "T=-0.5 is out of range [0, 100]"},
        {"logits:T=nan", "T='nan' is not a number"},
        {"binary:p=1.5", "p=1.5 is out of range [0, 1]"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sv_case *s = NULL;
        char err[512] = "";
        int rc = sv_case_from_spec(bad[i][0], &s, err, sizeof err);
        if (rc == 0 || s || !strstr(err, bad[i][1])) {
            fprintf(stderr, "  %s -> %d, '%s' (wanted '%s')\n", bad[i][0], rc, err, bad[i][1]);
            CHECK(0);
        }
        sv_case_free(s);
    }
    feature("shapes: V = 1, K = 0, K = 17 refused, in rows and in specs");
}

/* Drafts come from q: a token of q = 0 is never a draft, on a case where q
 * is 0 on every even token. */
static void test_drafts_q0(void)
{
    sv_case *c = NULL;
    char err[512];
    CHECK(sv_case_from_spec("disjoint:V=64,K=3", &c, err, sizeof err) == 0);
    if (!c)
        return;
    int zeros = 0;
    for (int32_t i = 0; i < 64; i++)
        zeros += c->draft[i] == 0.0f;
    CHECK(zeros == 32);
    sv_drafter *d = NULL;
    CHECK(sv_drafter_alloc(c, &d) == SV_OK);
    gsl_rng *r = gsl_rng_alloc(sv_gsl_rng_philox);
    uint64_t with_q0 = 0;
    for (uint64_t i = 0; i < 200000; i++) {
        int32_t x[SV_MAX_K];
        sv_drafter_draw(d, r, 7, i, x);
        for (int32_t k = 0; k < c->K; k++)
            with_q0 += x[k] < 0 || x[k] >= c->V || c->draft[(size_t)k * c->V + x[k]] == 0.0f;
    }
    CHECK(with_q0 == 0);
    gsl_rng_free(r);
    sv_drafter_free(d);
    sv_case_free(c);
    feature("drafts: 600000 drafts from q, none outside [0, V) or with q = 0");
}

static void test_sizes(void)
{
    uint64_t bytes = 0;
    CHECK(sv_rows_bytes("small", 64, 5, 1000, &bytes) == SV_OK);
    CHECK(bytes == 64ull * 11 * 1000 * 4); /* B (2K + 1) V floats */

    int rc = sv_rows_bytes("huge", SIZE_MAX / 8, 16, 1 << 20, &bytes);
    const char *msg = sv_error_message();
    CHECK(rc == SV_EBAD && strstr(msg, "huge: B x (K+1) x V = ") && strstr(msg, " x 17 x 1048576") &&
          strstr(msg, "do not fit in size_t"));
    if (rc != SV_EBAD)
        fprintf(stderr, "  overflow -> %d '%s'\n", rc, msg);

    /* 2^20 x 33 x 2^20 x 4 bytes = 132 TiB: more than any machine this runs on */
    rc = sv_rows_bytes("bench", 1 << 20, 16, 1 << 20, &bytes);
    msg = sv_error_message();
    CHECK(rc == SV_EBAD && strstr(msg, "bench: B x (K+1) x V = 1048576 x 17 x 1048576") &&
          strstr(msg, "take 145135534866432 bytes") && strstr(msg, "of memory"));
    if (rc != SV_EBAD)
        fprintf(stderr, "  too large -> %d '%s'\n", rc, msg);
    feature("sizes: B x (K+1) x V overflowing size_t or beyond memory, with the bytes");
}

static void test_signal_names(void)
{
    CHECK(strstr(sv_crash_signal_name(SIGSEGV), "SIGSEGV (segmentation fault"));
    CHECK(strstr(sv_crash_signal_name(SIGBUS), "SIGBUS"));
    CHECK(strstr(sv_crash_signal_name(SIGFPE), "SIGFPE"));
    CHECK(strstr(sv_crash_signal_name(SIGILL), "SIGILL"));
    CHECK(strstr(sv_crash_signal_name(SIGABRT), "SIGABRT (abort"));
    feature("crashes: each caught signal named in words");
}

int main(void)
{
    test_rows();
    test_shapes();
    test_drafts_q0();
    test_sizes();
    test_signal_names();
    return check_exit();
}
