/* recorded_args.h: the command-line options that turn a recording into
 * cases (--recorded FILE[:GROUP], --steps, --T, --top-k, --top-p,
 * --mismatch-T), shared by verify and bench. */
#ifndef SV_RECORDED_ARGS_H
#define SV_RECORDED_ARGS_H

#include <stddef.h>
#include <stdint.h>

typedef struct sv_recorded_opts {
    const char *path;       /* --recorded FILE[:GROUP]; NULL: none given */
    const char *steps;      /* --steps LIST|FROM:TO; NULL: every step */
    const char *T, *top_k, *top_p, *mismatch_T, *K; /* as given; NULL: defaults */
} sv_recorded_opts;

/* Any pipeline option without --recorded is an error (exit 2). */
int sv_recorded_opts_check(const sv_recorded_opts *o);

/* "recorded:file=...[,group=..][,K=..][,T=..][,top_k=..][,top_p=..][,mismatch_T=..]",
 * every step. Checks the file's layout now, so a bad file fails before any
 * draw. Returns SV_OK or SV_EBAD. */
int sv_recorded_base_spec(const sv_recorded_opts *o, char *out, size_t len, int64_t *steps);

/* One spec per selected step (at most max): *specs is an array of strings
 * for sv_recorded_specs_free. */
int sv_recorded_expand(const sv_recorded_opts *o, size_t max, char ***specs, size_t *n);
void sv_recorded_specs_free(char **specs, size_t n);

#endif
