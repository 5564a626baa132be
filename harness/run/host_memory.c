/* host_memory.c: the memory a sampler is given. Inputs (the case's rows,
 * then each slot's drafts and rows) lie in one mapping the sampler sees
 * read-only; each output buffer lies in a zone between two inaccessible
 * pages, placed so that its last byte ends a canary, which is checked after
 * every call: a write a little past an output lands in the canary, one far
 * past faults on the page. */
#define _GNU_SOURCE /* memfd_create, F_ADD_SEALS */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "host_internal.h"

/* Canary bytes on each side of an output: larger than any plausible slip
 * (256 bytes past, one element before). */
#define GUARD_BYTES 4096
/* Outputs start on a 64-byte boundary, as a vectorised sampler may assume. */
#define OUT_ALIGN 64

static size_t page_size(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

static size_t round_up(size_t n, size_t to)
{
    return (n + to - 1) / to * to;
}

static size_t zone_bytes(size_t data)
{
    return round_up(2 * GUARD_BYTES + OUT_ALIGN + data, page_size());
}

static unsigned char canary(size_t i)
{
    return (unsigned char)(i * 151u + 0x5bu);
}

static size_t fixed_row_bytes(const sv_case *c, size_t *target, size_t *draft)
{
    const size_t K = (size_t)c->K, V = (size_t)c->V;
    if (c->input != SV_INPUT_PROBS) { /* the logits: target rows, then draft rows */
        *target = (K + 1) * V * sv_input_value_bytes(c->input);
        *draft = c->draft_probs_given ? K * V * sv_input_value_bytes(c->input) : 0;
    } else {
        *target = (K + 1) * V * sizeof(float);
        *draft = c->draft_probs_given ? K * V * sizeof(float) : 0;
    }
    return *target + *draft;
}

/* A slot's per-sequence arrays after its drafts and rows: indices, seeds
 * (uint64), cu (B+1), num_drafts (int32), seeded (bytes). */
static size_t slot_array_bytes(size_t B)
{
    return 2 * B * sizeof(uint64_t) + (2 * B + 1) * sizeof(int32_t) + B;
}

static size_t slot_input_bytes(const sv_host *h, size_t *drafts, size_t *target)
{
    const size_t B = (size_t)h->cfg.batch, K = (size_t)h->K, V = (size_t)h->V;
    *drafts = round_up(B * (K ? K : 1) * sizeof(int32_t), page_size());
    *target = h->cfg.rows_per_sequence ? round_up(B * (K + 1) * V * sizeof(float), page_size())
                                       : 0;
    size_t draft = h->cfg.rows_per_sequence ? round_up(B * (K ? K : 1) * V * sizeof(float),
                                                       page_size())
                                            : 0;
    return *drafts + *target + draft + round_up(slot_array_bytes(B), page_size());
}

/* A mix's part of the inputs: each layout's rows, then the per-slot arrays. */
static size_t mix_array_bytes(const sv_mix *m)
{
    const size_t L = (size_t)m->period;
    return L * (2 * sizeof(double) + 2 * sizeof(int32_t) + 1);
}

static size_t mix_bytes(const sv_mix *m)
{
    size_t bytes = 0;
    for (int32_t i = 0; i < m->n_layouts; i++)
        bytes += round_up(sv_mix_rows_bytes(m, m->layout_list[i]), page_size());
    return bytes + round_up(mix_array_bytes(m), page_size());
}

static void lay_out_mix(sv_host *h)
{
    const sv_mix *m = h->cfg.mix;
    unsigned char *p = h->in_base;
    for (int32_t i = 0; i < m->n_layouts; i++) {
        const int32_t layout = m->layout_list[i];
        sv_mix_fill_rows(m, layout, p);
        h->mix_view.rows[layout] = (const char *)p;
        p += round_up(sv_mix_rows_bytes(m, layout), page_size());
    }
    const size_t L = (size_t)m->period;
    /* the doubles first, then the ints, then the bytes: each aligned */
    memcpy(p, m->temperatures, L * sizeof(double));
    h->mix_view.temperatures = (const double *)(const void *)p;
    p += L * sizeof(double);
    memcpy(p, m->top_ps, L * sizeof(double));
    h->mix_view.top_ps = (const double *)(const void *)p;
    p += L * sizeof(double);
    memcpy(p, m->top_ks, L * sizeof(int32_t));
    h->mix_view.top_ks = (const int32_t *)(const void *)p;
    p += L * sizeof(int32_t);
    memcpy(p, m->drafts, L * sizeof(int32_t));
    h->mix_view.num_drafts = (const int32_t *)(const void *)p;
    p += L * sizeof(int32_t);
    memcpy(p, m->seeded, L);
    h->mix_view.seeded = (const uint8_t *)p;
}

static int map_inputs(sv_host *h)
{
    const sv_case *c = h->cfg.c;
    size_t target = 0, draft = 0, drafts, rows;
    h->fixed_bytes = h->cfg.mix                ? mix_bytes(h->cfg.mix)
                     : h->cfg.rows_per_sequence ? 0
                                                : round_up(fixed_row_bytes(c, &target, &draft),
                                                           page_size());
    size_t per_slot = slot_input_bytes(h, &drafts, &rows);
    h->in_bytes = h->fixed_bytes + (size_t)h->cfg.slots * per_slot;
    h->memfd = -1;
    void *base;
    if (h->cfg.in_process) {
        base = mmap(NULL, h->in_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    } else {
        /* a memory file sealed against writes through any mapping made from
         * now on: the child maps it read-only and cannot make it writable;
         * this process keeps the writable mapping it made first */
        h->memfd = memfd_create("specverify-inputs", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        if (h->memfd < 0 || ftruncate(h->memfd, (off_t)h->in_bytes) != 0)
            return sv_fail(SV_EENV, "cannot make %zu bytes of shared memory for the sampler's "
                           "inputs: %s", h->in_bytes, strerror(errno));
        base = mmap(NULL, h->in_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, h->memfd, 0);
        if (base != MAP_FAILED &&
            fcntl(h->memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE) != 0 &&
            errno != EINVAL) /* EINVAL: a kernel before 5.1; the child's mapping is read-only still */
            return sv_fail(SV_EENV, "cannot seal the sampler's inputs: %s", strerror(errno));
    }
    if (base == MAP_FAILED)
        return sv_fail(SV_EENV, "cannot map %zu bytes for the sampler's inputs: %s", h->in_bytes,
                       strerror(errno));
    h->in_base = base;

    if (h->cfg.mix) {
        lay_out_mix(h);
        if (h->cfg.in_process)
            mprotect(h->in_base, h->fixed_bytes, PROT_READ);
    } else if (!h->cfg.rows_per_sequence) { /* the case's rows, copied once */
        const void *from = c->input != SV_INPUT_PROBS ? c->input_logits : (const void *)c->target;
        memcpy(h->in_base, from, target);
        if (c->input != SV_INPUT_PROBS) {
            h->logits = h->in_base;
            if (draft)
                memcpy(h->in_base + target, (const char *)c->input_logits + target, draft);
        } else {
            h->target = (const float *)(const void *)h->in_base;
            if (draft) {
                memcpy(h->in_base + target, c->draft, draft);
                h->draft = (const float *)(const void *)(h->in_base + target);
            }
        }
        if (h->cfg.in_process && h->fixed_bytes)
            mprotect(h->in_base, h->fixed_bytes, PROT_READ);
    }
    for (int32_t i = 0; i < h->cfg.slots; i++) {
        slot *s = &h->slots[i];
        s->in_start = h->in_base + h->fixed_bytes + (size_t)i * per_slot;
        s->in_bytes = per_slot;
        s->in.drafts = (int32_t *)(void *)s->in_start;
        if (h->cfg.rows_per_sequence) {
            s->in.rows_target = (float *)(void *)(s->in_start + drafts);
            s->in.rows_draft = (float *)(void *)(s->in_start + drafts + rows);
        }
        const size_t B = (size_t)h->cfg.batch;
        unsigned char *a = s->in_start + per_slot - round_up(slot_array_bytes(B), page_size());
        s->in.indices = (uint64_t *)(void *)a;
        s->in.seeds = s->in.indices + B;
        s->in.cu = (int32_t *)(void *)(s->in.seeds + B);
        s->in.num_drafts = s->in.cu + B + 1;
        s->in.seeded = (uint8_t *)(s->in.num_drafts + B);
    }
    return SV_OK;
}

static int map_outputs(sv_host *h)
{
    const size_t page = page_size(), B = (size_t)h->cfg.batch, K = (size_t)h->K;
    const size_t ctl = round_up(sizeof(slot_control), page);
    const size_t tokens = zone_bytes(B * (K + 1) * sizeof(int32_t));
    const size_t accepted = zone_bytes(B * sizeof(int32_t));
    /* [crash record] then per slot [control][none][tokens][none][accepted][none] */
    const size_t per_slot = ctl + page + tokens + page + accepted + page;
    h->out_bytes = page + (size_t)h->cfg.slots * per_slot;
    void *base = mmap(NULL, h->out_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                      -1, 0);
    if (base == MAP_FAILED)
        return sv_fail(SV_EENV, "cannot map %zu bytes for the sampler's outputs: %s",
                       h->out_bytes, strerror(errno));
    h->out_base = base;
    h->crash = (crash_record *)base;
    for (int32_t i = 0; i < h->cfg.slots; i++) {
        unsigned char *p = h->out_base + page + (size_t)i * per_slot;
        slot *s = &h->slots[i];
        s->ctl = (slot_control *)(void *)p;
        p += ctl;
        mprotect(p, page, PROT_NONE);
        s->tokens = (zone){p + page, p + page + tokens};
        p += page + tokens;
        mprotect(p, page, PROT_NONE);
        s->accepted = (zone){p + page, p + page + accepted};
        p += page + accepted;
        mprotect(p, page, PROT_NONE);
    }
    return SV_OK;
}

int sv_host_map(sv_host *h)
{
    int rc = map_inputs(h);
    return rc == SV_OK ? map_outputs(h) : rc;
}

void sv_host_unmap(sv_host *h)
{
    if (h->in_base)
        munmap(h->in_base, h->in_bytes);
    if (h->out_base)
        munmap(h->out_base, h->out_bytes);
    if (h->memfd >= 0)
        close(h->memfd);
    h->in_base = h->out_base = NULL;
    h->memfd = -1;
}

void sv_host_protect_inputs(sv_host *h, int32_t i, int read_only)
{
    slot *s = &h->slots[i];
    mprotect(s->in_start, s->in_bytes, read_only ? PROT_READ : PROT_READ | PROT_WRITE);
}

void *sv_zone_arm(const zone *z, size_t n)
{
    /* z->start is page-aligned: an offset aligned from it is aligned */
    const size_t at = ((size_t)(z->end - z->start) - GUARD_BYTES - n) & ~(size_t)(OUT_ALIGN - 1);
    unsigned char *data = z->start + at;
    for (unsigned char *p = z->start; p < data; p++)
        *p = canary((size_t)(p - z->start));
    for (unsigned char *p = data + n; p < z->end; p++)
        *p = canary((size_t)(p - z->start));
    return data;
}

int sv_zone_check(const zone *z, const void *at, size_t n, size_t *before, size_t *after)
{
    const unsigned char *data = at;
    *before = *after = 0;
    for (const unsigned char *p = z->start; p < data; p++)
        if (*p != canary((size_t)(p - z->start))) {
            *before = (size_t)(data - p);
            break;
        }
    for (const unsigned char *p = z->end; p > data + n; p--)
        if (p[-1] != canary((size_t)(p - 1 - z->start))) {
            *after = (size_t)(p - (data + n));
            break;
        }
    return *before || *after;
}

/* ---- what a fault touched --------------------------------------------------------- */

/* Row `row` of a [rows][V] block of `size`-byte values holding addr, or -1. */
static int64_t row_of(uintptr_t addr, const void *block, size_t rows, size_t V, size_t size)
{
    uintptr_t lo = (uintptr_t)block;
    if (!block || addr < lo || addr >= lo + rows * V * size)
        return -1;
    return (int64_t)((addr - lo) / (V * size));
}

static int describe_slot_inputs(const sv_host *h, const slot *s, uintptr_t addr, char *out,
                                size_t len)
{
    const size_t B = (size_t)h->cfg.batch, K = (size_t)h->K, V = (size_t)h->V;
    const unsigned long long first = s->ctl->first;
    int64_t r;
    if ((r = row_of(addr, s->in.drafts, B, K ? K : 1, sizeof(int32_t))) >= 0) {
        snprintf(out, len, "modified its input draft tokens (those of sequence %llu)",
                 first + (unsigned long long)r);
        return 1;
    }
    if ((r = row_of(addr, s->in.rows_target, B * (K + 1), V, sizeof(float))) >= 0) {
        snprintf(out, len, "modified its input rows (target row %lld of sequence %llu)",
                 (long long)((size_t)r % (K + 1)) + 1, first + (unsigned long long)r / (K + 1));
        return 1;
    }
    if (K && (r = row_of(addr, s->in.rows_draft, B * K, V, sizeof(float))) >= 0) {
        snprintf(out, len, "modified its input rows (draft row %lld of sequence %llu)",
                 (long long)((size_t)r % K) + 1, first + (unsigned long long)r / K);
        return 1;
    }
    return 0;
}

static int describe_zone(const zone *z, const char *name, uintptr_t addr, int write,
                         const char *last, char *out, size_t len)
{
    const uintptr_t page = page_size();
    const char *did = write > 0 ? "wrote" : write == 0 ? "read" : "reached";
    if (addr >= (uintptr_t)z->end && addr < (uintptr_t)z->end + page) {
        snprintf(out, len, "%s past the end of %s (beyond %s)", did, name, last);
        return 1;
    }
    if (addr + page >= (uintptr_t)z->start && addr < (uintptr_t)z->start) {
        snprintf(out, len, "%s before the start of %s", did, name);
        return 1;
    }
    return 0;
}

/* A mix's laid-out rows: which case's row, target or draft. */
static int describe_mix(const sv_host *h, uintptr_t addr, char *out, size_t len)
{
    const sv_mix *m = h->cfg.mix;
    const size_t row = (size_t)m->V * sv_input_value_bytes(m->input), K = (size_t)m->K;
    for (int32_t l = 0; l < 2; l++) {
        const char *base = h->mix_view.rows[l];
        if (!base || addr < (uintptr_t)base || addr >= (uintptr_t)base + sv_mix_rows_bytes(m, l))
            continue;
        const size_t off = (size_t)(addr - (uintptr_t)base), doff = sv_mix_draft_rows_offset(m, l);
        const int draft = off >= doff;
        const size_t r = (draft ? off - doff : off) / row; /* the r-th row of its block */
        int32_t s = 0;
        size_t k = 0;
        if (l == SV_LAYOUT_PADDED) {
            s = (int32_t)(r / (draft ? K : K + 1));
            k = r % (draft ? K : K + 1);
        } else { /* packed: the slot whose rows hold row r */
            while (s + 1 < m->period && (size_t)(draft ? m->cu[s + 1] : m->cu[s + 1] + s + 1) <= r)
                s++;
            k = r - (size_t)(draft ? m->cu[s] : m->cu[s] + s);
        }
        snprintf(out, len, "modified its input %s (%s row %zu of a sequence of case %s, in "
                 "the %s layout's rows, laid out once for every batch)",
                 m->input != SV_INPUT_PROBS ? "logits" : "rows", draft ? "draft" : "target",
                 k + 1, m->cases[m->case_of[s]]->name, l == SV_LAYOUT_PACKED ? "packed" : "padded");
        return 1;
    }
    return 0;
}

int sv_host_describe_fault(const sv_host *h, int32_t i, uintptr_t addr, int write, char *out,
                           size_t len)
{
    if (h->cfg.mix && describe_mix(h, addr, out, len))
        return 1;
    const size_t K = (size_t)h->K, V = (size_t)h->V;
    const size_t size = sv_input_value_bytes(h->cfg.c->input);
    int64_t r;
    const char *shared = "one row set, shared by every sequence of the batch";
    if ((r = row_of(addr, h->target, K + 1, V, sizeof(float))) >= 0 ||
        (r = row_of(addr, h->logits, K + 1, V, size)) >= 0) {
        snprintf(out, len, "modified its input %s (target row %lld: %s)",
                 h->logits ? "logits" : "rows", (long long)r + 1, shared);
        return 1;
    }
    const void *draft_logits = h->logits && h->cfg.c->draft_probs_given
                                   ? (const char *)h->logits + (K + 1) * V * size : NULL;
    if ((K && (r = row_of(addr, h->draft, K, V, sizeof(float))) >= 0) ||
        (K && (r = row_of(addr, draft_logits, K, V, size)) >= 0)) {
        snprintf(out, len, "modified its input %s (draft row %lld: %s)",
                 h->logits ? "logits" : "rows", (long long)r + 1, shared);
        return 1;
    }
    /* the faulting slot first, then any: a thread may reach another's memory */
    for (int32_t j = -1; j < h->cfg.slots; j++) {
        if ((j < 0 && i < 0) || (j >= 0 && j == i))
            continue;
        const slot *s = &h->slots[j < 0 ? i : j];
        char last[96];
        snprintf(last, sizeof last, "the slots of sequence %llu, the call's last",
                 (unsigned long long)s->ctl->last);
        if (describe_slot_inputs(h, s, addr, out, len) ||
            describe_zone(&s->tokens, "out_tokens", addr, write, last, out, len) ||
            describe_zone(&s->accepted, "out_accepted", addr, write, last, out, len))
            return 1;
    }
    return 0;
}
