/* sandbox_fit.c: the layers a machine's GPU cannot start under, taken off.
 *
 * On the H200 machine of results/gpu/NVIDIA_H200/7e77c08 CUDA's driver
 * did not start (cudaGetDeviceCount: "OS call failed") in a PID namespace
 * whose /proc is the host's, nor under Landlock, each on its own; every
 * CUDA sampler, and torch on CUDA from Python, then failed with exit 3 in
 * the sampler's sandbox, where it runs without one. So, once a process,
 * when the check the CLI registers says a GPU is there (`present`), a
 * process confined like a sampler's is asked whether it works there
 * (`works`); if not, the fewest layers whose removal lets it work are taken
 * off, and the report's header names them and why. --sandbox strict takes
 * none off. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sandbox_internal.h"
#include "sv_base.h"

static sv_sandbox_check fit_present, fit_works;

void sv_sandbox_set_fit(sv_sandbox_check present, sv_sandbox_check works)
{
    fit_present = present;
    fit_works = works;
}

int sv_sandbox_fit_wanted(void)
{
    return fit_present && fit_works;
}

/* A trial waits this long for its answer (a driver that hangs is a no). */
#define TRIAL_SECONDS 60

/* 1 if `works` says yes in a process confined under layers; why: its words. */
static int works_under(unsigned layers, char *why, size_t len)
{
    int p[2];
    why[0] = '\0';
    if (pipe2(p, O_CLOEXEC) != 0) {
        snprintf(why, len, "pipe: %s", strerror(errno));
        return 0;
    }
    sv_sandboxed box;
    const pid_t pid = sv_sandbox_fork_layers(&box, "the sandbox's GPU check", layers);
    if (pid == 0) {
        char said[SV_WHY_LEN + 80] = "";
        int ok = 0;
        if (sv_sandbox_enter(&p[1], 1, said, sizeof said) == SV_OK)
            ok = fit_works(said, sizeof said);
        ssize_t w = write(p[1], said, strlen(said));
        (void)w;
        _exit(ok ? 0 : 1);
    }
    close(p[1]);
    if (pid < 0) {
        snprintf(why, len, "fork: %s", strerror(errno));
        close(p[0]);
        return 0;
    }
    int hangs;
    why[sv_read_until(p[0], why, len - 1, TRIAL_SECONDS, &hangs)] = '\0';
    close(p[0]);
    if (hangs) {
        kill(pid, SIGKILL);
        snprintf(why, len, "no answer in %d s", TRIAL_SECONDS);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    status = sv_sandbox_end(&box, status);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

unsigned sv_sandbox_fit_layers(unsigned layers, char *why, size_t len)
{
    why[0] = '\0';
    char said[SV_WHY_LEN];
    if (!fit_present(said, sizeof said) || works_under(layers, why, len))
        return 0;
    /* the fewest first: the watch goes with the namespace, whose init serves it */
    static const unsigned drops[] = {SV_LAYER_PIDNS | SV_LAYER_WATCH, SV_LAYER_LANDLOCK,
                                     SV_LAYER_PIDNS | SV_LAYER_WATCH | SV_LAYER_LANDLOCK,
                                     SV_LAYER_SECCOMP | SV_LAYER_PIDNS | SV_LAYER_WATCH |
                                         SV_LAYER_LANDLOCK};
    for (size_t i = 0; i < sizeof drops / sizeof drops[0]; i++) {
        const unsigned drop = drops[i] & layers;
        if (drop && (i == 0 || drop != (drops[i - 1] & layers)) &&
            works_under(layers & ~drop, said, sizeof said))
            return drop;
    }
    return 0; /* nothing helps: every layer stays, and the sampler says why it fails */
}
