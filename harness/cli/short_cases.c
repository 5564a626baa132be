/* short_cases.c: a case built for a rare bug (hard_cases.c: the float32
 * tail, a 2^-24 coin) that ran on fewer draws than its power against that
 * bug needs is said in the report, so `--draws N`, `--draws-scale` or a
 * budget cannot cut the very draws the case exists for unseen (issue 38). */
#include <string.h>
#include "sv_cli.h"
#include "sv_stats.h"

int sv_note_short_cases(sv_report *r, const char *const *specs, size_t n, double target)
{
    r->power_target = target;
    for (size_t s = 0; s < n && r->n_short < SV_MAX_SHORT_CASES; s++) {
        const char *variant = sv_hard_built_for(specs[s], r->rule);
        if (!variant)
            continue;
        char err[256];
        sv_case *c = NULL;
        if (sv_case_from_spec(specs[s], &c, err, sizeof err) != 0)
            return sv_fail(SV_EBAD, "%s", err);
        int rc = SV_OK;
        for (size_t i = 0; i < r->n_cases && rc == SV_OK; i++) {
            const sv_case_report *cr = &r->cases[i];
            if (strcmp(cr->name, c->name) != 0)
                continue;
            sv_power_report pw;
            rc = sv_case_power(variant, c, cr->runs[cr->n_runs - 1].draws, r->split_alpha,
                               target, &pw);
            if (rc == SV_OK && pw.known && pw.power < target)
                r->short_cases[r->n_short++] =
                    (struct sv_short_case){i, variant, pw.power, pw.needed};
            break;
        }
        sv_case_free(c);
        if (rc != SV_OK)
            return rc;
    }
    return SV_OK;
}
