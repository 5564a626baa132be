/* report_junit.c: JUnit XML for CI systems: one <testcase> per case and check
 * (contract, each position, accepted length, each independence test; for a
 * Markov-pair case, contract and the sequence transitions). */
#include <stdlib.h>
#include <string.h>
#include "sv_report.h"

/* s as XML text or attribute. What reaches here was escaped where it came in
 * (sv_escape); text that was not is escaped now, since XML 1.0 allows no
 * control character but tab and newline, even written as a reference. */
static void xml_text(FILE *f, const char *text)
{
    const size_t room = 4 * strlen(text) + 1;
    char *safe = malloc(room);
    if (safe)
        sv_escape_stored(safe, room, text);
    for (const char *s = safe ? safe : ""; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
    free(safe);
}

/* A contract finding: a request that broke it (contract.c's words), or a
 * sampler that failed or crashed. */
static int is_contract(const char *finding)
{
    return strncmp(finding, "request ", 8) == 0 || strncmp(finding, "sampler ", 8) == 0 ||
           strstr(finding, "broke the contract") != NULL;
}

/* The findings of a run that mention `key` (all if key is NULL; those of the
 * contract if key is "contract"). */
static void findings(FILE *f, const sv_run_eval *ev, const char *key)
{
    for (int32_t i = 0; i < ev->n_findings; i++)
        if (!key || (strcmp(key, "contract") == 0 ? is_contract(ev->findings[i])
                                                  : strstr(ev->findings[i], key) != NULL)) {
            xml_text(f, ev->findings[i]);
            fputs("; ", f);
        }
}

static void testcase(FILE *f, const char *cls, const char *check, sv_verdict v,
                     const sv_run_eval *ev, const char *key, double p)
{
    fputs("    <testcase classname=\"", f);
    xml_text(f, cls);
    fprintf(f, "\" name=\"%s\" time=\"0\">", check);
    if (v == SV_FAIL) {
        fprintf(f, "<failure message=\"%s: p = %.3g\">", check, p);
        findings(f, ev, key);
        fputs("</failure>", f);
    } else if (v == SV_NA) {
        fputs("<skipped message=\"no test possible at this N\"/>", f);
    } else if (v == SV_SUSPECT) {
        fprintf(f, "<system-out>SUSPECT: p = %.3g; ", p);
        findings(f, ev, key);
        fputs("</system-out>", f);
    }
    fputs("</testcase>\n", f);
}

int sv_report_junit(const sv_report *r, const char *path)
{
    sv_atomic_file af;
    int rc = sv_atomic_open(&af, path);
    if (rc != SV_OK)
        return rc;
    FILE *f = af.fp;
    size_t tests = 0, failures = 0, skipped = 0;
    for (size_t i = 0; i < r->n_cases; i++) {
        const sv_run_eval *ev = &r->cases[i].runs[r->cases[i].n_runs - 1];
        if (ev->chain) {
            tests += 3;
            failures += (ev->contract_verdict == SV_FAIL) + (ev->seq_verdict == SV_FAIL) +
                        (ev->length_verdict == SV_FAIL);
            skipped += (ev->seq_verdict == SV_NA) + (ev->length_verdict == SV_NA);
            continue;
        }
        tests += 6 + (size_t)ev->K + 1;
        failures += (ev->batch_verdict == SV_FAIL) + (ev->seed_verdict == SV_FAIL);
        skipped += (ev->batch_verdict == SV_NA) + (ev->seed_verdict == SV_NA);
        failures += ev->contract_verdict == SV_FAIL;
        failures += ev->length_verdict == SV_FAIL;
        failures += ev->indep_seq_verdict == SV_FAIL;
        failures += ev->indep_pos_verdict == SV_FAIL;
        skipped += (ev->length_verdict == SV_NA) + (ev->indep_seq_verdict == SV_NA) +
                   (ev->indep_pos_verdict == SV_NA);
        for (int32_t k = 0; k <= ev->K; k++) {
            failures += ev->pos[k].verdict == SV_FAIL;
            skipped += ev->pos[k].verdict == SV_NA;
        }
    }
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
    fprintf(f, "  <testsuite name=\"specverify.");
    xml_text(f, r->sampler);
    fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%d\" skipped=\"%zu\" time=\"%.3f\">\n",
            tests + (r->interrupted != 0), failures, r->interrupted != 0, skipped, r->seconds);
    if (r->interrupted) /* partial: say so where CI looks */
        fprintf(f, "    <testcase classname=\"specverify\" name=\"run\"><error message=\"interrupted "
                "by %s: %zu of %zu cases ran, the last cut short; partial results\"/>"
                "</testcase>\n", sv_signal_name(r->interrupted), r->n_cases, r->n_planned);
    for (size_t i = 0; i < r->n_cases; i++) {
        const sv_case_report *cr = &r->cases[i];
        const sv_run_eval *ev = &cr->runs[cr->n_runs - 1];
        testcase(f, cr->name, "contract", ev->contract_verdict, ev, "contract", 0.0);
        if (ev->chain) {
            testcase(f, cr->name, "sequence transitions", ev->seq_verdict, ev, "sequence:",
                     ev->seq_chi2.p < ev->seq_g.p ? ev->seq_chi2.p : ev->seq_g.p);
            testcase(f, cr->name, "accepted length", ev->length_verdict, ev, "accepted length",
                     ev->length.p);
            continue;
        }
        for (int32_t k = 0; k <= ev->K; k++) {
            char check[32], key[32];
            snprintf(check, sizeof check, "position %d", k + 1);
            snprintf(key, sizeof key, "position %d:", k + 1);
            const sv_position_eval *pe = &ev->pos[k];
            double p = pe->chi2.p < pe->g.p ? pe->chi2.p : pe->g.p;
            testcase(f, cr->name, check, pe->verdict, ev, key, p < pe->tv_p ? p : pe->tv_p);
        }
        testcase(f, cr->name, "accepted length", ev->length_verdict, ev, "accepted length",
                 ev->length.p);
        testcase(f, cr->name, "independence of consecutive sequences", ev->indep_seq_verdict,
                 ev, "consecutive sequences", ev->indep_seq.p);
        testcase(f, cr->name, "independence of positions 1 and 2", ev->indep_pos_verdict, ev,
                 "positions 1 and 2", ev->indep_pos.p);
        testcase(f, cr->name, "batch composition", ev->batch_verdict, ev, "batch composition",
                 0.0);
        testcase(f, cr->name, "seed sensitivity", ev->seed_verdict, ev, "seed sensitivity", 0.0);
    }
    fprintf(f, "  </testsuite>\n</testsuites>\n");
    return sv_atomic_commit(&af);
}
