/* program_output.c: the first line another program prints, run from an
 * argument vector (posix_spawnp), never through a shell: a path or name
 * from a user or a file is one argument, whatever characters it holds. */
#include <fcntl.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sv_base.h"

extern char **environ;

int sv_program_line(char *const argv[], char *out, size_t len)
{
    out[0] = '\0';
    int fds[2];
    if (len == 0 || pipe(fds) != 0)
        return -1;
    posix_spawn_file_actions_t fa;
    int err = posix_spawn_file_actions_init(&fa);
    if (!err) {
        posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addclose(&fa, fds[0]);
        posix_spawn_file_actions_addclose(&fa, fds[1]);
    }
    pid_t pid = -1;
    if (!err)
        err = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    size_t n = 0;
    ssize_t r;
    while (!err && n + 1 < len && (r = read(fds[0], out + n, len - 1 - n)) > 0)
        n += (size_t)r;
    close(fds[0]); /* the rest, unread: the program may get SIGPIPE, which is fine */
    out[n] = '\0';
    out[strcspn(out, "\n")] = '\0';
    int status = 0;
    if (!err)
        waitpid(pid, &status, 0);
    return !err && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}
