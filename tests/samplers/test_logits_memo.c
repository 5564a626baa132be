/* test_logits_memo.c: ref_logits's memo of converted rows is keyed by what
 * the logits are, never by where: the same logits at another address (as
 * an aliased mix maps them) are found again, and are exactly the rows a
 * fresh conversion gives; logits changed in place, or another sampling
 * rule over the same logits, are converted anew. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "logits_memo.h"
#include "logits_rows.h"

#define NV 300
#define NK 2

static sv_batch one(const float *target, const float *draft, double T)
{
    sv_batch b = {.B = 1, .K = NK, .V = NV, .input = SV_INPUT_LOGITS_F32, .temperature = T,
                  .top_k = 0, .top_p = 1.0};
    b.target_logits = target;
    b.draft_logits = draft;
    return b;
}

/* The rows as converted afresh, to compare with. */
static int fresh_equal(const float *got, const float *logits, int rows, double T, double *work)
{
    float row[NV];
    for (int r = 0; r < rows; r++) {
        sv_logits_row_probs(logits + r * NV, 0, NV, T, 0, 1.0, row, work);
        if (memcmp(row, got + r * NV, sizeof row) != 0)
            return 0;
    }
    return 1;
}

int main(void)
{
    const int rows = 2 * NK + 1;
    float *a = malloc(sizeof(float) * rows * NV), *b = malloc(sizeof(float) * rows * NV);
    double *work = malloc(2 * NV * sizeof *work);
    sv_logits_memo *m = sv_logits_memo_alloc(NK, NV, (size_t)1 << 20);
    CHECK(a && b && work && m);
    if (!a || !b || !work || !m)
        return check_exit();
    for (int i = 0; i < rows * NV; i++)
        a[i] = (float)((i * 37 % 101) - 50) / 10.0f;
    memcpy(b, a, sizeof(float) * rows * NV); /* the same logits elsewhere */

    sv_batch x = one(a, a + (NK + 1) * NV, 0.8);
    const float *first = sv_logits_memo_rows(m, &x, work);
    CHECK(fresh_equal(first, a, rows, 0.8, work));
    sv_batch y = one(b, b + (NK + 1) * NV, 0.8);
    CHECK(sv_logits_memo_rows(m, &y, work) == first);
    feature("the same logits at another address are found again: one entry, the fresh rows");

    b[NV + 7] += 1.0f; /* changed in place: the same address, other logits */
    const float *changed = sv_logits_memo_rows(m, &y, work);
    CHECK(changed != first && fresh_equal(changed, b, rows, 0.8, work));
    sv_batch z = one(a, a + (NK + 1) * NV, 1.3);
    const float *hotter = sv_logits_memo_rows(m, &z, work);
    CHECK(hotter != first && fresh_equal(hotter, a, rows, 1.3, work));
    CHECK(sv_logits_memo_rows(m, &x, work) == first && fresh_equal(first, a, rows, 0.8, work));
    feature("logits changed in place, or another temperature, are converted anew; the first "
            "entry is kept");

    sv_logits_memo_free(m);
    free(a);
    free(b);
    free(work);
    return check_exit();
}
