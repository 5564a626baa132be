/* test_declared_rule.c: a sampler whose tokens fit p but whose accepted
 * lengths follow another rule's law gets a FAIL that names the rule (issue
 * 38): ref_exact (exact match: keep a draft while a fresh target sample
 * equals it) declared as the chain rule. Its lengths follow sum p q, not
 * sum min(p, q); at 20,000 draws of zipf:V=50,K=3 the two laws' means differ
 * by many standard errors, so the chain's law fails at any seed. A sampler
 * that accepts no drafts (direct) fits neither law and keeps the usual words. */
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "sv_base.h"
#include "sv_check.h"
#include "sv_registry.h"

static sv_report *run(const sv_sampler *s)
{
    static const char *const specs[] = {"zipf:V=50,K=3"};
    static const uint64_t draws[] = {20000};
    sv_verify_config cfg = {.sampler = s, .specs = specs, .draws = draws, .n_cases = 1,
                            .seed = 7, .alpha = 1e-6, .batch = 4096, .threads = 1,
                            .input = SV_INPUT_PROBS};
    sv_report *r = NULL;
    CHECK(sv_verify(&cfg, &r) == SV_OK);
    CHECK(r && r->n_cases == 1);
    return r;
}

/* the run's finding about the accepted length, or "" */
static const char *length_finding(const sv_run_eval *ev)
{
    for (int32_t i = 0; i < ev->n_findings; i++)
        if (strncmp(ev->findings[i], "accepted length", 15) == 0)
            return ev->findings[i];
    return "";
}

int main(void)
{
    sv_sampler declared = *sv_registry_find("ref_exact");
    declared.rule = SV_RULE_CHAIN;
    sv_report *r = run(&declared);
    const sv_run_eval *ev = &r->cases[0].runs[r->cases[0].n_runs - 1];
    CHECK(ev->length_verdict == SV_FAIL);
    for (int32_t k = 0; k <= ev->K; k++)
        CHECK(ev->pos[k].verdict == SV_PASS); /* its tokens fit p */
    CHECK(strstr(length_finding(ev), "follow exact match's law (sum p q), not the chain "
                                     "rule's: is the declared rule right?") != NULL);
    printf("%s\n", length_finding(ev));
    sv_report_free(r);
    feature("an exact-match verifier declared as the chain rule: the FAIL names the rule");

    r = run(sv_registry_find("direct"));
    ev = &r->cases[0].runs[r->cases[0].n_runs - 1];
    CHECK(ev->length_verdict == SV_FAIL);
    CHECK(strstr(length_finding(ev), "exact match") == NULL);
    CHECK(strstr(length_finding(ev), "accepts no drafts") != NULL);
    sv_report_free(r);
    feature("a sampler that accepts no drafts: no other rule named");
    return check_exit();
}
