/* mutants_logits.c: the cases `mutants` gives a broken variant that takes
 * logits input (argmax_when_mixed, top_p_from_first,
 * greedy_sampled_when_mixed): their bugs live in the logits path and in
 * batches that mix sampling rules, which a probability suite never reaches.
 * They run with logits-f32 input on the `logits` suite's cases of one
 * vocabulary (V = 1000: greedy, sampled, top-p and a one-hot drafter's
 * rows mixed in every batch), at the suite's draws for `full` and a tenth
 * of them otherwise (each is caught within 20000: tests/check/test_mutants.c). */
#include <string.h>
#include "sv_cli.h"
#include "sv_cases.h"

int sv_mutants_takes_logits(const sv_sampler *s)
{
    return (s->inputs & SV_INPUT_BIT(SV_INPUT_LOGITS_F32)) != 0;
}

size_t sv_mutants_logits_cases(const char *suite, const char **specs, uint64_t *draws,
                               size_t max)
{
    const sv_suite *logits = sv_suite_find("logits");
    size_t n = 0;
    for (size_t i = 0; logits && i < logits->n_entries && n < max; i++) {
        const char *spec = logits->entries[i].spec;
        if (!strstr(spec, "V=1000,") || strncmp(spec, "logits:", 7) != 0)
            continue; /* one vocabulary, and a drafter with probabilities: one mix */
        specs[n] = spec;
        draws[n++] = strcmp(suite, "full") == 0 ? logits->entries[i].draws
                                                : logits->entries[i].draws / 10;
    }
    return n;
}
