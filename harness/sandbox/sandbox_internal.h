/* sandbox_internal.h: the sandbox's parts (sandbox_layers.c the layers a
 * process puts on itself, sandbox_mode.c the mode and the probe,
 * sandbox_spawn.c the sampler's process, sandbox_relay.c its output,
 * sandbox_sweep.c what it leaves behind, sandbox_traps.c trapped calls and in-process
 * exits). */
#ifndef SV_SANDBOX_INTERNAL_H
#define SV_SANDBOX_INTERNAL_H

#include <stddef.h>
#include <sys/types.h>
#include "sv_sandbox.h"

#define SV_WHY_LEN 200

#include <seccomp.h>

/* A comparison of a system call's first argument (libseccomp's SCMP_A0
 * macros leave datum_b out, which clang's warnings refuse). */
static inline struct scmp_arg_cmp sv_seccomp_arg0(enum scmp_compare op, scmp_datum_t a,
                                                  scmp_datum_t b)
{
    return (struct scmp_arg_cmp){.arg = 0, .op = op, .datum_a = a, .datum_b = b};
}

/* sandbox_layers.c: each 0, or -1 with why */
int sv_layer_nopriv(char *why, size_t len);
/* own_signals_only > 0: signals only to that pid (no PID namespace);
 * notify_fd non-NULL: the watched calls go to the listener put there */
int sv_layer_seccomp(pid_t own_signals_only, int *notify_fd, char *why, size_t len);
/* LeakSanitizer's exit check off in this process (sandbox_lsan.c) */
void sv_sandbox_no_leak_check(void);
int sv_layer_landlock(const char *scratch, char *why, size_t len);

/* sandbox_watch.c: the calls that name a path, to be looked at (filter: a
 * libseccomp context; 0 or its error); in the init, once, the harness's pid;
 * then one notification served: 1 with the attempt in words in said (the
 * call refused), 0 when it went on, -1 when the listener is gone */
int sv_watch_rules(void *filter);
void sv_watch_setup(pid_t harness);
int sv_watch_serve(int notify_fd, char *said, size_t len);

/* sandbox_paths.c: base and path joined and normalised (0, or -1 when too
 * long); an absolute path with its longest existing prefix made real; the
 * protected folder that holds a real path, or NULL */
int sv_path_join(const char *base, const char *path, char *out, size_t len);
void sv_path_real(const char *abs, char *out, size_t len);
const char *sv_sandbox_protected(const char *real);

/* sandbox_mode.c: layers denied by SPECVERIFY_SANDBOX_DENY (for the
 * fallbacks' tests), as SV_LAYER_ bits */
unsigned sv_sandbox_denied(void);
/* sv_sandbox_fork under the layers given, not the mode's (sandbox_fit.c's trials). */
pid_t sv_sandbox_fork_layers(sv_sandboxed *box, const char *label, unsigned layers);
/* sandbox_fit.c: the layers to take off so that the registered check works
 * in a process confined under the rest (0: none, or none helps); why says
 * what failed under them. */
unsigned sv_sandbox_fit_layers(unsigned layers, char *why, size_t len);
int sv_sandbox_fit_wanted(void);

/* sandbox_relay.c */
int sv_relay_start(sv_sandboxed *box);
void sv_relay_stop(sv_sandboxed *box);

/* sandbox_proc.c: pid's session and state letter ('Z' a zombie), -1 if
 * gone; the pids listed in a /proc file (a task's children), at most max */
pid_t sv_proc_session(pid_t pid, char *state);
int sv_proc_read_pids(const char *path, pid_t *out, int max);
/* A task's status file's NSpid line: how many namespaces deep it is (0 if
 * gone), its pid in the innermost in *innermost */
int sv_proc_nspid(const char *status_path, pid_t *innermost);

/* sandbox_sweep.c: without a PID namespace, kills every process of the
 * session sid and every stray child of this process (a subreaper) outside
 * the sessions of the sampler processes still live. */
void sv_sweep_register(pid_t sid);
/* How many processes it killed. */
int sv_sweep(pid_t sid);
void sv_sweep_become_subreaper(void);

#endif
