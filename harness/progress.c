/* progress.c: one status line on stderr (draws done, rate, time left), shown
 * only when stderr is a terminal, so CI logs stay quiet. */
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include "sv_harness.h"

double sv_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void sv_progress_start(sv_progress *p, int enabled, const char *label, uint64_t total)
{
    p->enabled = enabled && isatty(STDERR_FILENO);
    p->label = label;
    p->total = total;
    p->start = p->last = sv_now();
}

void sv_progress_update(sv_progress *p, uint64_t done)
{
    if (!p->enabled)
        return;
    double now = sv_now();
    if (now - p->last < 0.25 && done < p->total)
        return;
    p->last = now;
    double rate = done / (now - p->start + 1e-9);
    double left = rate > 0 ? (double)(p->total - done) / rate : 0.0;
    fprintf(stderr, "\r\033[K%s: %llu/%llu draws, %.2f M/s, %.0f s left", p->label,
            (unsigned long long)done, (unsigned long long)p->total, rate / 1e6, left);
    fflush(stderr);
}

void sv_progress_end(sv_progress *p)
{
    if (p->enabled)
        fprintf(stderr, "\r\033[K");
}
