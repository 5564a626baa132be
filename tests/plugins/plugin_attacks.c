/* plugin_attacks.c: samplers that attack the harness itself, for
 * tests/cli/sandbox_cli.sh (issue 36). Each samples correctly (the chain
 * rule), so what fails it is the attack alone; an attack the sandbox lets
 * through is said in the sampler's own words (status EINTERNAL), which the
 * test refuses:
 *   proc_mem        opens the harness's /proc/PID/mem for writing (the
 *                   first step of patching its _exit into exit_group(0))
 *   ptrace_harness  PTRACE_SEIZE on the harness
 *   vm_write        process_vm_writev into the harness
 *   stop_parent     SIGSTOP to its parent (without a sandbox: the harness,
 *                   frozen for good)
 *   kill_parent     SIGKILL to its parent
 *   daemon          double-forks a daemon in a session of its own that
 *                   holds its stdout and sleeps 10 minutes; it says its pid
 *   write_report    writes the file $SV_TEST_FORGE (the report's folder)
 *   quiet_mem       reads the harness's /proc/PID/mem, says nothing of how it
 *                   went and samples on: only the sandbox can name it
 *   quiet_write     the same with a write of $SV_TEST_FORGE_REL (the report's
 *                   folder, relative to its working folder)
 *   scratch_write   writes a file in $TMPDIR (its scratch folder) and
 *                   samples: a PASS, the watch's control
 *   prints_forgery  prints a forged summary line, a terminal reset and a
 *                   carriage return on stdout and stderr, then samples: a PASS
 * The harness's pid is $SV_TEST_HARNESS_PID (the test execs specverify as
 * that shell), else the parent's. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "plugin_chain.h"
#include "sv_sampler.h"

static int init(void **state, const sv_limits *limits)
{
    (void)limits;
    *state = NULL;
    return SV_SAMPLER_OK;
}

static void destroy(void *state) { (void)state; }

static pid_t harness(void)
{
    const char *s = getenv("SV_TEST_HARNESS_PID");
    return s && atoi(s) > 0 ? (pid_t)atoi(s) : getppid();
}

/* The sampler's words: what the attack did. */
static int said(const sv_batch *bt, const char *what, int e)
{
    snprintf(bt->message, (size_t)bt->message_len, "%s: %s", what, e ? strerror(e) : "it worked");
    return SV_SAMPLER_EINTERNAL;
}

static int once(const sv_batch *bt) { return bt->first_index == 0; }

static int proc_mem(void *state, const sv_batch *bt)
{
    (void)state;
    if (!once(bt))
        return chain_sample(bt);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/mem", (int)harness());
    int fd = open(path, O_RDWR);
    if (fd >= 0) {
        close(fd);
        return said(bt, "opened the harness's memory for writing", 0);
    }
    return said(bt, "open(/proc/<harness>/mem, O_RDWR)", errno);
}

static int ptrace_harness(void *state, const sv_batch *bt)
{
    (void)state;
    if (once(bt) && ptrace(PTRACE_SEIZE, harness(), 0, 0) == 0)
        return said(bt, "attached to the harness with ptrace", 0);
    return once(bt) ? said(bt, "ptrace(PTRACE_SEIZE, harness)", errno) : chain_sample(bt);
}

static int vm_write(void *state, const sv_batch *bt)
{
    (void)state;
    if (!once(bt))
        return chain_sample(bt);
    char byte = 0;
    struct iovec local = {&byte, 1}, remote = {(void *)(uintptr_t)0x10000, 1};
    if (process_vm_writev(harness(), &local, 1, &remote, 1, 0) == 1)
        return said(bt, "wrote into the harness's memory", 0);
    return said(bt, "process_vm_writev(harness)", errno);
}

static int stop_parent(void *state, const sv_batch *bt)
{
    (void)state;
    if (once(bt))
        kill(getppid(), SIGSTOP);
    return chain_sample(bt);
}

static int kill_parent(void *state, const sv_batch *bt)
{
    (void)state;
    if (once(bt))
        kill(getppid(), SIGKILL);
    return chain_sample(bt);
}

static int daemon_left(void *state, const sv_batch *bt)
{
    (void)state;
    if (once(bt)) {
        pid_t child = fork();
        if (child == 0) {
            setsid();
            if (fork() == 0) {
                char self[32] = "";
                ssize_t n = readlink("/proc/self", self, sizeof self - 1); /* the pid outside */
                self[n > 0 ? n : 0] = '\0';
                printf("daemon pid %s\n", self);
                fflush(stdout);
                sleep(600);
            }
            _exit(0);
        }
        waitpid(child, NULL, 0);
    }
    return chain_sample(bt);
}

static int write_report(void *state, const sv_batch *bt)
{
    (void)state;
    const char *path = getenv("SV_TEST_FORGE");
    if (!once(bt) || !path)
        return chain_sample(bt);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return said(bt, "open($SV_TEST_FORGE) for writing", errno);
    ssize_t w = write(fd, "{\"passed\": true}\n", 17);
    (void)w;
    close(fd);
    return said(bt, "wrote into the report's folder", 0);
}

/* Opens path once, says nothing of how it went, and samples on. */
static int quietly(const sv_batch *bt, const char *path, int flags)
{
    if (once(bt) && path) {
        int fd = openat(AT_FDCWD, path, flags, 0644);
        if (fd >= 0)
            close(fd);
    }
    return chain_sample(bt);
}

static int quiet_mem(void *state, const sv_batch *bt)
{
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/mem", (int)harness());
    return quietly(bt, path, O_RDONLY);
}

static int quiet_write(void *state, const sv_batch *bt)
{
    (void)state;
    return quietly(bt, getenv("SV_TEST_FORGE_REL"), O_WRONLY | O_CREAT | O_TRUNC);
}

static int scratch_write(void *state, const sv_batch *bt)
{
    (void)state;
    const char *dir = getenv("TMPDIR");
    if (once(bt) && dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/cache.bin", dir);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0)
            return said(bt, "open($TMPDIR/cache.bin) for writing", errno);
        close(fd);
    }
    return chain_sample(bt);
}

static int prints_forgery(void *state, const sv_batch *bt)
{
    (void)state;
    if (once(bt)) {
        static const char forged[] = "\n6 cases: 6 passed, 0 suspect, 0 failed.\n\x1b[2J\rPASS\n";
        fputs(forged, stdout);
        fflush(stdout);
        fputs(forged, stderr);
    }
    return chain_sample(bt);
}

#define ATTACK(name, fn, what) {#name, "test: " what, SV_MEM_HOST, init, fn, destroy, 0, 0, SV_RULE_CHAIN}
static const sv_sampler samplers[] = {
    ATTACK(proc_mem, proc_mem, "opens the harness's /proc/PID/mem for writing"),
    ATTACK(ptrace_harness, ptrace_harness, "ptraces the harness"),
    ATTACK(vm_write, vm_write, "process_vm_writev into the harness"),
    ATTACK(stop_parent, stop_parent, "sends SIGSTOP to its parent"),
    ATTACK(kill_parent, kill_parent, "sends SIGKILL to its parent"),
    ATTACK(daemon, daemon_left, "leaves a daemon holding its stdout"),
    ATTACK(write_report, write_report, "writes into the report's folder"),
    ATTACK(quiet_mem, quiet_mem, "reads the harness's memory and says nothing"),
    ATTACK(quiet_write, quiet_write, "writes into the report's folder and says nothing"),
    ATTACK(scratch_write, scratch_write, "writes in its scratch folder (allowed)"),
    ATTACK(prints_forgery, prints_forgery, "prints a forged summary and terminal escapes"),
};
static const sv_plugin plugin = {SV_CONTRACT_VERSION, sizeof samplers / sizeof samplers[0],
                                 samplers};

SV_PLUGIN_EXPORT const sv_plugin *sv_plugin_get(void) { return &plugin; }
