/* experiment.h: an experiment file as `specverify run` reads it (cmd_run.c)
 * and runs it (run_exec.c). */
#ifndef SV_EXPERIMENT_H
#define SV_EXPERIMENT_H

#include <stdio.h>
#include "sv_cli.h"

#define MAX_RUNS 32
#define MAX_RUN_ARGS 96
#define MAX_TEXT 512

typedef struct run_spec {
    char name[64];
    char command[32];
    const sv_command_flags *flags;  /* the command's own */
    int argc;
    char *argv[MAX_RUN_ARGS];       /* malloc'ed words after the command */
} run_spec;

typedef struct experiment {
    const char *path, *out_root;
    char dir[MAX_TEXT];             /* the file's folder, inputs' base; "" for the working one */
    char description[MAX_TEXT];
    run_spec runs[MAX_RUNS];
    int n_runs;
    FILE *file;
    int lines_read;                 /* by read_line: the line inih is on */
    int long_line;                  /* the first line too long for inih, or 0 */
    char error[512];                /* the first error the handler found */
    int error_line;
} experiment;

/* out, json, junit, plot: the flags that name an output, under --out-root */
int experiment_is_output(const char *flag);
/* Each selected run's outputs lie under the root, links followed (SV_EBAD). */
int experiment_outputs_inside(const experiment *x, const char *only);
/* The folders each selected run's outputs go to, made as the run would. */
int experiment_make_folders(const experiment *x, const char *only);
/* Every selected run checked by `specverify preflight` before the first runs. */
int experiment_preflight(const experiment *x, const char *only);
/* One run as its own process (preflight: under `specverify preflight`). */
int experiment_run_one(const run_spec *r, int preflight, int *signal);
/* The run's command line, each word escaped. */
void experiment_print_command(FILE *out, const run_spec *r);

#endif
