/* isolation_args.h: --in-process and --call-timeout, the same in every
 * command that runs the sampler under test (verify, calibrate, mutants,
 * sweep). */
#ifndef SV_ISOLATION_ARGS_H
#define SV_ISOLATION_ARGS_H

#include <getopt.h>

enum { SV_O_IN_PROCESS = 900, SV_O_CALL_TIMEOUT };

/* Two getopt_long entries for a command's option table. */
#define SV_ISOLATION_OPTIONS                                           \
    {"in-process", no_argument, NULL, SV_O_IN_PROCESS},                \
    {"call-timeout", required_argument, NULL, SV_O_CALL_TIMEOUT}

#define SV_CALL_TIMEOUT_DEFAULT 600.0

#define SV_ISOLATION_HELP                                                                   \
    "  --call-timeout S  stop a sampler call that has not returned after S seconds and\n"   \
    "                  FAIL the case, naming the call (default 600; 0: no limit)\n"          \
    "  --in-process    call the sampler in this process, not in a child of its own:\n"      \
    "                  for a debugger, or a little speed; an exit, an abort or a crash\n"   \
    "                  on a thread of the sampler's then ends the run without reports,\n"   \
    "                  and a call that passes --call-timeout ends it too (README,\n"         \
    "                  'Isolation')\n"

typedef struct sv_isolation {
    int in_process;
    double call_timeout;
} sv_isolation;

/* Takes getopt_long's opt when it is one of the two: returns 1 (with *rc
 * SV_OK or SV_EBAD and a message), else 0. */
int sv_isolation_option(int opt, const char *arg, sv_isolation *iso, int *rc);

#endif
