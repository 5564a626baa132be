/* sandbox_watch.c: the attempts the sandbox refuses, named.
 *
 * Landlock and the dropped capabilities refuse a sampler's open of the
 * harness's memory and its writes into the reports' folders with EACCES,
 * which a sampler can ignore and go on to pass. So that the attempt is a
 * finding, the calls that name a path (open, rename, unlink, ...) also stop
 * for a look by the namespace's init (seccomp's user notification): it reads
 * the path from the caller's memory, and when it is /proc/<N>/mem of a
 * process outside the namespace, a write into /proc/<N> of one, or a write
 * into a reports' folder (sandbox_paths.c), it answers EACCES, keeps the
 * attempt in words and kills the namespace, and the harness names it; so
 * too the calls the seccomp layer forbids outright (ptrace, signals to the
 * init), whichever process of the sampler's tree makes them. Every
 * other call goes on as it came (the kernel's checks decide, as without the
 * watch). The look names; it does not enforce: a sampler that rewrites the
 * path between the look and the kernel's own read (the race seccomp's manual
 * warns of) escapes the naming, never Landlock. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include "sandbox_internal.h"
#include "sv_base.h"

#ifndef SECCOMP_USER_NOTIF_FLAG_CONTINUE
#define SECCOMP_USER_NOTIF_FLAG_CONTINUE (1UL << 0)
#endif

enum { NONE = -1 };
enum { OPENS, WRITES }; /* an open writes when its flags say so; the rest always */

/* The watched calls: where their paths, folders and open flags are. */
typedef struct watched {
    int nr;
    signed char dirfd, path, dirfd2, path2, flags, kind;
} watched;

static const watched calls[] = {
    {SCMP_SYS(open), NONE, 0, NONE, NONE, 1, OPENS},
    {SCMP_SYS(openat), 0, 1, NONE, NONE, 2, OPENS},
    {SCMP_SYS(openat2), 0, 1, NONE, NONE, 2, OPENS}, /* flags: the open_how's first field */
    {SCMP_SYS(creat), NONE, 0, NONE, NONE, NONE, WRITES},
    {SCMP_SYS(truncate), NONE, 0, NONE, NONE, NONE, WRITES},
    {SCMP_SYS(mkdir), NONE, 0, NONE, NONE, NONE, WRITES},
    {SCMP_SYS(mkdirat), 0, 1, NONE, NONE, NONE, WRITES},
    {SCMP_SYS(mknod), NONE, 0, NONE, NONE, NONE, WRITES},
    {SCMP_SYS(mknodat), 0, 1, NONE, NONE, NONE, WRITES},
    {SCMP_SYS(unlink), NONE, 0, NONE, NONE, NONE, WRITES},
    {SCMP_SYS(unlinkat), 0, 1, NONE, NONE, NONE, WRITES},
    {SCMP_SYS(rmdir), NONE, 0, NONE, NONE, NONE, WRITES},
    {SCMP_SYS(rename), NONE, 0, NONE, 1, NONE, WRITES},
    {SCMP_SYS(renameat), 0, 1, 2, 3, NONE, WRITES},
    {SCMP_SYS(renameat2), 0, 1, 2, 3, NONE, WRITES},
    {SCMP_SYS(link), NONE, NONE, NONE, 1, NONE, WRITES},
    {SCMP_SYS(linkat), NONE, NONE, 2, 3, NONE, WRITES},
    {SCMP_SYS(symlink), NONE, NONE, NONE, 1, NONE, WRITES},
    {SCMP_SYS(symlinkat), NONE, NONE, 1, 2, NONE, WRITES},
};
#define N_CALLS ((int)(sizeof calls / sizeof calls[0]))

int sv_watch_rules(void *filter)
{
    for (int i = 0; i < N_CALLS; i++) {
        if (calls[i].nr < 0)
            continue; /* not on this architecture (aarch64 has no open) */
        int rc = seccomp_rule_add((scmp_filter_ctx)filter, SCMP_ACT_NOTIFY, calls[i].nr, 0);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* ---- the init's side --------------------------------------------------------------- */

static pid_t harness_pid, init_host;
static int init_levels;

/* An address in another process, as the iovec that names it holds it. */
static void *remote_address(uint64_t addr)
{
    const uintptr_t u = (uintptr_t)addr;
    void *p;
    memcpy(&p, &u, sizeof p);
    return p;
}

/* A decimal pid, or 0. */
static pid_t pid_of(const char *s)
{
    char *end;
    const long v = strtol(s, &end, 10);
    return end != s && v > 0 && v < 1L << 30 ? (pid_t)v : 0;
}

void sv_watch_setup(pid_t harness)
{
    harness_pid = harness;
    char self[32] = "";
    ssize_t n = readlink("/proc/self", self, sizeof self - 1);
    init_host = n > 0 ? pid_of(self) : 0;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", (int)init_host);
    pid_t inner;
    init_levels = sv_proc_nspid(path, &inner);
}

/* A NUL-terminated string from another process's memory, a page at a time
 * (the string may end just before a page it cannot read). */
static int read_string(pid_t pid, uint64_t addr, char *out, size_t len)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t got = 0;
    while (got + 1 < len) {
        size_t want = page - (size_t)((addr + got) % page);
        if (want > len - 1 - got)
            want = len - 1 - got;
        struct iovec local = {out + got, want};
        struct iovec remote = {remote_address(addr + got), want};
        ssize_t r = process_vm_readv(pid, &local, 1, &remote, 1, 0);
        if (r <= 0)
            return -1;
        if (memchr(out + got, '\0', (size_t)r))
            return 0;
        got += (size_t)r;
    }
    out[len - 1] = '\0';
    return 0;
}

/* The pid outside (in /proc's namespace) of the task `tid` of this init's
 * namespace: a walk of the init's tree, matching each task's innermost pid. */
static pid_t outside_tid(pid_t tid)
{
    pid_t stack[512];
    int top = 0;
    stack[top++] = init_host;
    while (top > 0) {
        const pid_t p = stack[--top];
        char dir[64];
        snprintf(dir, sizeof dir, "/proc/%d/task", (int)p);
        DIR *d = opendir(dir);
        if (!d)
            continue;
        for (struct dirent *e; (e = readdir(d));) {
            if (e->d_name[0] < '1' || e->d_name[0] > '9')
                continue;
            char path[400];
            snprintf(path, sizeof path, "%s/%s/status", dir, e->d_name);
            pid_t inner = 0;
            if (sv_proc_nspid(path, &inner) > 0 && inner == tid) {
                const pid_t found = pid_of(e->d_name); /* before the entry is freed */
                closedir(d);
                return found;
            }
            snprintf(path, sizeof path, "%s/%s/children", dir, e->d_name);
            top += sv_proc_read_pids(path, stack + top, (int)(sizeof stack / sizeof *stack) - top);
        }
        closedir(d);
    }
    return 0;
}

/* The folder a path is relative to: the task's cwd, or what its dirfd names. */
static int base_of(pid_t tid, long dirfd, char *out, size_t len)
{
    const pid_t outside = outside_tid(tid);
    if (outside <= 0)
        return -1;
    char link[64];
    if ((int)dirfd == AT_FDCWD)
        snprintf(link, sizeof link, "/proc/%d/cwd", (int)outside);
    else
        snprintf(link, sizeof link, "/proc/%d/fd/%d", (int)outside, (int)dirfd);
    ssize_t n = readlink(link, out, len - 1);
    if (n <= 0)
        return -1;
    out[n] = '\0';
    return 0;
}

/* /proc/self and /proc/thread-self said as the caller's own pid. */
static void own_proc(pid_t tid, const char *path, char *out, size_t len)
{
    const char *rest = NULL;
    if (strncmp(path, "/proc/self", 10) == 0 && (path[10] == '/' || !path[10]))
        rest = path + 10;
    else if (strncmp(path, "/proc/thread-self", 17) == 0 && (path[17] == '/' || !path[17]))
        rest = path + 17;
    if (rest)
        snprintf(out, len, "/proc/%d%s", (int)outside_tid(tid), rest);
    else
        snprintf(out, len, "%s", path);
}

/* For /proc/<N>/...: N when N is a process outside the namespace, else 0. */
static pid_t outside_proc(const char *real, const char **rest)
{
    if (strncmp(real, "/proc/", 6) != 0 || real[6] < '1' || real[6] > '9')
        return 0;
    char *end;
    long n = strtol(real + 6, &end, 10);
    if (*end != '/' && *end != '\0')
        return 0;
    *rest = end;
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/status", n);
    pid_t inner;
    const int levels = sv_proc_nspid(path, &inner);
    return levels > 0 && levels < init_levels ? (pid_t)n : 0;
}

/* "/mem" or "/task/<tid>/mem": a process's memory, under /proc/<N> */
static int is_mem(const char *rest)
{
    if (strncmp(rest, "/task/", 6) == 0) {
        rest += 6;
        while (*rest >= '0' && *rest <= '9')
            rest++;
    }
    return strcmp(rest, "/mem") == 0;
}

/* Writes in the places Landlock allows are the sampler's own business. */
static int allowed_write(const char *real)
{
    const char *scratch = sv_sandbox_scratch();
    size_t n = scratch ? strlen(scratch) : 0;
    return (n && strncmp(real, scratch, n) == 0 && (real[n] == '/' || !real[n])) ||
           strncmp(real, "/dev/", 5) == 0;
}

/* The attempt in words, or "" when the path is none of the harness's. */
static void judge(pid_t tid, const watched *w, const __u64 *args, int which, int writes,
                  char *said, size_t len)
{
    const int path_arg = which ? w->path2 : w->path, dirfd_arg = which ? w->dirfd2 : w->dirfd;
    char path[PATH_MAX], base[PATH_MAX] = "/", abs[PATH_MAX], own[PATH_MAX], real[PATH_MAX];
    if (path_arg == NONE || read_string(tid, args[path_arg], path, sizeof path) != 0)
        return;
    if (path[0] != '/' && base_of(tid, dirfd_arg == NONE ? AT_FDCWD : (long)args[dirfd_arg],
                                  base, sizeof base) != 0)
        return;
    if (sv_path_join(base, path, abs, sizeof abs) != 0)
        return;
    own_proc(tid, abs, own, sizeof own);
    sv_path_real(own, real, sizeof real);
    const char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, w->nr);
    char shown[160];
    sv_escape(shown, sizeof shown, real, strlen(real));
    const char *rest = NULL;
    const pid_t other = outside_proc(real, &rest);
    if (other && (writes || is_mem(rest))) {
        char whose[64];
        if (other == harness_pid)
            snprintf(whose, sizeof whose, "the harness");
        else
            snprintf(whose, sizeof whose, "process %d, outside its sandbox", (int)other);
        snprintf(said, len, "tried to %s %s, %s of %s, with %s", writes ? "write" : "read", shown,
                 is_mem(rest) ? "the memory" : "a file", whose, name ? name : "?");
        return;
    }
    const char *folder;
    if (writes && !allowed_write(real) && (folder = sv_sandbox_protected(real))) {
        char dir[160];
        sv_escape(dir, sizeof dir, folder, strlen(folder));
        snprintf(said, len, "tried to write %s in the reports' folder %s with %s", shown, dir,
                 name ? name : "?");
    }
}

int sv_watch_serve(int notify_fd, char *said, size_t len)
{
    struct seccomp_notif *req;
    struct seccomp_notif_resp *resp;
    if (seccomp_notify_alloc(&req, &resp) != 0)
        return -1;
    int rc = seccomp_notify_receive(notify_fd, req);
    if (rc != 0) {
        seccomp_notify_free(req, resp);
        return rc == -ENOENT || rc == -EINTR ? 0 : -1; /* the caller died: nothing to say */
    }
    said[0] = '\0';
    int watched_call = 0;
    for (int i = 0; i < N_CALLS; i++) {
        const watched *w = &calls[i];
        if (w->nr != req->data.nr)
            continue;
        int writes = w->kind == WRITES;
        if (w->kind == OPENS) {
            uint64_t flags = req->data.args[(int)w->flags];
            if (w->nr == SCMP_SYS(openat2)) {
                struct iovec local = {&flags, sizeof flags};
                struct iovec remote = {remote_address(req->data.args[2]), sizeof flags};
                if (process_vm_readv(req->pid, &local, 1, &remote, 1, 0) != sizeof flags)
                    flags = 0;
            }
            writes = (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC)) != 0;
        }
        judge(req->pid, w, req->data.args, 0, writes, said, len);
        if (!said[0])
            judge(req->pid, w, req->data.args, 1, writes, said, len);
        watched_call = 1;
        break;
    }
    if (!watched_call) { /* one of the calls the seccomp layer forbids outright */
        char call[160];
        sv_sandbox_describe_call(req->data.nr, (long)req->data.args[0], (long)req->data.args[1],
                                 (long)req->data.args[2], call, sizeof call);
        snprintf(said, len, "made a system call the sandbox forbids: %s", call);
    }
    resp->id = req->id;
    if (said[0]) {
        resp->error = -EACCES;
        resp->flags = 0;
    } else {
        resp->error = 0;
        resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    }
    resp->val = 0;
    rc = seccomp_notify_respond(notify_fd, resp);
    seccomp_notify_free(req, resp);
    (void)rc; /* the caller may be gone already: nothing to answer */
    return said[0] ? 1 : 0;
}
