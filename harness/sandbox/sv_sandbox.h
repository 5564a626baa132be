/* sv_sandbox.h: the sandbox the sampler under test runs in.
 *
 * The sampler's process (forked by the sampler host, harness/run/host_*.c)
 * is confined in layers, each stopping an attack a hostile sampler can make
 * on the harness that judges it (docs/isolation.md has the threat model):
 *
 *   nodump    the harness is not dumpable: /proc/<harness>/mem, ptrace and
 *             process_vm_writev need a capability the sampler lacks
 *   nopriv    the sampler's process holds no capabilities and sets
 *             no-new-privileges (no setuid program gives them back)
 *   seccomp   ptrace, process_vm_readv/writev refused (libseccomp); without
 *             a PID namespace, signals only to its own process and group
 *   pidns     a PID namespace of its own: it sees and signals only its own
 *             tree, and the whole tree is killed when its process ends
 *   landlock  file system writes only under a scratch folder of its own
 *             (its HOME and TMPDIR), /dev/shm and the devices it needs
 *   watch     the calls that name a path stop for a look by the namespace's
 *             init: an open of the harness's memory or a write into the
 *             reports' folders is refused, named, and ends the sampler
 *
 * Its standard output and error reach the harness's stderr through a relay
 * that escapes and labels every line, so nothing it prints can pass for the
 * harness's words. The default (auto) uses every layer the machine allows
 * and says which it could not; strict refuses to run without all of them
 * (exit 3); off uses none (the child process alone). */
#ifndef SV_SANDBOX_H
#define SV_SANDBOX_H

#include <pthread.h>
#include <stddef.h>
#include <sys/types.h>

typedef enum { SV_SANDBOX_AUTO = 0, SV_SANDBOX_STRICT, SV_SANDBOX_OFF } sv_sandbox_mode;

enum {
    SV_LAYER_NODUMP = 1u << 0,
    SV_LAYER_NOPRIV = 1u << 1,
    SV_LAYER_SECCOMP = 1u << 2,
    SV_LAYER_PIDNS = 1u << 3,
    SV_LAYER_LANDLOCK = 1u << 4,
    SV_LAYER_WATCH = 1u << 5,
    SV_LAYERS_ALL = (1u << 6) - 1
};

/* "auto", "strict", "off" -> mode; -1 for anything else. */
int sv_sandbox_mode_parse(const char *s);

/* Sets the mode and finds which layers this machine allows (a probe in a
 * child of its own, once a process). SV_OK; under strict, SV_EENV with a
 * message naming each layer that cannot be set up and why. */
int sv_sandbox_setup(sv_sandbox_mode mode);
sv_sandbox_mode sv_sandbox_get_mode(void);
/* The layers the sampler's process gets (after sv_sandbox_setup; with no
 * setup, auto's). */
unsigned sv_sandbox_layers(void);
/* One line for the report's header: the layers in force, then those
 * missing with why ("sandbox: nodump nopriv seccomp pidns landlock"). */
const char *sv_sandbox_summary(void);

/* A check run in a process confined like a sampler's: 1 if it holds, else
 * 0 with why. present: whether the machine has what works needs at all
 * (run unconfined). Once a process, before the first sampler's process,
 * where present holds and works does not under every layer, the fewest
 * layers whose removal lets works hold are taken off and named in the
 * summary (sandbox_fit.c; not under strict). The CLI registers CUDA's. */
typedef int (*sv_sandbox_check)(char *why, size_t len);
void sv_sandbox_set_fit(sv_sandbox_check present, sv_sandbox_check works);

/* ---- the sampler's process -------------------------------------------------- */

/* A sandboxed process as its parent holds it. */
typedef struct sv_sandboxed {
    pid_t pid;          /* what to wait for and kill: the namespace's init, or the process */
    int pidns;          /* 1: pid is an init that relays its one child's end */
    int status_fd;      /* pidns: where the init writes the sampler's wait status; -1 */
    int relay_fd;       /* the read end of the process's stdout and stderr; -1 */
    unsigned layers;    /* the layers it was started under */
    pthread_t relay;    /* the thread that relays its output */
    int relaying;
    int relay_up;       /* the relay thread has started (atomic builtins) */
    int stop;           /* the relay's signal to finish (atomic builtins) */
    const char *label;  /* whose output: the sampler's name */
    int left;           /* after sv_sandbox_end: processes it left running, killed */
    char attempt[256];  /* after sv_sandbox_end: what it tried that the watch named, or "" */
    int has_end;        /* the init's last report, read early by sv_sandbox_sweep: */
    int end_status;     /* its status and left (attempt above) */
    int end_left;
} sv_sandboxed;

/* Forks the sampler's process: returns 0 in it (still unconfined: it calls
 * sv_sandbox_enter once its own set-up is done), its pid in the parent, -1
 * with errno on failure. With a PID namespace, an init of the harness's
 * own stands between the two and relays the sampler's end. Call from one
 * thread at a time. */
pid_t sv_sandbox_fork(sv_sandboxed *box, const char *label);
/* In the sampler's process, before any of its code runs: confines it.
 * keep_fds[0..n) are the descriptors it keeps besides 0-2 (sockets, memory
 * files); the rest are closed. SV_OK, or SV_EENV with why in err. */
int sv_sandbox_enter(const int *keep_fds, int n, char *err, size_t len);
/* A plugin's load probe (samplers/plugin.c, through sv_plugin_set_confine):
 * the harness side before its fork, and in the probe before the plugin's
 * code runs: a session of its own, stdout onto stderr, and the layers but
 * the PID namespace (its signals are its own). */
void sv_sandbox_before_probe(void);
void sv_sandbox_confine_probe(void);

/* In the parent once the process is reaped (status from waitpid): the
 * sampler's own wait status where an init relayed it, else status. Then
 * kills whatever the sampler left running (the namespace is gone with its
 * init; without one, every process of its session), stops the relay, and
 * frees what the box held. Returns the sampler's status; box->left counts
 * the processes it had left running. */
int sv_sandbox_end(sv_sandboxed *box, int status);

/* A system call the sandbox trapped, in words: "kill(pid 1, Stopped
 * (signal))" (nr and its first arguments, from the SIGSYS it raised). */
void sv_sandbox_describe_call(int nr, long a0, long a1, long a2, char *out, size_t len);
/* From a SIGSYS handler's siginfo_t and context: the trapped call's number
 * and first three arguments; 0 if the signal is not a seccomp trap. */
int sv_sandbox_trapped_call(const void *siginfo, const void *context, int *nr, long args[3]);

/* An output's folder (its own when is_folder, else the file's): a write
 * there by a sampler is named as an attempt on the reports (the CLI, as it
 * parses an output flag; before any sampler's process is forked). */
void sv_sandbox_protect(const char *path, int is_folder);
/* The scratch folder sampler processes write in (their HOME and TMPDIR),
 * made on first use and removed when the process exits; NULL if it cannot
 * be made. */
const char *sv_sandbox_scratch(void);

/* ---- a server of samplers' processes (sandbox_server.c) ---------------------- */

/* A PID namespace's init asked to kill every process in it but its own
 * child's (the orphans of what that child forked and what they started):
 * how many were running, or -1 (no namespace, or no answer within wait
 * seconds, or the init has ended). */
int sv_sandbox_sweep(sv_sandboxed *box, double wait);

/* The exit status of a sampler's process whose server vanished under it
 * (its watch may have named an attempt: sv_sandbox_server_attempt). */
#define SV_SANDBOX_SERVER_LOST 70

/* fd: a descriptor every sampler's process keeps (sv_sandbox_enter), its
 * way to the server; -1 for none. */
void sv_sandbox_keep_fd(int fd);
int sv_sandbox_kept_fd(void);
/* box: the server's sandbox (from sv_sandbox_fork), the caller's to keep. */
void sv_sandbox_server(sv_sandboxed *box);
/* After a sampler's process ended: if the server has ended (waiting up to
 * `wait` seconds for it), its sandbox is ended and forgotten, and 1 is
 * returned with what its watch named in attempt when it named one; if it
 * serves still, its init sweeps what the processes it forked left. Either
 * way the processes left running are added to *left. */
int sv_sandbox_server_news(char *attempt, size_t len, int *left, double wait);

/* ---- in-process calls (--in-process) ------------------------------------------ */

/* On the calling thread and the threads it starts: an exit_group (the
 * sampler's _exit, os._exit, syscall(SYS_exit_group)) traps with SIGSYS
 * instead, which the guard tells as a finding; exits the harness makes
 * itself go through sv_sandbox_exit. Once a thread; 0, or -1 when the
 * kernel refuses (the guard then cannot tell an _exit). */
int sv_sandbox_trap_exits(void);
/* 1 if the SIGSYS described (a handler's siginfo_t and context) is a trapped
 * exit_group, with the status it asked for in *status (-1: not known here). */
int sv_sandbox_is_trapped_exit(const void *siginfo, const void *context, int *status);
/* Ends the process with status, past the trap (async-signal-safe). */
__attribute__((noreturn)) void sv_sandbox_exit(int status);

#endif
