/* progress.c: how far a long run is (done, rate, time left) on stderr. On a
 * terminal one line redrawn in place; elsewhere (CI logs, a file) a plain
 * line every SV_PROGRESS_SECONDS seconds (default 30; 0: none), so a log
 * never sits silent for minutes, nor fills with carriage returns. */
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "sv_base.h"

#define DEFAULT_INTERVAL 30.0
/* time left is a guess until the rate is measured over this long, or over
 * this share of the work: the first batches include start-up */
#define ETA_MIN_SECONDS 2.0
#define ETA_MIN_SHARE 0.05

/* The whole run the progress lines belong to (a verification's groups of
 * cases, one after another): its time left is the run's, not the group's.
 * showing: a line is drawn in place on the terminal, without its newline. */
static struct {
    int open;
    uint64_t total, done; /* planned draws of the run; draws of the groups that ended */
    double start;
} whole;
static atomic_int showing; /* set by the watcher, taken by any thread with a notice */

double sv_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int sv_progress_interval(double *seconds, char *err, size_t len)
{
    const char *text = getenv("SV_PROGRESS_SECONDS");
    *seconds = DEFAULT_INTERVAL;
    if (!text)
        return 0;
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || errno != 0 || !(v == 0.0 || (v >= 0.1 && v <= 86400.0))) {
        snprintf(err, len, "environment variable SV_PROGRESS_SECONDS='%s' is not 0 (no "
                 "progress lines in logs) or a number of seconds from 0.1 to 86400", text);
        return -1;
    }
    *seconds = v;
    return 0;
}

void sv_format_duration(double seconds, char *out, size_t len)
{
    if (!isfinite(seconds) || seconds < 0.0)
        snprintf(out, len, "unknown");
    else if (seconds < 1.0)
        snprintf(out, len, "under 1 s");
    else if (seconds < 60.0)
        snprintf(out, len, "%.0f s", floor(seconds));
    else if (seconds < 3600.0)
        snprintf(out, len, "%d min %02d s", (int)(seconds / 60.0), (int)fmod(seconds, 60.0));
    else if (seconds < 86400.0)
        snprintf(out, len, "%d h %02d min", (int)(seconds / 3600.0),
                 (int)fmod(seconds / 60.0, 60.0));
    else if (seconds < 100.0 * 86400.0)
        snprintf(out, len, "%d days %d h", (int)(seconds / 86400.0),
                 (int)fmod(seconds / 3600.0, 24.0));
    else
        snprintf(out, len, "over 100 days");
}

void sv_progress_left(uint64_t done, uint64_t total, double elapsed, char *out, size_t len)
{
    if (done >= total) {
        snprintf(out, len, "done");
        return;
    }
    const int measured = done > 0 && (elapsed >= ETA_MIN_SECONDS ||
                                      (double)done >= ETA_MIN_SHARE * (double)total);
    if (!measured) {
        snprintf(out, len, "time left unknown");
        return;
    }
    char when[48];
    sv_format_duration((double)(total - done) * elapsed / (double)done, when, sizeof when);
    snprintf(out, len, "%s left", when);
}

void sv_progress_run_left(uint64_t before, uint64_t planned, uint64_t done, uint64_t total,
                          double elapsed, char *out, size_t len)
{
    /* the groups may draw more than planned (a suspect's re-run, a shard's
     * share rounded up): never less left than this group's own rest */
    uint64_t run_total = planned > before + total ? planned : before + total;
    sv_progress_left(before + done, run_total, elapsed, out, len);
}

void sv_progress_run_begin(uint64_t planned)
{
    whole.open = 1;
    whole.total = planned;
    whole.done = 0;
    whole.start = sv_now();
}

void sv_progress_run_end(void)
{
    whole.open = 0;
}

void sv_progress_break(void)
{
    if (atomic_exchange(&showing, 0))
        fputc('\n', stderr);
}

void sv_progress_start(sv_progress *p, int enabled, const char *label, uint64_t total)
{
    char err[160];
    p->terminal = isatty(STDERR_FILENO);
    if (sv_progress_interval(&p->interval, err, sizeof err) != 0)
        p->interval = DEFAULT_INTERVAL; /* main() refuses it before any command runs */
    p->enabled = enabled && (p->terminal || p->interval > 0.0);
    p->label = label;
    p->unit = "draws";
    p->total = total;
    p->done = 0;
    p->start = p->last = sv_now();
}

void sv_progress_unit(sv_progress *p, const char *unit)
{
    p->unit = unit;
}

void sv_progress_update(sv_progress *p, uint64_t done)
{
    p->done = done;
    if (!p->enabled)
        return;
    double now = sv_now();
    if (p->terminal ? now - p->last < 0.25 && done < p->total : now - p->last < p->interval)
        return;
    p->last = now;
    const double elapsed = now - p->start;
    const double rate = elapsed > 0.0 ? (double)done / elapsed : 0.0;
    char left[64], speed[32];
    if (whole.open)
        sv_progress_run_left(whole.done, whole.total, done, p->total, now - whole.start, left,
                             sizeof left);
    else
        sv_progress_left(done, p->total, elapsed, left, sizeof left);
    if (rate >= 1e5)
        snprintf(speed, sizeof speed, "%.2f M", rate / 1e6);
    else
        snprintf(speed, sizeof speed, rate >= 10.0 ? "%.0f" : "%.2g", rate);
    fprintf(stderr, "%s%s: %llu/%llu %s (%.0f%%), %s %s/s, %s%s", p->terminal ? "\r\033[K" : "",
            p->label, (unsigned long long)done, (unsigned long long)p->total, p->unit,
            p->total ? 100.0 * (double)done / (double)p->total : 100.0, speed, p->unit, left,
            p->terminal ? "" : "\n");
    fflush(stderr);
    atomic_store(&showing, p->terminal);
}

void sv_progress_end(sv_progress *p)
{
    if (whole.open)
        whole.done += p->done;
    if (p->enabled && p->terminal) {
        fprintf(stderr, "\r\033[K");
        atomic_store(&showing, 0);
    }
}
