/* test_sandbox_fit.c: the sandbox's fit (harness/sandbox/sandbox_fit.c)
 * with stand-ins for CUDA's driver, which on the H200 machine did not start
 * in a PID namespace whose /proc is the host's, nor under Landlock. Each
 * stand-in fails under one layer, or both, or always; the fit must take off
 * exactly the fewest layers that let it work (the watch goes with the PID
 * namespace), name them in the summary with the stand-in's words, take off
 * nothing when the check works, when nothing helps, when no GPU is
 * present, or under --sandbox strict. Layers this machine lacks are left
 * out of what is expected. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"
#include "sv_sandbox.h"

static char host_pidns[64]; /* the test's own PID namespace, read before any fork */
static char outside[4096];  /* a file outside the scratch folder, made before */

static int in_host_pidns(void)
{
    char ns[64] = "";
    ssize_t n = readlink("/proc/self/ns/pid", ns, sizeof ns - 1);
    ns[n > 0 ? n : 0] = '\0';
    return strcmp(ns, host_pidns) == 0;
}

static int can_write_outside(void)
{
    int fd = open(outside, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    close(fd);
    return 1;
}

static int yes(char *why, size_t len)
{
    snprintf(why, len, "there");
    return 1;
}

static int no(char *why, size_t len)
{
    snprintf(why, len, "none here");
    return 0;
}

static int needs_host_pidns(char *why, size_t len)
{
    snprintf(why, len, "stand-in: not in the host's PID namespace");
    return in_host_pidns();
}

static int needs_writes(char *why, size_t len)
{
    snprintf(why, len, "stand-in: cannot write outside");
    return can_write_outside();
}

static int needs_both(char *why, size_t len)
{
    snprintf(why, len, "stand-in: needs both");
    return in_host_pidns() && can_write_outside();
}

/* In a child of its own (the fit runs once a process): the layers left
 * after the fit with these checks, from a fresh set-up in mode. */
static unsigned fitted(sv_sandbox_check present, sv_sandbox_check works, sv_sandbox_mode mode,
                       char *summary, size_t len)
{
    int p[2];
    if (pipe(p) != 0)
        return ~0u;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        sv_sandbox_set_fit(present, works);
        sv_sandbox_setup(SV_SANDBOX_OFF); /* the parent's set-up is done: start afresh */
        sv_sandbox_setup(mode);
        unsigned layers = sv_sandbox_layers();
        char out[1600];
        memcpy(out, &layers, sizeof layers);
        snprintf(out + sizeof layers, sizeof out - sizeof layers, "%s", sv_sandbox_summary());
        _exit(write(p[1], out, sizeof out) == (ssize_t)sizeof out ? 0 : 1);
    }
    close(p[1]);
    char in[1600];
    ssize_t got = read(p[0], in, sizeof in);
    close(p[0]);
    waitpid(pid, NULL, 0);
    if (got != (ssize_t)sizeof in)
        return ~0u;
    unsigned layers;
    memcpy(&layers, in, sizeof layers);
    snprintf(summary, len, "%s", in + sizeof layers);
    return layers;
}

int main(void)
{
    ssize_t n = readlink("/proc/self/ns/pid", host_pidns, sizeof host_pidns - 1);
    host_pidns[n > 0 ? n : 0] = '\0';
    snprintf(outside, sizeof outside, "sandbox_fit_outside.txt");
    int fd = open(outside, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
    char *real = realpath(outside, NULL);
    if (real) {
        snprintf(outside, sizeof outside, "%s", real);
        free(real);
    }
    sv_sandbox_setup(SV_SANDBOX_AUTO);
    const unsigned all = sv_sandbox_layers(); /* no fit registered: the machine's layers */
    const unsigned ns = all & (SV_LAYER_PIDNS | SV_LAYER_WATCH), ll = all & SV_LAYER_LANDLOCK;
    printf("this machine's layers: %s\n", sv_sandbox_summary());
    char summary[1600];

    CHECK(fitted(yes, yes, SV_SANDBOX_AUTO, summary, sizeof summary) == all);
    CHECK(fitted(no, needs_both, SV_SANDBOX_AUTO, summary, sizeof summary) == all);
    feature("a check that works, or no GPU present: every layer stays");

    CHECK(fitted(yes, needs_host_pidns, SV_SANDBOX_AUTO, summary, sizeof summary) == (all & ~ns));
    if (ns) {
        CHECK(strstr(summary, "not in force: pidns (the GPU does not start under it here: "
                              "stand-in: not in the host's PID namespace") != NULL);
        CHECK(strstr(summary, "landlock") && !strstr(summary, "not in force: landlock"));
    }
    CHECK(fitted(yes, needs_writes, SV_SANDBOX_AUTO, summary, sizeof summary) == (all & ~ll));
    if (ll)
        CHECK(strstr(summary, "not in force: landlock (the GPU does not start under it here: "
                              "stand-in: cannot write outside)") != NULL);
    CHECK(fitted(yes, needs_both, SV_SANDBOX_AUTO, summary, sizeof summary) ==
          (all & ~(ns | ll)));
    if (ns && ll)
        CHECK(strstr(summary, "not in force: pidns") && strstr(summary, "not in force: landlock"));
    feature("the fewest layers the check needs taken off, and named with its words");

    CHECK(fitted(yes, no, SV_SANDBOX_AUTO, summary, sizeof summary) == all);
    CHECK(strstr(summary, "not in force") == NULL || all != SV_LAYERS_ALL);
    if (all == SV_LAYERS_ALL)
        CHECK(fitted(yes, needs_both, SV_SANDBOX_STRICT, summary, sizeof summary) == all);
    feature("nothing taken off when nothing helps, nor under --sandbox strict");
    unlink(outside);
    return check_exit();
}
