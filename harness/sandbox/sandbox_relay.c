/* sandbox_relay.c: what the sampler's process prints, relayed to the
 * harness's stderr a line at a time, escaped (control characters shown as
 * \n, \x1b: no line of its can end, erase or forge one of the harness's)
 * and labelled with the sampler's name. A sampler that prints without end
 * is shown up to a limit, then counted. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "sandbox_internal.h"
#include "sv_base.h"

#define LINE_MAX_SHOWN 1024           /* bytes of one line shown, before escaping */
#define BYTES_SHOWN ((size_t)64 << 10) /* of one process's output */

typedef struct relay_state {
    char line[LINE_MAX_SHOWN];
    size_t n, shown, hidden;
    int cut; /* the line went past LINE_MAX_SHOWN */
} relay_state;

static void emit(const sv_sandboxed *box, relay_state *st)
{
    if (st->shown >= BYTES_SHOWN) {
        st->hidden += st->n;
    } else {
        char text[4 * LINE_MAX_SHOWN + 8];
        sv_escape(text, sizeof text, st->line, st->n);
        sv_progress_break(); /* not glued to a progress line */
        fprintf(stderr, "specverify: sampler %s printed: %s%s\n", box->label, text,
                st->cut ? " [line cut]" : "");
        st->shown += st->n;
    }
    st->n = 0;
    st->cut = 0;
}

static void take(const sv_sandboxed *box, relay_state *st, const char *buf, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (buf[i] == '\n') {
            emit(box, st);
        } else if (st->n < LINE_MAX_SHOWN) {
            st->line[st->n++] = buf[i];
        } else {
            st->cut = 1;
            st->hidden++;
        }
    }
}

static void *relay_main(void *arg)
{
    sv_sandboxed *box = arg;
    relay_state st;
    memset(&st, 0, sizeof st);
    char buf[4096];
    __atomic_store_n(&box->relay_up, 1, __ATOMIC_RELEASE); /* its start is done */
    size_t after_stop = 0; /* read since told to stop: a leftover writer cannot keep it */
    for (;;) {
        struct pollfd p = {box->relay_fd, POLLIN, 0};
        int r = poll(&p, 1, 50);
        const int stopping = __atomic_load_n(&box->stop, __ATOMIC_ACQUIRE);
        if (stopping && (r == 0 || after_stop > BYTES_SHOWN))
            break; /* told to finish, and nothing more is coming now */
        if (r == 0)
            continue;
        if (r < 0 && errno == EINTR)
            continue;
        ssize_t got = r < 0 ? -1 : read(box->relay_fd, buf, sizeof buf);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break; /* every writer is gone */
        take(box, &st, buf, (size_t)got);
        if (stopping)
            after_stop += (size_t)got;
    }
    if (st.n)
        emit(box, &st);
    if (st.hidden) {
        sv_progress_break();
        fprintf(stderr, "specverify: sampler %s printed %zu more bytes, not shown\n",
                box->label, st.hidden);
    }
    return NULL;
}

/* Returns once the thread has started: a fork while a new thread is still
 * setting itself up can copy a lock of the allocator's that thread holds
 * (AddressSanitizer's, which takes no care of fork here), and the child
 * then waits on it for ever. At 414ff35 and 387b5e5 a Python sampler's
 * load probe, forked just after the fork server's relay started, hung so
 * in the sanitizer build (found with gdb: the probe in ASan's
 * SizeClassAllocator64::GetFromAllocator under seccomp_load). */
int sv_relay_start(sv_sandboxed *box)
{
    box->stop = 0;
    box->relay_up = 0;
    box->relaying = pthread_create(&box->relay, NULL, relay_main, box) == 0;
    const struct timespec pause = {0, 200000};
    /* 5 s at most: a thread not up by then is left to come */
    for (int i = 0; box->relaying && i < 25000; i++) {
        if (__atomic_load_n(&box->relay_up, __ATOMIC_ACQUIRE))
            break;
        nanosleep(&pause, NULL);
    }
    return box->relaying ? 0 : -1;
}

void sv_relay_stop(sv_sandboxed *box)
{
    if (box->relaying) {
        __atomic_store_n(&box->stop, 1, __ATOMIC_RELEASE);
        pthread_join(box->relay, NULL);
        box->relaying = 0;
    }
    if (box->relay_fd >= 0) {
        close(box->relay_fd);
        box->relay_fd = -1;
    }
}
