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
 * (uint64), cu (B+1), num_drafts (int32), parents (B K int32, a tree
 * batch's), seeded (bytes). */
static size_t slot_array_bytes(size_t B, size_t K)
{
    /* draft uniforms (doubles first, aligned), indices and seeds, then the int32s */
    return B * (K ? K : 1) * sizeof(double) + 2 * B * sizeof(uint64_t) +
           (2 * B + 1 + B * (K ? K : 1)) * sizeof(int32_t) + B;
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
    return *drafts + *target + draft + round_up(slot_array_bytes(B, K), page_size());
}

/* A mix's part of the inputs. In the memory file: each layout's rows once
 * (target rows, then draft rows), then the per-slot arrays. In the address
 * space, where the mix is aliased (copies > 1): each layout's target rows
 * mapped `copies` times back to back, then its draft rows likewise, so the
 * slots r .. r + epoch - 1 lie at one stride, at no cost in memory; the
 * arrays are written out for copies x L slots (a few bytes each). */
static size_t mix_array_bytes(const sv_mix *m)
{
    const size_t n = (size_t)m->period * (size_t)m->copies;
    return n * (2 * sizeof(double) + 2 * sizeof(int32_t) + 1);
}

/* Bytes of a layout's rows in the file, and in the address space. */
static size_t layout_file_bytes(const sv_mix *m, int32_t layout)
{
    return round_up(sv_mix_rows_bytes(m, layout), page_size());
}

size_t sv_mix_layout_span_bytes(const sv_mix *m, int32_t layout)
{
    /* aliased rows fill whole pages (mix.c), so the copies meet exactly */
    return m->copies == 1 ? layout_file_bytes(m, layout)
                          : (size_t)m->copies * sv_mix_rows_bytes(m, layout);
}

static size_t mix_bytes(const sv_mix *m, int span)
{
    size_t bytes = 0;
    for (int32_t i = 0; i < m->n_layouts; i++)
        bytes += span ? sv_mix_layout_span_bytes(m, m->layout_list[i])
                      : layout_file_bytes(m, m->layout_list[i]);
    return bytes + round_up(mix_array_bytes(m), page_size());
}

/* Maps the inputs from the memory file at h->in_base, with prot: the mix's
 * copies piece by piece, then the rest at its place. 0, or -1 with errno. */
static int map_pieces(const sv_host *h, int prot, int populate)
{
    const sv_mix *m = h->cfg.mix;
    const int flags = MAP_SHARED | MAP_FIXED | (populate ? MAP_POPULATE : 0);
    size_t at = 0, from = 0;
    for (int32_t i = 0; m && m->copies > 1 && i < m->n_layouts; i++) {
        const int32_t l = m->layout_list[i];
        const size_t part[2] = {sv_mix_target_bytes(m, l), sv_mix_draft_bytes(m, l)};
        for (int p = 0; p < 2; p++) {
            for (int32_t c = 0; part[p] && c < m->copies; c++, at += part[p])
                if (mmap(h->in_base + at, part[p], prot, flags, h->memfd, (off_t)from) ==
                    MAP_FAILED)
                    return -1;
            from += part[p];
        }
        from = round_up(from, page_size());
    }
    const size_t rest = h->in_bytes - at;
    return mmap(h->in_base + at, rest, prot, flags, h->memfd, (off_t)from) == MAP_FAILED ? -1 : 0;
}

int sv_host_map_readonly(sv_host *h)
{
    /* the child reads every copy: populating them now costs less than a
     * page fault on each page of each copy in the calls */
    return map_pieces(h, PROT_READ, h->cfg.mix && h->cfg.mix->copies > 1);
}

static void lay_out_mix(sv_host *h)
{
    const sv_mix *m = h->cfg.mix;
    unsigned char *p = h->in_base;
    for (int32_t i = 0; i < m->n_layouts; i++) {
        const int32_t layout = m->layout_list[i];
        /* through the first copy: the others show the same memory */
        sv_mix_fill_rows(m, layout, p, m->draft_probs ? p + sv_mix_draft_rows_offset(m, layout)
                                                      : NULL);
        h->mix_view.rows[layout] = (const char *)p;
        p += sv_mix_layout_span_bytes(m, layout);
    }
    const size_t L = (size_t)m->period, n = L * (size_t)m->copies;
    /* the doubles first, then the ints, then the bytes: each aligned; slot
     * v of the copies is slot v % L */
    double *temperatures = (double *)(void *)p, *top_ps = temperatures + n;
    int32_t *top_ks = (int32_t *)(void *)(top_ps + n), *num_drafts = top_ks + n;
    uint8_t *seeded = (uint8_t *)(num_drafts + n);
    for (size_t v = 0; v < n; v++) {
        temperatures[v] = m->temperatures[v % L];
        top_ps[v] = m->top_ps[v % L];
        top_ks[v] = m->top_ks[v % L];
        num_drafts[v] = m->drafts[v % L];
        seeded[v] = m->seeded[v % L];
    }
    h->mix_view.temperatures = temperatures;
    h->mix_view.top_ps = top_ps;
    h->mix_view.top_ks = top_ks;
    h->mix_view.num_drafts = num_drafts;
    h->mix_view.seeded = seeded;
}

static int map_inputs(sv_host *h)
{
    const sv_case *c = h->cfg.c;
    const sv_mix *m = h->cfg.mix;
    size_t target = 0, draft = 0, drafts, rows;
    h->fixed_bytes = m                         ? mix_bytes(m, 1)
                     : h->cfg.rows_per_sequence ? 0
                                                : round_up(fixed_row_bytes(c, &target, &draft),
                                                           page_size());
    size_t per_slot = slot_input_bytes(h, &drafts, &rows);
    h->in_bytes = h->fixed_bytes + (size_t)h->cfg.slots * per_slot;
    /* the file holds each aliased row once */
    const size_t file_bytes = h->in_bytes - (m ? h->fixed_bytes - mix_bytes(m, 0) : 0);
    const int aliased = m && m->copies > 1;
    h->memfd = -1;
    void *base;
    if (h->cfg.in_process && !aliased) {
        base = mmap(NULL, h->in_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    } else {
        /* a memory file sealed against writes through any mapping made from
         * now on: the child maps it read-only and cannot make it writable;
         * this process keeps the writable mappings it made first */
        h->memfd = memfd_create("specverify-inputs", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        if (h->memfd < 0 || ftruncate(h->memfd, (off_t)file_bytes) != 0)
            return sv_fail(SV_EENV, "cannot make %zu bytes of shared memory for the sampler's "
                           "inputs: %s", file_bytes, strerror(errno));
        if (aliased) { /* the address space first, then the pieces into it */
            base = mmap(NULL, h->in_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            h->in_base = base == MAP_FAILED ? NULL : base;
            if (base != MAP_FAILED && map_pieces(h, PROT_READ | PROT_WRITE, 0) != 0)
                return sv_fail(SV_EENV, "cannot map the mix's rows %d times over: %s",
                               m->copies, strerror(errno));
        } else {
            base = mmap(NULL, h->in_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, h->memfd, 0);
        }
        if (base != MAP_FAILED &&
            fcntl(h->memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE) != 0 &&
            errno != EINVAL) /* EINVAL: a kernel before 5.1; the child's mapping is read-only still */
            return sv_fail(SV_EENV, "cannot seal the sampler's inputs: %s", strerror(errno));
        if (h->cfg.in_process) { /* aliased in this process: the file served its turn */
            close(h->memfd);
            h->memfd = -1;
        }
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
        const size_t B = (size_t)h->cfg.batch, K = (size_t)h->K;
        unsigned char *a = s->in_start + per_slot - round_up(slot_array_bytes(B, K), page_size());
        s->in.draft_uniforms = (double *)(void *)a;
        s->in.indices = (uint64_t *)(void *)(s->in.draft_uniforms + B * (K ? K : 1));
        s->in.seeds = s->in.indices + B;
        s->in.cu = (int32_t *)(void *)(s->in.seeds + B);
        s->in.num_drafts = s->in.cu + B + 1;
        s->in.parents = s->in.num_drafts + B;
        s->in.seeded = (uint8_t *)(s->in.parents + B * (K ? K : 1));
    }
    return SV_OK;
}

static int map_outputs(sv_host *h)
{
    const size_t page = page_size(), B = (size_t)h->cfg.batch, K = (size_t)h->K;
    const size_t ctl = round_up(sizeof(slot_control), page);
    const size_t tokens = zone_bytes(B * (K + 1) * sizeof(int32_t));
    const size_t accepted = zone_bytes(B * sizeof(int32_t));
    /* [crash record] then per slot [control][none][tokens][none][accepted][none]
     * [path][none]: path is a tree batch's out_path, out_tokens's size, or a
     * self-drafting sampler's out_drafts (fewer: one less a sequence) */
    const size_t per_slot = ctl + page + tokens + page + accepted + page + tokens + page;
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
        s->path = (zone){p + page, p + page + tokens};
        p += page + tokens;
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

/* The canary has period 256 (151 is odd), so one 512-byte copy of it holds
 * every run of up to 256 bytes from any phase: arming and checking a zone
 * are then memcpy and memcmp, whose cost stays small beside a small batch's
 * call even where the zone is sized for the largest batch. */
static void canary_pattern(unsigned char pattern[512])
{
    for (size_t i = 0; i < 512; i++)
        pattern[i] = canary(i);
}

static void canary_fill(unsigned char *start, size_t from, size_t to)
{
    unsigned char pattern[512];
    canary_pattern(pattern);
    for (size_t o = from; o < to;) {
        const size_t n = to - o < 256 ? to - o : 256;
        memcpy(start + o, pattern + (o & 255), n);
        o += n;
    }
}

/* The lowest (first = 1) or highest offset in [from, to) whose byte is not
 * the canary's, or `to` when every byte is. */
static size_t canary_bad(const unsigned char *start, size_t from, size_t to, int first)
{
    unsigned char pattern[512];
    canary_pattern(pattern);
    size_t bad = to;
    for (size_t o = from; o < to; o += 256) {
        const size_t end = to - o < 256 ? to : o + 256;
        if (memcmp(start + o, pattern + (o & 255), end - o) == 0)
            continue;
        for (size_t i = o; i < end; i++) /* the run differs: find the byte */
            if (start[i] != pattern[i & 255]) {
                bad = i;
                if (first)
                    return bad;
            }
    }
    return bad;
}

void *sv_zone_arm(const zone *z, size_t n)
{
    /* z->start is page-aligned: an offset aligned from it is aligned */
    const size_t total = (size_t)(z->end - z->start);
    const size_t at = (total - GUARD_BYTES - n) & ~(size_t)(OUT_ALIGN - 1);
    canary_fill(z->start, 0, at);
    canary_fill(z->start, at + n, total);
    return z->start + at;
}

int sv_zone_check(const zone *z, const void *at, size_t n, size_t *before, size_t *after)
{
    const size_t total = (size_t)(z->end - z->start);
    const size_t data = (size_t)((const unsigned char *)at - z->start);
    *before = *after = 0;
    size_t bad = canary_bad(z->start, 0, data, 1);
    if (bad < data)
        *before = data - bad;
    bad = canary_bad(z->start, data + n, total, 0);
    if (bad < total)
        *after = bad + 1 - (data + n);
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
        const size_t copies = (size_t)m->copies, tb = sv_mix_target_bytes(m, l);
        const size_t db = sv_mix_draft_bytes(m, l);
        if (!base || addr < (uintptr_t)base || addr >= (uintptr_t)base + copies * (tb + db))
            continue;
        const size_t off = (size_t)(addr - (uintptr_t)base), doff = sv_mix_draft_rows_offset(m, l);
        const int draft = off >= doff;
        /* the r-th row of its block, in whichever copy */
        const size_t r = (draft ? (off - doff) % db : off % tb) / row;
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
            describe_zone(&s->accepted, "out_accepted", addr, write, last, out, len) ||
            describe_zone(&s->path, "out_path", addr, write, last, out, len))
            return 1;
    }
    return 0;
}
