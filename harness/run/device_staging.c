/* device_staging.c: the slots' shared parts of device staging
 * (device_staging.h), and adding what the device counted into a tally. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <string.h>
#include <sys/mman.h>
#include "device_staging.h"

/* The count arrays of one slot, as sv_tally_alloc sizes them. */
static void sizes(const sv_case *c, const sv_pair_plan *plan, size_t *hist, size_t *seq,
                  size_t *pos)
{
    *hist = (size_t)(c->K + 1) * (size_t)c->V;
    *seq = (size_t)plan->seq_rows.nbins * (size_t)plan->seq_cols.nbins;
    *pos = (size_t)plan->pos_rows.nbins * (size_t)plan->pos_cols.nbins;
}

int sv_staging_open_mix(const sv_case *const *cases, const sv_drafter *const *drafters,
                        const sv_pair_plan *plans, int32_t n, int32_t slots, sv_staging **out)
{
    size_t per = 0; /* one slot's counts, every case's */
    for (int32_t i = 0; i < n; i++) {
        size_t hist, seq, pos;
        sizes(cases[i], &plans[i], &hist, &seq, &pos);
        per += (hist + seq + pos) * sizeof(uint64_t);
    }
    const size_t parts = (size_t)slots * (size_t)n;
    const size_t head = sizeof(sv_staging) + parts * sizeof(sv_staging_slot);
    const size_t bytes = head + (size_t)slots * per;
    /* shared, so that a child forked after this writes where the parent reads */
    void *base = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED)
        return sv_fail(SV_EENV, "case %s: --device-staging: cannot map %zu bytes of counts "
                       "shared with the sampler's process", cases[0]->name, bytes);
    sv_staging *s = base;
    s->slots = slots;
    s->n_cases = n;
    s->bytes = bytes;
    s->slot = (sv_staging_slot *)(s + 1);
    uint64_t *counts = (uint64_t *)((char *)base + head);
    for (size_t i = 0; i < parts; i++) {
        const int32_t c = (int32_t)(i % (size_t)n);
        size_t hist, seq, pos;
        sizes(cases[c], &plans[c], &hist, &seq, &pos);
        sv_staging_slot *sl = &s->slot[i];
        memset(sl, 0, sizeof *sl);
        sl->c = cases[c];
        sl->d = drafters[c];
        sl->plan = &plans[c];
        sl->hist = counts;
        sl->pairs_seq = counts + hist;
        sl->pairs_pos = counts + hist + seq;
        counts += hist + seq + pos;
    }
    *out = s;
    return SV_OK;
}

int sv_staging_open(const sv_case *c, const sv_drafter *d, const sv_pair_plan *plan,
                    int32_t slots, sv_staging **out)
{
    return sv_staging_open_mix(&c, &d, plan, 1, slots, out);
}

void sv_staging_close(sv_staging *s)
{
    if (s)
        munmap(s, s->bytes);
}

void sv_staging_collect(const sv_staging_slot *s, sv_tally *t)
{
    if (!s->counted)
        return;
    size_t hist, seq, pos;
    sizes(s->c, s->plan, &hist, &seq, &pos);
    for (size_t i = 0; i < hist; i++)
        t->hist[i] += s->hist[i];
    for (size_t i = 0; i < seq; i++)
        t->pairs_seq[i] += s->pairs_seq[i];
    for (size_t i = 0; i < pos; i++)
        t->pairs_pos[i] += s->pairs_pos[i];
    for (int32_t k = 0; k <= SV_MAX_K; k++) {
        t->reached[k] += s->reached[k];
        t->length[k] += s->length[k];
    }
}
