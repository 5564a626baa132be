/* recorded_read.c: reads a recording step by step, checking every value it
 * reads; and reads a file whole in a child process before the harness opens
 * it (libhdf5 is not safe on corrupt files). */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "recorded_private.h"
#include "sv_syntax.h"


/* Reads [i][0..rows)[0..V) of one dataset into doubles. */
static int read_rows(sv_recorded *r, const rows_set *rs, int64_t i, int32_t rows, double *out)
{
    hid_t space = H5Dget_space(rs->set);
    hsize_t start[3] = {(hsize_t)i, 0, 0}, count[3] = {1, (hsize_t)rows, (hsize_t)r->meta.V};
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
    hid_t mem = H5Screate_simple(3, count, NULL);
    herr_t got;
    if (rs->stored == STORED_FLOAT) {
        got = H5Dread(rs->set, H5T_NATIVE_DOUBLE, mem, space, H5P_DEFAULT, out);
    } else {
        got = H5Dread(rs->set, H5T_NATIVE_UINT16, mem, space, H5P_DEFAULT, r->bf16);
        for (size_t j = 0; got >= 0 && j < (size_t)rows * (size_t)r->meta.V; j++) {
            uint32_t bits = (uint32_t)r->bf16[j] << 16;
            float f;
            memcpy(&f, &bits, sizeof f);
            out[j] = f;
        }
    }
    H5Sclose(mem);
    H5Sclose(space);
    return got < 0 ? -1 : 0;
}

/* Logits: numbers or -inf (a token masked out, as serving stacks mask the
 * vocabulary: probability 0), never NaN or +inf, and not -inf across a
 * whole row. Probabilities: finite, >= 0, rows summing to 1; they become
 * log-probabilities. */
static int check_rows(sv_recorded *r, const rows_set *rs, int64_t i, int32_t rows, double *x,
                      char *err, size_t errlen)
{
    char w[1400];
    const int32_t V = r->meta.V;
    for (int32_t k = 0; k < rows; k++) {
        double *row = x + (size_t)k * V, sum = 0.0;
        int any = 0; /* a logit above -inf */
        for (int32_t v = 0; v < V; v++) {
            const int bad = r->probs ? !isfinite(row[v]) || row[v] < 0.0
                                     : isnan(row[v]) || row[v] == INFINITY;
            if (bad) {
                snprintf(err, errlen, "%s[%lld][%d][%d] = %g: %s",
                         sv_rec_where(r, rs->name, w, sizeof w), (long long)i, k, v, row[v],
                         r->probs ? "probabilities must be finite and >= 0"
                                  : "logits must be numbers or -inf (a masked token)");
                return -1;
            }
            any |= row[v] > -INFINITY;
            sum += row[v];
        }
        if (!r->probs && !any) {
            snprintf(err, errlen, "%s[%lld][%d]: every logit is -inf: the row gives no token a "
                     "probability", sv_rec_where(r, rs->name, w, sizeof w), (long long)i, k);
            return -1;
        }
        if (!r->probs)
            continue;
        if (fabs(sum - 1.0) > SV_RECORDED_SUM_TOL) {
            snprintf(err, errlen, "%s[%lld][%d]: row sums to %.6g, expected 1 +- %g",
                     sv_rec_where(r, rs->name, w, sizeof w), (long long)i, k, sum,
                     SV_RECORDED_SUM_TOL);
            return -1;
        }
        for (int32_t v = 0; v < V; v++)
            row[v] = row[v] > 0.0 ? log(row[v]) : -INFINITY;
    }
    return 0;
}

int sv_recorded_read_step(sv_recorded *r, int64_t i, double *target, double *draft,
                          int32_t *drafts, char *err, size_t errlen)
{
    char w[1400];
    const int32_t K = r->meta.K, V = r->meta.V;
    if (i < 0 || i >= r->n) {
        snprintf(err, errlen, "%s: step %lld is out of range [0, %lld)", r->path, (long long)i,
                 (long long)r->n);
        return -1;
    }
    if (read_rows(r, &r->target, i, K + 1, target) != 0 ||
        read_rows(r, &r->draft, i, K, draft) != 0) {
        snprintf(err, errlen, "%s: cannot read step %lld (truncated or corrupt file?)",
                 sv_rec_where(r, r->target.name, w, sizeof w), (long long)i);
        return -1;
    }
    if (check_rows(r, &r->target, i, K + 1, target, err, errlen) != 0 ||
        check_rows(r, &r->draft, i, K, draft, err, errlen) != 0)
        return -1;
    if (!drafts || r->drafts < 0)
        return 0;
    hid_t space = H5Dget_space(r->drafts);
    hsize_t start[2] = {(hsize_t)i, 0}, count[2] = {1, (hsize_t)K};
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
    hid_t mem = H5Screate_simple(2, count, NULL);
    herr_t got = H5Dread(r->drafts, H5T_NATIVE_INT32, mem, space, H5P_DEFAULT, drafts);
    H5Sclose(mem);
    H5Sclose(space);
    if (got < 0) {
        snprintf(err, errlen, "%s: cannot read step %lld",
                 sv_rec_where(r, "draft_tokens", w, sizeof w), (long long)i);
        return -1;
    }
    for (int32_t k = 0; k < K; k++) {
        const char *bad = NULL;
        if (drafts[k] < 0 || drafts[k] >= V)
            bad = "outside [0, V)";
        else if (draft[(size_t)k * V + drafts[k]] == -INFINITY)
            bad = "a token the drafter gives probability 0";
        if (bad) {
            snprintf(err, errlen, "%s[%lld][%d] = %d: %s (V = %d)",
                     sv_rec_where(r, "draft_tokens", w, sizeof w), (long long)i, k, drafts[k],
                     bad, V);
            return -1;
        }
    }
    return 0;
}

/* ---- isolation ---------------------------------------------------------------
 * libhdf5 1.10 is not safe on corrupt files: fuzzing this reader found a heap
 * overflow in its attribute decoding, a leak and absurd allocations, all
 * inside the library. So a recording is first read whole in a child
 * process, layout and every value: a crash there becomes an error naming the
 * file, a bad value at step 900 is reported before any draw, and the parent
 * opens only files that read cleanly. Each file is checked once per process
 * (keyed by path, inode, size and time). */

typedef struct checked_file {
    char path_group[1300];
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
} checked_file;

void (*sv_recorded_child_hook)(void);

static checked_file checked[32];
static size_t n_checked;

static int same_file(const checked_file *c, const char *path_group, const struct stat *st)
{
    return strcmp(c->path_group, path_group) == 0 && c->dev == st->st_dev &&
           c->ino == st->st_ino && c->size == st->st_size &&
           c->mtime.tv_sec == st->st_mtim.tv_sec && c->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

/* Reads every step; what the child runs. */
static int read_all(const char *path_group, char *err, size_t errlen)
{
    sv_recorded *r = NULL;
    if (sv_rec_open_here(path_group, &r, err, errlen) != 0)
        return -1;
    const size_t K = (size_t)r->meta.K, V = (size_t)r->meta.V;
    /* calloc, not malloc: clang's analyser cannot see that read_rows fills
     * every cell that check_rows then reads */
    double *t = calloc((K + 1) * V, sizeof *t), *d = calloc(K * V, sizeof *d);
    int32_t drafts[SV_RECORDED_MAX_K];
    int rc = t && d ? 0 : -1;
    if (rc != 0)
        snprintf(err, errlen, "%s: out of memory for one step", r->path);
    for (int64_t i = 0; rc == 0 && i < r->n; i++)
        rc = sv_recorded_read_step(r, i, t, d, drafts, err, errlen);
    free(t);
    free(d);
    sv_recorded_close(r);
    return rc;
}

/* Seconds the child may take: generous for a whole read at 20 MB/s, but
 * finite, because libhdf5 also loops forever on some corrupt files (fuzzing
 * found one). SV_RECORDED_CHECK_SECONDS overrides it (a slow network disk;
 * the fuzz target and its replay, which cannot wait 30 s per input): a
 * value that is not a whole number from 1 to 86400 is an error, not the
 * default. */
static int check_seconds(off_t size, unsigned *seconds, char *err, size_t errlen)
{
    const char *env = getenv("SV_RECORDED_CHECK_SECONDS");
    double v = 0.0;
    *seconds = 30u + (unsigned)(size / (20 << 20));
    if (!env)
        return 0;
    if (sv_number_read(env, &v) != SV_NUMBER_OK || v != floor(v) || v < 1 || v > 86400) {
        snprintf(err, errlen, "environment variable SV_RECORDED_CHECK_SECONDS='%s' is not a "
                 "whole number of seconds from 1 to 86400", env);
        return -1;
    }
    *seconds = (unsigned)v;
    return 0;
}

static int check_in_child(const char *path, const char *path_group, off_t size, char *err,
                          size_t errlen)
{
    unsigned seconds;
    if (check_seconds(size, &seconds, err, errlen) != 0)
        return -1;
    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(err, errlen, "%s: cannot check the recording: pipe: %s", path, strerror(errno));
        return -1;
    }
    fflush(NULL); /* nothing buffered is written twice */
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]), close(fds[1]);
        snprintf(err, errlen, "%s: cannot check the recording: fork: %s", path, strerror(errno));
        return -1;
    }
    if (pid == 0) {
        if (sv_recorded_child_hook)
            sv_recorded_child_hook();
        signal(SIGALRM, SIG_DFL);
        alarm(seconds);
        close(fds[0]);
        char msg[2048] = "";
        int rc = read_all(path_group, msg, sizeof msg);
        if (rc != 0 && write(fds[1], msg, strlen(msg)) < 0)
            rc = -1;
        _exit(rc == 0 ? 0 : 2);
    }
    close(fds[1]);
    size_t got = 0;
    ssize_t n;
    while (errlen > 1 && got < errlen - 1 && (n = read(fds[0], err + got, errlen - 1 - got)) > 0)
        got += (size_t)n;
    err[got] = '\0';
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
        snprintf(err, errlen, "%s: reading the file took more than %u s: libhdf5 loops on it "
                 "(it is corrupt)", path, seconds);
    else if (WIFSIGNALED(status))
        snprintf(err, errlen, "%s: libhdf5 crashed (signal %d) reading the file: it is corrupt "
                 "(the library trusts sizes and offsets the file states)", path,
                 WTERMSIG(status));
    else if (!err[0])
        snprintf(err, errlen, "%s: the check of the recording exited with status %d", path,
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return -1;
}

int sv_recorded_open(const char *path_group, sv_recorded **out, char *err, size_t errlen)
{
    char path[1024], group[256];
    struct stat st;
    *out = NULL;
    sv_rec_split_path(path_group, path, sizeof path, group, sizeof group);
    if (stat(path, &st) != 0 || access(path, R_OK) != 0) {
        snprintf(err, errlen, "%s: cannot read the recording: %s", path, strerror(errno));
        return -1;
    }
    size_t i = 0;
    while (i < n_checked && !same_file(&checked[i], path_group, &st))
        i++;
    if (i == n_checked) {
        if (check_in_child(path, path_group, st.st_size, err, errlen) != 0)
            return -1;
        checked_file *c = &checked[n_checked < 32 ? n_checked++ : 31];
        snprintf(c->path_group, sizeof c->path_group, "%s", path_group);
        c->dev = st.st_dev, c->ino = st.st_ino, c->size = st.st_size, c->mtime = st.st_mtim;
    }
    return sv_rec_open_here(path_group, out, err, errlen);
}
