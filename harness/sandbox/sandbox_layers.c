/* sandbox_layers.c: the layers one process puts on itself (sv_sandbox.h):
 * no privileges, system-call rules, and Landlock's file system rules. Each
 * returns 0, or -1 with why in `why`; the probe (sandbox_mode.c) and the
 * sampler's process (sandbox_spawn.c) call the same functions, so what the
 * report's header says is what the sampler gets. */
#define _GNU_SOURCE
#include <cap-ng.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <linux/landlock.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "sandbox_internal.h"

/* Newer rights than Debian's header may know; the kernel says which it has. */
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif

int sv_layer_nopriv(char *why, size_t len)
{
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        snprintf(why, len, "prctl(PR_SET_NO_NEW_PRIVS): %s", strerror(errno));
        return -1;
    }
    capng_clear(CAPNG_SELECT_ALL);
    if (capng_apply(CAPNG_SELECT_ALL) == 0)
        return 0;
    /* a process that cannot change its bounding set may hold nothing to drop */
    capng_get_caps_process();
    if (capng_have_capabilities(CAPNG_SELECT_CAPS) == CAPNG_NONE)
        return 0;
    snprintf(why, len, "cannot drop its capabilities (capng_apply)");
    return -1;
}

/* How a forbidden call is stopped: trapped (SIGSYS: the sampler's process
 * records it and dies, and the harness names the call), or with the watch
 * sent to the namespace's init, which names it whichever process of the
 * sampler's tree made it (a Python sampler's interpreter is a child). */
static uint32_t stop_action = SCMP_ACT_TRAP;

/* Stops syscall where the rule's one comparison holds, or always. */
static int trap(scmp_filter_ctx ctx, int syscall_nr, int ncmp, struct scmp_arg_cmp cmp)
{
    return ncmp ? seccomp_rule_add(ctx, stop_action, syscall_nr, 1, cmp)
                : seccomp_rule_add(ctx, stop_action, syscall_nr, 0);
}

/* The calls that signal a process named by their first argument. */
static const int signal_calls[] = {SCMP_SYS(kill), SCMP_SYS(tgkill), SCMP_SYS(rt_sigqueueinfo),
                                   SCMP_SYS(rt_tgsigqueueinfo)};

int sv_layer_seccomp(pid_t own_signals_only, int *notify_fd, char *why, size_t len)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx) {
        snprintf(why, len, "seccomp_init failed");
        return -1;
    }
    const struct scmp_arg_cmp none = {0};
    stop_action = notify_fd ? SCMP_ACT_NOTIFY : SCMP_ACT_TRAP;
    /* another process's memory: the harness's above all */
    int rc = trap(ctx, SCMP_SYS(ptrace), 0, none);
    rc = rc ? rc : trap(ctx, SCMP_SYS(process_vm_readv), 0, none);
    rc = rc ? rc : trap(ctx, SCMP_SYS(process_vm_writev), 0, none);
    /* signals (pid 1 matched on its low 32 bits, all the kernel reads; any
     * pid but its own, on all 64, so that high bits cannot slip one past):
     * in a PID namespace, none to its init, the one process there not its
     * own (the kernel would drop them; trapped, the attempt is named);
     * without one, none but to itself */
    const int n_signal_calls = (int)(sizeof signal_calls / sizeof signal_calls[0]);
    for (int i = 0; rc == 0 && i < n_signal_calls; i++)
        rc = own_signals_only > 0
                 ? trap(ctx, signal_calls[i], 1,
                        sv_seccomp_arg0(SCMP_CMP_NE, (uint32_t)own_signals_only, 0))
                 : trap(ctx, signal_calls[i], 1, sv_seccomp_arg0(SCMP_CMP_MASKED_EQ, 0xffffffffu, 1));
    if (own_signals_only > 0) {
        rc = rc ? rc : trap(ctx, SCMP_SYS(tkill), 0, none);
        rc = rc ? rc : trap(ctx, SCMP_SYS(pidfd_send_signal), 0, none);
    }
    if (rc == 0 && notify_fd) /* the calls that name a path: the init looks (sandbox_watch.c) */
        rc = sv_watch_rules(ctx);
    if (rc == 0)
        rc = seccomp_load(ctx);
    if (rc == 0 && notify_fd && (*notify_fd = seccomp_notify_fd(ctx)) < 0)
        rc = *notify_fd;
    seccomp_release(ctx);
    if (rc != 0) {
        snprintf(why, len, "seccomp: %s", strerror(-rc));
        return -1;
    }
    return 0;
}

void sv_sandbox_describe_call(int nr, long a0, long a1, long a2, char *out, size_t len)
{
    const char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
    const char *shown = name ? name : "?";
    if (nr == SCMP_SYS(kill) || nr == SCMP_SYS(rt_sigqueueinfo))
        snprintf(out, len, "%s(pid %d, %s)", shown, (int)a0, strsignal((int)a1));
    else if (nr == SCMP_SYS(tgkill))
        snprintf(out, len, "%s(pid %d, thread %d, %s)", shown, (int)a0, (int)a1,
                 strsignal((int)a2));
    else if (nr == SCMP_SYS(ptrace) || nr == SCMP_SYS(process_vm_readv) ||
             nr == SCMP_SYS(process_vm_writev))
        snprintf(out, len, "%s(pid %d)", shown, nr == SCMP_SYS(ptrace) ? (int)a1 : (int)a0);
    else
        snprintf(out, len, "%s", shown);
    free((void *)name);
}

/* Allows `access` beneath path (a folder) or on it (a file); a path that
 * does not exist is skipped. 0, or -1 with errno. */
static int allow(int ruleset, const char *path, uint64_t access)
{
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 0 : -1;
    struct landlock_path_beneath_attr rule = {.allowed_access = access, .parent_fd = fd};
    long rc = syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
    int e = errno;
    close(fd);
    errno = e;
    return rc == 0 ? 0 : -1;
}

int sv_layer_landlock(const char *scratch, char *why, size_t len)
{
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 1) {
        snprintf(why, len, "Landlock is not available (%s: a kernel before 5.13, or "
                 "Landlock not enabled)", strerror(errno));
        return -1;
    }
    if (!scratch) {
        snprintf(why, len, "no scratch folder for the sampler to write in");
        return -1;
    }
    /* every right that changes the file system; reads and execution stay open */
    uint64_t writes = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
                      LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
                      LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
                      LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
                      LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
    uint64_t file_writes = LANDLOCK_ACCESS_FS_WRITE_FILE;
    if (abi >= 2)
        writes |= LANDLOCK_ACCESS_FS_REFER;
    if (abi >= 3) {
        writes |= LANDLOCK_ACCESS_FS_TRUNCATE;
        file_writes |= LANDLOCK_ACCESS_FS_TRUNCATE;
    }
    struct landlock_ruleset_attr attr = {.handled_access_fs = writes};
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
    if (ruleset < 0) {
        snprintf(why, len, "landlock_create_ruleset: %s", strerror(errno));
        return -1;
    }
    /* its scratch folder, shared memory (Python's semaphores, torch's
     * tensors between processes), the character devices a program writes
     * (not a terminal), and the GPU's device files (CUDA opens them to write) */
    static const char *const files[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random",
                                        "/dev/urandom"};
    int rc = allow(ruleset, scratch, writes);
    rc = rc ? rc : allow(ruleset, "/dev/shm", writes);
    for (size_t i = 0; rc == 0 && i < sizeof files / sizeof files[0]; i++)
        rc = allow(ruleset, files[i], file_writes);
    static const char *const gpu_files[] = {"/dev/nvidia*", "/dev/nvidia-caps/*", "/dev/dri/*"};
    for (size_t i = 0; rc == 0 && i < sizeof gpu_files / sizeof gpu_files[0]; i++) {
        glob_t g;
        if (glob(gpu_files[i], 0, NULL, &g) != 0)
            continue;
        for (size_t j = 0; rc == 0 && j < g.gl_pathc; j++)
            rc = allow(ruleset, g.gl_pathv[j], file_writes);
        globfree(&g);
    }
    if (rc != 0) {
        snprintf(why, len, "landlock_add_rule: %s", strerror(errno));
        close(ruleset);
        return -1;
    }
    rc = (int)syscall(SYS_landlock_restrict_self, ruleset, 0);
    int e = errno;
    close(ruleset);
    if (rc != 0) {
        snprintf(why, len, "landlock_restrict_self: %s", strerror(e));
        return -1;
    }
    return 0;
}
