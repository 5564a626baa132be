/* sampler_host.c: calls into the sampler under test, from the harness's
 * side: each call is made (in the child, or in process under a guard),
 * then checked (outputs' guard zones), and whatever went wrong is told on
 * stderr at once and noted as the case's finding. See sampler_host.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include "device_staging.h"
#include "host_internal.h"

/* The status a crashed call counts as; the finding says what happened. */
#define CRASHED SV_SAMPLER_EINTERNAL

const char *sv_crash_signal_name(int signo)
{
    switch (signo) {
    case SIGSEGV: return "SIGSEGV (segmentation fault: a bad pointer or a stack overflow)";
    case SIGBUS: return "SIGBUS (bus error: a bad or misaligned address)";
    case SIGFPE: return "SIGFPE (arithmetic exception, such as an integer division by 0)";
    case SIGILL: return "SIGILL (illegal instruction, or a trap)";
    case SIGABRT: return "SIGABRT (abort: a failed assert or a corrupt heap)";
    case SIGSYS: return "SIGSYS (a bad system call)";
    case SIGTRAP: return "SIGTRAP (a trap or breakpoint)";
    case SIGKILL: return "SIGKILL";
    default: return strsignal(signo);
    }
}

/* ---- opening and closing ------------------------------------------------------ */

int sv_host_open(const sv_host_config *cfg, sv_host **out)
{
    *out = NULL;
    sv_host *h = calloc(1, sizeof *h);
    if (!h)
        return sv_fail(SV_EENV, "out of memory for the sampler's host");
    h->cfg = *cfg;
    h->K = cfg->mix ? cfg->mix->K : cfg->c->K;
    h->V = cfg->c->V;
    h->memfd = -1;
    h->child = -1;
    pthread_mutex_init(&h->lock, NULL);
    h->slots = calloc((size_t)cfg->slots, sizeof *h->slots);
    if (!h->slots) {
        sv_host_close(h, NULL);
        return sv_fail(SV_EENV, "out of memory for %d sampler slots", cfg->slots);
    }
    for (int32_t i = 0; i < cfg->slots; i++)
        h->slots[i].fd = -1;
    int rc = sv_host_map(h);
    if (rc == SV_OK && cfg->in_process) {
        char err[SV_NOTE_LEN];
        h->sampler = sv_sampler_resolve(cfg->sampler, err, sizeof err);
        rc = h->sampler ? sv_guard_open(h) : sv_fail(SV_EBAD, "%s", err);
    } else if (rc == SV_OK) {
        char err[256];
        if (sv_host_fork(h, err, sizeof err) != 0)
            rc = sv_fail(SV_EENV, "%s", err);
    }
    if (rc != SV_OK) {
        sv_host_close(h, NULL);
        return rc;
    }
    *out = h;
    return SV_OK;
}

/* Waits for the child's end, up to `seconds` (then stops it); under the lock. */
static void reap(sv_host *h, double seconds)
{
    if (h->reaped || h->child <= 0)
        return;
    double until = sv_now() + seconds;
    for (;;) {
        pid_t r = waitpid(h->child, &h->status, seconds > 0 ? WNOHANG : 0);
        if (r == h->child || (r < 0 && errno != EINTR))
            break;
        if (r == 0 && sv_now() > until) {
            kill(h->child, SIGKILL);
            seconds = 0; /* now wait for it */
        } else if (r == 0) {
            struct timespec pause = {0, 2000000};
            nanosleep(&pause, NULL);
        }
    }
    h->reaped = 1;
    /* the sampler's own end (an init may stand between), and nothing it started left */
    h->status = sv_sandbox_end(&h->box, h->status);
    /* a process a server forked for it lives in the server's sandbox: what
     * that one's watch named is this sampler's (sandbox_server.c) */
    const int lost = WIFEXITED(h->status) && WEXITSTATUS(h->status) == SV_SANDBOX_SERVER_LOST;
    char attempt[sizeof h->box.attempt];
    if (sv_sandbox_server_news(attempt, sizeof attempt, &h->box.left, lost ? 2.0 : 0.0) &&
        !h->box.attempt[0])
        memcpy(h->box.attempt, attempt, sizeof attempt);
}

/* A finding about the call whose sequences start at `at` (0 for init). */
static void note(sv_tally *t, int status, uint64_t at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void note(sv_tally *t, int status, uint64_t at, const char *fmt, ...)
{
    t->sampler_error = status;
    char text[SV_NOTE_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    sv_tally_note(t, at, text);
}

/* The first sequence of slot control's call, 0 when it has none. */
static uint64_t call_at(const slot_control *ctl)
{
    return ctl->last >= ctl->first ? ctl->first : 0;
}

void sv_host_close(sv_host *h, sv_tally *t)
{
    if (!h)
        return;
    for (int32_t i = 0; h->slots && i < h->cfg.slots; i++)
        if (h->slots[i].fd >= 0)
            close(h->slots[i].fd); /* the child's threads see the end and return */
    if (h->child > 0) {
        pthread_mutex_lock(&h->lock);
        reap(h, 10.0);
        int own_end = !h->told && !h->timed_out && h->crash && !atomic_load(&h->crash->done);
        h->told = 1;
        pthread_mutex_unlock(&h->lock);
        if (own_end && t) { /* it ended between calls: a thread of the sampler's did it */
            char how[sizeof h->box.attempt + 64];
            if (h->box.attempt[0])
                snprintf(how, sizeof how, "%s (the sandbox refused it and stopped the sampler)",
                         h->box.attempt);
            else if (WIFEXITED(h->status))
                snprintf(how, sizeof how, "ended its process with exit status %d",
                         WEXITSTATUS(h->status));
            else
                snprintf(how, sizeof how, "crashed with %s",
                         sv_crash_signal_name(WTERMSIG(h->status)));
            sv_progress_break();
            fprintf(stderr, "specverify: sampler %s %s outside any call, case %s\n",
                    h->cfg.sampler->name, how, h->cfg.c->name);
            note(t, CRASHED, UINT64_MAX, "sampler %s %s outside any call (on a thread of its own)",
                 h->cfg.sampler->name, how);
        }
        if (h->box.left > 0 && t) { /* a daemon, or a worker it never ended */
            sv_progress_break();
            fprintf(stderr, "specverify: sampler %s left %d process%s running when its process "
                    "ended, case %s; the sandbox killed %s\n", h->cfg.sampler->name,
                    h->box.left, h->box.left == 1 ? "" : "es", h->cfg.c->name,
                    h->box.left == 1 ? "it" : "them");
            note(t, CRASHED, UINT64_MAX, "sampler %s left %d process%s running when its process "
                 "ended (a sampler must end what it starts, in destroy at the latest); the "
                 "sandbox killed %s", h->cfg.sampler->name, h->box.left,
                 h->box.left == 1 ? "" : "es", h->box.left == 1 ? "it" : "them");
        }
    }
    if (h->cfg.in_process)
        sv_guard_close(h);
    sv_host_unmap(h);
    pthread_mutex_destroy(&h->lock);
    free(h->slots);
    free(h);
}

/* ---- what the sampler sees ------------------------------------------------------ */

sv_slot_inputs sv_host_inputs(sv_host *h, int32_t i) { return h->slots[i].in; }
const float *sv_host_target(const sv_host *h) { return h->target; }
const float *sv_host_draft(const sv_host *h) { return h->draft; }
const void *sv_host_logits(const sv_host *h) { return h->logits; }
sv_mix_view sv_host_mix(const sv_host *h) { return h->mix_view; }

/* ---- telling what went wrong --------------------------------------------------- */

/* "verify of sequences 0..4095", or "init"; a probe's sequences (indices
 * from SV_PROBE_INDEX, 2^62, the harness's own) by their count, not by
 * numbers no user can map back */
static void call_words(const slot_control *ctl, int command, char *out, size_t len)
{
    if (command == CMD_VERIFY && ctl->last >= ctl->first && ctl->first >= SV_PROBE_INDEX)
        snprintf(out, len, "verify of a probe's batch of %llu requests",
                 (unsigned long long)ctl->last - (unsigned long long)ctl->first + 1ull);
    else if (command == CMD_VERIFY && ctl->last >= ctl->first)
        snprintf(out, len, "verify of sequences %llu..%llu", (unsigned long long)ctl->first,
                 (unsigned long long)ctl->last);
    else
        snprintf(out, len, "%s", sv_command_name(command));
}

/* Says on stderr, at once, what the sampler did, and notes it as the finding. */
static void tell(sv_host *h, sv_tally *t, const char *what, const slot_control *ctl, int command)
{
    char call[96];
    call_words(ctl, command, call, sizeof call);
    sv_progress_break(); /* a notice mid-run: not glued to the progress line */
    if (command == CMD_VERIFY && ctl->last >= ctl->first)
        fprintf(stderr, "specverify: sampler %s %s in verify, case %s, sequences %llu..%llu\n",
                h->cfg.sampler->name, what, h->cfg.c->name, (unsigned long long)ctl->first,
                (unsigned long long)ctl->last);
    else
        fprintf(stderr, "specverify: sampler %s %s in %s, case %s\n", h->cfg.sampler->name,
                what, call, h->cfg.c->name);
    note(t, CRASHED, call_at(ctl), "sampler %s %s in %s", h->cfg.sampler->name, what, call);
}

/* What a fault did: what it touched, else the signal. */
static void fault_words(const sv_host *h, int32_t i, int signo, uintptr_t addr, int write,
                        char *out, size_t len)
{
    if (signo != SIGSEGV || !sv_host_describe_fault(h, i, addr, write, out, len))
        snprintf(out, len, "crashed with %s", sv_crash_signal_name(signo));
}

/* The child is gone while slot i waited for it: find out why, once, and tell it. */
static void tell_end(sv_host *h, int32_t i, int command, sv_tally *t)
{
    pthread_mutex_lock(&h->lock);
    reap(h, 0);
    int first = !h->told;
    h->told = 1;
    pthread_mutex_unlock(&h->lock);
    t->sampler_error = CRASHED;
    if (!first)
        return; /* one finding for one end; the other slots' calls ended with it */
    const crash_record *r = h->crash;
    const slot_control *ctl = h->slots[i].ctl;
    char what[SV_NOTE_LEN];
    if (h->timed_out) {
        ctl = h->slots[h->timed_slot].ctl;
        command = ctl->command;
        snprintf(what, sizeof what, "did not return within %g s (--call-timeout; it was "
                 "stopped)", h->cfg.call_timeout);
    } else if (atomic_load(&r->taken)) {
        if (r->slot >= 0 && r->in_call) {
            ctl = h->slots[r->slot].ctl;
            command = ctl->command;
        }
        if (r->signo == SIGSYS && r->syscall >= 0) {
            char call[160];
            sv_sandbox_describe_call(r->syscall, r->args[0], r->args[1], r->args[2], call,
                                     sizeof call);
            snprintf(what, sizeof what, "made a system call the sandbox forbids: %s (it was "
                     "stopped)", call);
        } else {
            fault_words(h, r->slot, r->signo, r->addr, r->write_fault, what, sizeof what);
        }
        if (r->slot < 0) { /* not a serving thread: one the sampler made */
            size_t n = strlen(what);
            snprintf(what + n, sizeof what - n, " on a thread it created, during");
            char call[96];
            call_words(ctl, command, call, sizeof call);
            note(t, CRASHED, call_at(ctl), "sampler %s %s %s", h->cfg.sampler->name, what, call);
            sv_progress_break();
            fprintf(stderr, "specverify: sampler %s %s %s, case %s\n", h->cfg.sampler->name,
                    what, call, h->cfg.c->name);
            return;
        }
    } else if (h->box.attempt[0]) { /* the watch named it, and ended the sampler */
        snprintf(what, sizeof what, "%s (the sandbox refused it and stopped the sampler)",
                 h->box.attempt);
    } else if (WIFSIGNALED(h->status)) {
        snprintf(what, sizeof what, "was killed by %s from outside (the out-of-memory killer, "
                 "or a kill)", sv_crash_signal_name(WTERMSIG(h->status)));
    } else {
        snprintf(what, sizeof what, "exited (exit status %d; a sampler must return, not "
                 "exit)", WEXITSTATUS(h->status));
    }
    tell(h, t, what, ctl, command);
}

/* ---- one call ------------------------------------------------------------------- */

/* Sends slot i's command to the child and waits for its answer: 0, or -1
 * when the child is gone (or was stopped: the call passed the time limit). */
static int remote(sv_host *h, int32_t i, int command)
{
    slot *s = &h->slots[i];
    s->ctl->command = command;
    char byte = 1;
    if (send(s->fd, &byte, 1, MSG_NOSIGNAL) != 1)
        return -1;
    const double limit = h->cfg.call_timeout, deadline = sv_now() + limit;
    for (;;) {
        int ms = 60000;
        if (limit > 0) {
            double left = deadline - sv_now();
            if (left <= 0) {
                pthread_mutex_lock(&h->lock);
                if (!h->reaped && !h->timed_out) {
                    h->timed_out = 1;
                    h->timed_slot = i;
                    kill(h->child, SIGKILL);
                }
                pthread_mutex_unlock(&h->lock);
                return -1;
            }
            ms = left * 1000.0 < 60000.0 ? (int)ceil(left * 1000.0) : 60000;
        }
        struct pollfd p = {s->fd, POLLIN, 0};
        int n = poll(&p, 1, ms);
        if (n <= 0)
            continue; /* the time left, or a signal: look again */
        ssize_t r = recv(s->fd, &byte, 1, 0);
        if (r == 1)
            return 0;
        if (r < 0 && errno == EINTR)
            continue;
        return -1;
    }
}

/* Runs command on slot i: 0, or -1 when it crashed or the child ended (told). */
static int make_call(sv_host *h, int32_t i, int command, sv_tally *t)
{
    slot *s = &h->slots[i];
    slot_control *ctl = s->ctl;
    atomic_store(&ctl->started, sv_now());
    atomic_store(&ctl->told, 0);
    atomic_store(&ctl->active, command);
    int ended = 0;
    if (h->cfg.in_process) {
        guarded_call gc = {.command = command};
        if (command == CMD_VERIFY)
            sv_host_protect_inputs(h, i, 1);
        sv_guard_call(h, i, &gc);
        if (command == CMD_VERIFY)
            sv_host_protect_inputs(h, i, 0);
        ctl->rc = gc.rc;
        if (gc.signo) {
            s->crashed = 1;
            char what[SV_NOTE_LEN];
            fault_words(h, i, gc.signo, gc.addr, gc.write_fault, what, sizeof what);
            tell(h, t, what, ctl, command);
            ended = 1;
        }
    } else if (remote(h, i, command) != 0) {
        tell_end(h, i, command, t);
        ended = 1;
    }
    atomic_store(&ctl->active, CMD_NONE);
    return ended ? -1 : 0;
}

int sv_host_init(sv_host *h, int32_t i, sv_tally *t)
{
    slot_control *ctl = h->slots[i].ctl;
    ctl->limits = (sv_limits){h->cfg.batch, h->K, h->V, NULL, 0};
    ctl->resident = h->cfg.mix ? h->in_base : NULL; /* the mix's part leads the inputs */
    ctl->resident_bytes = h->cfg.mix ? h->fixed_bytes : 0;
    ctl->mix = h->cfg.mix;
    ctl->staging = h->cfg.staging ? sv_staging_parts(h->cfg.staging, i) : NULL;
    ctl->err[0] = '\0';
    ctl->env_error = 0;
    ctl->first = 1;
    ctl->last = 0;
    if (make_call(h, i, CMD_INIT, t) != 0)
        return CRASHED;
    if (ctl->rc != SV_SAMPLER_OK)
        note(t, ctl->rc, 0, "%s", ctl->err);
    return ctl->rc;
}

int sv_host_env_error(const sv_host *h, int32_t i, char *err, size_t len)
{
    const slot_control *ctl = h->slots[i].ctl;
    if (!ctl->env_error)
        return SV_OK;
    snprintf(err, len, "%s", ctl->err);
    return SV_EENV;
}

/* A write outside an output, found by its canaries. */
static int check_zone(sv_host *h, const zone *z, const void *data, size_t n, const char *name,
                      const slot_control *ctl, sv_tally *t)
{
    size_t before, after;
    if (!sv_zone_check(z, data, n, &before, &after))
        return 0;
    char what[SV_NOTE_LEN];
    if (after)
        snprintf(what, sizeof what, "wrote %zu byte%s past the end of %s (beyond %s of "
                 "sequence %llu, the call's last)", after, after == 1 ? "" : "s", name,
                 strcmp(name, "out_accepted") != 0 ? "the K+1 slots" : "the count",
                 (unsigned long long)ctl->last);
    else
        snprintf(what, sizeof what, "wrote %zu byte%s before the start of %s (before %s of "
                 "sequence %llu, the call's first)", before, before == 1 ? "" : "s", name,
                 strcmp(name, "out_accepted") != 0 ? "the K+1 slots" : "the count",
                 (unsigned long long)ctl->first);
    tell(h, t, what, ctl, CMD_VERIFY);
    return 1;
}

int sv_host_verify(sv_host *h, int32_t i, sv_batch *bt, sv_tally *t)
{
    slot *s = &h->slots[i];
    slot_control *ctl = s->ctl;
    const size_t B = (size_t)bt->B;
    /* the packed layout's slots end where its last sequence's do: one past is caught */
    const size_t tokens = bt->layout == SV_LAYOUT_PACKED && bt->cu_num_drafts
                              ? (size_t)bt->cu_num_drafts[B] + B
                              : B * (size_t)(bt->K + 1);
    bt->out_tokens = sv_zone_arm(&s->tokens, tokens * sizeof(int32_t));
    bt->out_accepted = sv_zone_arm(&s->accepted, B * sizeof(int32_t));
    const int tree = sv_rule_is_tree(h->cfg.sampler->rule);
    bt->out_path = tree ? sv_zone_arm(&s->path, tokens * sizeof(int32_t)) : NULL;
    /* a self-drafting sampler's drafts, in draft_tokens's layout: in the
     * zone a tree's out_path takes (the two never meet) */
    const size_t drafts = !bt->draft_uniforms ? 0
                          : bt->layout == SV_LAYOUT_PACKED && bt->cu_num_drafts
                              ? (size_t)bt->cu_num_drafts[B]
                                                           : B * (size_t)bt->K;
    if (bt->draft_uniforms)
        bt->out_drafts = sv_zone_arm(&s->path, drafts * sizeof(int32_t));
    for (size_t j = 0; j < tokens; j++) {
        bt->out_tokens[j] = SV_POISON;
        if (tree)
            bt->out_path[j] = SV_POISON;
    }
    for (size_t j = 0; j < drafts; j++)
        bt->out_drafts[j] = SV_POISON;
    for (size_t b = 0; b < B; b++)
        bt->out_accepted[b] = SV_POISON;
    ctl->err[0] = '\0'; /* where the sampler may say why a call failed */
    bt->message = ctl->err;
    bt->message_len = (int32_t)sizeof ctl->err;
    ctl->batch = *bt;
    /* the call's sequences as a range: a probe's batch holds them out of order */
    ctl->first = UINT64_MAX;
    ctl->last = 0;
    for (size_t b = 0; b < B; b++) {
        const uint64_t index = sv_batch_index(bt, (int32_t)b);
        ctl->first = index < ctl->first ? index : ctl->first;
        ctl->last = index > ctl->last ? index : ctl->last;
    }
    if (make_call(h, i, CMD_VERIFY, t) != 0)
        return CRASHED;
    if (check_zone(h, &s->tokens, bt->out_tokens, tokens * sizeof(int32_t), "out_tokens", ctl,
                   t) ||
        check_zone(h, &s->accepted, bt->out_accepted, B * sizeof(int32_t), "out_accepted", ctl,
                   t) ||
        (tree && check_zone(h, &s->path, bt->out_path, tokens * sizeof(int32_t), "out_path",
                            ctl, t)) ||
        (drafts && check_zone(h, &s->path, bt->out_drafts, drafts * sizeof(int32_t),
                              "out_drafts", ctl, t)))
        return CRASHED;
    if (ctl->rc != SV_SAMPLER_OK) {
        ctl->err[sizeof ctl->err - 1] = '\0'; /* the sampler's words, NUL or not */
        char call[96];
        call_words(ctl, CMD_VERIFY, call, sizeof call);
        note(t, ctl->rc, call_at(ctl), "sampler %s: %s returned status %d (%s)%s%s",
             h->cfg.sampler->name, call, ctl->rc, sv_status_name(ctl->rc),
             ctl->err[0] ? ": " : "", ctl->err);
    }
    return ctl->rc;
}

void sv_host_destroy(sv_host *h, int32_t i, sv_tally *t)
{
    if (h->slots[i].crashed)
        return; /* destroying a crashed state could crash again */
    pthread_mutex_lock(&h->lock);
    int gone = h->reaped || h->timed_out;
    pthread_mutex_unlock(&h->lock);
    if (gone)
        return;
    h->slots[i].ctl->first = 1;
    h->slots[i].ctl->last = 0;
    make_call(h, i, CMD_DESTROY, t);
}

/* ---- the watcher's part ---------------------------------------------------------- */

void sv_host_tell_waits(sv_host *h, FILE *out)
{
    for (int32_t i = 0; i < h->cfg.slots; i++) {
        slot_control *ctl = h->slots[i].ctl;
        int command = atomic_load(&ctl->active);
        if (command == CMD_NONE || atomic_exchange(&ctl->told, 1))
            continue;
        char call_text[96];
        call_words(ctl, command, call_text, sizeof call_text);
        sv_progress_break(); /* not glued to a progress line drawn in place */
        fprintf(out, "specverify: %s: waiting for sampler %s's %s (running for %.1f s) to "
                "return; the run stops after it and writes what finished (a second signal "
                "stops at once%s)\n", sv_signal_name(sv_interrupted()), h->cfg.sampler->name,
                call_text, sv_now() - atomic_load(&ctl->started),
                h->cfg.call_timeout > 0 ? "" : "; --call-timeout bounds the wait");
    }
}

void sv_host_watch(sv_host *h)
{
    if (!h->cfg.in_process || h->cfg.call_timeout <= 0)
        return; /* isolated: the waiting thread stops the child itself */
    for (int32_t i = 0; i < h->cfg.slots; i++) {
        slot_control *ctl = h->slots[i].ctl;
        int command = atomic_load(&ctl->active);
        if (command == CMD_NONE || sv_now() - atomic_load(&ctl->started) <= h->cfg.call_timeout)
            continue;
        char call_text[96];
        call_words(ctl, command, call_text, sizeof call_text);
        sv_progress_break();
        fprintf(stderr, "specverify: sampler %s did not return from %s within %g s "
                "(--call-timeout), case %s; a call in process cannot be stopped, so "
                "specverify ends here without reports (without --in-process it would stop "
                "the call and report it)\n", h->cfg.sampler->name, call_text,
                h->cfg.call_timeout, h->cfg.c->name);
        sv_sandbox_exit(SV_EVERIFY);
    }
}
