/* mutants_table.h: the rows of `specverify mutants`'s detection table, and
 * how the table is printed and written (Markdown and HDF5). */
#ifndef SV_MUTANTS_TABLE_H
#define SV_MUTANTS_TABLE_H
#include <stdint.h>
#include <stdio.h>
#include "sv_cases.h"
#include "sv_sampler.h"

enum { C_CONTRACT, C_FIT, C_TV, C_LENGTH, C_INDEP, C_SEQ, C_BATCH, C_SEED, N_CHECKS };
extern const char *const sv_mutant_check_names[N_CHECKS];

typedef struct mutant_row {
    const sv_sampler *sampler;
    double min_p[N_CHECKS];   /* smallest p over cases; NAN: the check never applied */
    signed char failed[N_CHECKS];
    double power;             /* predicted P(caught) at the draws run; NAN: unknown */
    double needed;            /* draws for the target power on the best case; NAN */
    char needed_case[SV_CASE_NAME_MAX];
    uint64_t draws;
    signed char caught, is_hard;
    signed char cut_short;    /* an interrupted run: the table holds what it finished */
} mutant_row;


void sv_mutants_print(const mutant_row *rows, size_t n, FILE *out, int markdown);
/* "CAUGHT", "MISSED", "MISSED (hard)", "CAUGHT (cut short)", "CUT SHORT" */
const char *sv_mutant_result(const mutant_row *m);
/* partial: NULL, or what cut the run short (the file is then FILE.partial);
 * not_run: "" or the variants that could not run here, and why. */
int sv_mutants_write_markdown(const char *path, const mutant_row *rows, size_t n,
                              const char *suite, uint64_t seed, double alpha, double target,
                              int full, const char *partial, const char *not_run);
int sv_mutants_write_h5(const char *path, const mutant_row *rows, size_t n, const char *suite,
                        uint64_t seed, double alpha, double target, const char *partial,
                        const char *not_run);

/* The table as data (mutants_json.c): what the Python API's mutants() reads. */
int sv_mutants_write_json(const char *path, const mutant_row *rows, size_t n, const char *suite,
                          uint64_t seed, double alpha, double target, int full,
                          const char *partial, const char *not_run);

#endif
