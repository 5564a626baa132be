/* mutants_table.c: `specverify mutants`'s detection table, printed and
 * written: one row per broken variant, a cell per check. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mutants_table.h"
#include "sv_base.h"
#include "sv_store.h"

const char *const sv_mutant_check_names[N_CHECKS] = {"contract", "fit", "TV", "length",
                                                  "independence", "sequence",
                                                  "composition", "seed"};


static void fmt_p(char *buf, size_t len, double p, int failed)
{
    if (isnan(p))
        snprintf(buf, len, "-");
    else if (failed && p == 0.0)
        snprintf(buf, len, "FAIL");
    else if (p < 1e-4)
        snprintf(buf, len, "%s%.1e", failed ? "*" : "", p);
    else
        snprintf(buf, len, "%s%.3f", failed ? "*" : "", p);
}

static void fmt_count(char *buf, size_t len, double x)
{
    if (isnan(x))
        snprintf(buf, len, "-");
    else if (isinf(x))
        snprintf(buf, len, "never");
    else
        snprintf(buf, len, "%.3g", x);
}

const char *sv_mutant_result(const mutant_row *m)
{
    if (m->cut_short)
        return m->caught ? "CAUGHT (cut short)" : "CUT SHORT";
    return m->caught ? "CAUGHT" : (m->is_hard ? "MISSED (hard)" : "MISSED");
}

void sv_mutants_print(const mutant_row *rows, size_t n, FILE *out, int markdown)
{
    const char *fmt = markdown ? "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n"
                               : "%-27s %9s %9s %9s %9s %12s %9s %11s %9s %9s %10s  %s\n";
    fprintf(out, fmt, "variant", "contract", "fit", "TV", "length", "independence",
            "sequence", "composition", "seed", "power", "draws for", "result");
    if (markdown)
        fprintf(out, "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < n; i++) {
        const mutant_row *m = &rows[i];
        char cell[N_CHECKS][24], power[24], needed[24];
        for (int c = 0; c < N_CHECKS; c++)
            fmt_p(cell[c], sizeof cell[c], m->min_p[c], m->failed[c]);
        if (isnan(m->power))
            snprintf(power, sizeof power, "n/a");
        else
            snprintf(power, sizeof power, "%.4f", m->power);
        fmt_count(needed, sizeof needed, m->needed);
        fprintf(out, fmt, m->sampler->name, cell[C_CONTRACT], cell[C_FIT], cell[C_TV],
                cell[C_LENGTH], cell[C_INDEP], cell[C_SEQ], cell[C_BATCH], cell[C_SEED], power,
                needed, sv_mutant_result(m));
    }
}

int sv_mutants_write_markdown(const char *path, const mutant_row *rows, size_t n,
                              const char *suite, uint64_t seed, double alpha, double target,
                              int full, const char *partial, const char *not_run)
{
    sv_atomic_file f;
    int rc = sv_atomic_open(&f, path);
    if (rc != SV_OK)
        return rc;
    fprintf(f.fp, "# Broken variants against the `%s` suite%s\n\n", suite,
            full ? " (--full)" : "");
    if (partial)
        fprintf(f.fp, "**PARTIAL: %s.** The rows are what finished; a variant cut short ran "
                "on the draws it finished.\n\n", partial);
    fprintf(f.fp, "Made by `specverify mutants --suite %s%s --seed %llu --alpha %g`, "
            "specverify %s.\n\n", suite, full ? " --full" : "", (unsigned long long)seed, alpha,
            SV_VERSION);
    fprintf(f.fp, "Cells: the smallest p-value of that check over the suite's cases "
            "(`*` below the Bonferroni threshold, FAIL for a contract violation, - where the "
            "check never applied). composition and seed are the probes of mixed batches: "
            "FAIL when a seeded sequence's tokens changed with its neighbours; seed's p, the "
            "chance that a sampler following its seeds repeats every probed sequence, when "
            "all were repeated. power: P(caught) predicted before sampling from the "
            "variant's output distribution in closed form (n/a: none). draws for: draws of "
            "the best single case for power %g.\n\n", target);
    sv_mutants_print(rows, n, f.fp, 1);
    if (not_run[0])
        fprintf(f.fp, "\nNot run: %s.\n", not_run);
    fprintf(f.fp, "\nBest cases for the draws column:\n\n");
    for (size_t i = 0; i < n; i++)
        if (rows[i].needed_case[0])
            fprintf(f.fp, "- %s: `%s`\n", rows[i].sampler->name, rows[i].needed_case);
    return sv_atomic_commit(&f);
}

int sv_mutants_write_h5(const char *path, const mutant_row *rows, size_t n, const char *suite,
                        uint64_t seed, double alpha, double target, const char *partial,
                        const char *not_run)
{
    sv_h5 f;
    int rc = sv_h5_create(&f, path);
    if (rc != SV_OK)
        return rc;
    const size_t m = n ? n : 1; /* an interrupted run may have no rows; calloc(0) may be NULL */
    const char **names = calloc(m, sizeof *names), **cases = calloc(m, sizeof *cases);
    double *min_p = calloc(m * N_CHECKS, sizeof *min_p), *power = calloc(m, sizeof *power);
    double *needed = calloc(m, sizeof *needed), *draws = calloc(m, sizeof *draws);
    signed char *failed = calloc(m * N_CHECKS, 1), *caught = calloc(m, 1), *is_hard = calloc(m, 1);
    if (!names || !cases || !min_p || !power || !needed || !draws || !failed || !caught ||
        !is_hard) {
        rc = sv_fail(SV_EENV, "out of memory");
    } else {
        for (size_t i = 0; i < n; i++) {
            names[i] = rows[i].sampler->name;
            cases[i] = rows[i].needed_case;
            for (int c = 0; c < N_CHECKS; c++) {
                min_p[i * N_CHECKS + c] = rows[i].min_p[c];
                failed[i * N_CHECKS + c] = rows[i].failed[c];
            }
            power[i] = rows[i].power;
            needed[i] = rows[i].needed;
            draws[i] = (double)rows[i].draws;
            caught[i] = rows[i].caught;
            is_hard[i] = rows[i].is_hard;
        }
        char num[64], when[32];
        time_t now = time(NULL);
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
        rc = sv_h5_strings(&f, "variants", names, n);
        if (rc == SV_OK) rc = sv_h5_strings(&f, "checks", sv_mutant_check_names, N_CHECKS);
        if (rc == SV_OK) rc = sv_h5_doubles(&f, "min_p", min_p, n, N_CHECKS);
        if (rc == SV_OK) rc = sv_h5_bytes(&f, "failed", failed, n, N_CHECKS);
        if (rc == SV_OK) rc = sv_h5_doubles(&f, "predicted_power", power, n, 0);
        if (rc == SV_OK) rc = sv_h5_doubles(&f, "draws_needed", needed, n, 0);
        if (rc == SV_OK) rc = sv_h5_strings(&f, "draws_needed_case", cases, n);
        if (rc == SV_OK) rc = sv_h5_doubles(&f, "draws_run", draws, n, 0);
        if (rc == SV_OK) rc = sv_h5_bytes(&f, "caught", caught, n, 0);
        if (rc == SV_OK) rc = sv_h5_bytes(&f, "hard", is_hard, n, 0);
        if (rc == SV_OK) rc = sv_h5_attr(&f, "suite", suite);
        snprintf(num, sizeof num, "%llu", (unsigned long long)seed);
        if (rc == SV_OK) rc = sv_h5_attr(&f, "seed", num);
        snprintf(num, sizeof num, "%g", alpha);
        if (rc == SV_OK) rc = sv_h5_attr(&f, "family_alpha", num);
        snprintf(num, sizeof num, "%g", target);
        if (rc == SV_OK) rc = sv_h5_attr(&f, "target_power", num);
        if (rc == SV_OK) rc = sv_h5_attr(&f, "specverify_version", SV_VERSION);
        if (rc == SV_OK) rc = sv_h5_attr(&f, "created", when);
        if (rc == SV_OK && partial) rc = sv_h5_attr(&f, "partial", partial);
        if (rc == SV_OK && not_run[0]) rc = sv_h5_attr(&f, "not_run", not_run);
    }
    free(names);
    free(cases);
    free(min_p);
    free(power);
    free(needed);
    free(draws);
    free(failed);
    free(caught);
    free(is_hard);
    if (rc != SV_OK) {
        sv_h5_abort(&f);
        return rc;
    }
    return sv_h5_commit(&f);
}

