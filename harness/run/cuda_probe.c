/* cuda_probe.c: how many CUDA devices there are, asked in a forked child, so
 * that the harness process itself never initialises CUDA: a process that
 * forks after initialising CUDA leaves its children unable to use it, and
 * the sampler under test runs in such a child (host_child.c). */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cuda_stage.h"

int sv_cuda_device_count_isolated(char *why, size_t whylen)
{
    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(why, whylen, "cannot make a pipe to ask for CUDA devices");
        return 0;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        char answer[192];
        int n = sv_cuda_device_count(answer + sizeof(int), sizeof answer - sizeof(int));
        memcpy(answer, &n, sizeof n);
        ssize_t w = write(fds[1], answer, sizeof answer);
        _exit(w == (ssize_t)sizeof answer ? 0 : 1);
    }
    close(fds[1]);
    char answer[192];
    ssize_t got = pid > 0 ? read(fds[0], answer, sizeof answer) : -1;
    close(fds[0]);
    int status = 0;
    if (pid > 0)
        waitpid(pid, &status, 0);
    if (got != (ssize_t)sizeof answer) {
        snprintf(why, whylen, "the process that asked CUDA for its devices %s",
                 pid < 0 ? "could not start" : WIFSIGNALED(status) ? "crashed" : "said nothing");
        return 0;
    }
    int n;
    memcpy(&n, answer, sizeof n);
    answer[sizeof answer - 1] = '\0';
    snprintf(why, whylen, "%s", answer + sizeof n);
    return n;
}
