/* mix.c: which case, how many drafts and what seeding each sequence of a
 * mixed run has (docs/design.md, "Mixed batches").
 *
 * The cases of a mix share V, the input mode and the kind of drafter, so one
 * batch can hold them all. Sequences are dealt in periods of L slots: slot s
 * holds case case_of[s] with drafts[s] drafts, seeded or not; the rows of
 * the L slots are laid out once, read-only. Where they fill whole pages the
 * host maps them `copies` times back to back, and an epoch of (copies - 1) L
 * sequences is one run of slots; else an epoch is one period, cut where it
 * wraps. Epoch e starts at slot rot(e) and takes the next layout, so the
 * neighbours a sequence has change from epoch to epoch. Everything is a
 * function of the seed and the sequence index alone, never of the batch or
 * the threads.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sv_run.h"
#include "sv_philox.h"

/* Purposes of the harness's own numbers here, apart from any sampler's. */
#define MIX_PURPOSE 0x6d697800u /* "mix" */
enum { MIX_SHUFFLE = 0, MIX_DRAFTS = 1, MIX_SEEDED = 2, MIX_ROTATE = 3 };

static double mix_u(uint64_t seed, uint64_t index, uint32_t what)
{
    return sv_philox_uniform(seed, index, what, MIX_PURPOSE, 0);
}

uint64_t sv_mix_sequence_seed(uint64_t seed, uint64_t index)
{
    /* a seeded request's own seed: distinct per sequence, fixed by (seed, index) */
    uint64_t z = seed ^ (index * 0x9e3779b97f4a7c15ull) ^ 0x5eed5eed5eed5eedull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Bytes one slot's rows take at most, in every layout laid out. */
static size_t slot_bytes(const sv_case *const *cases, int32_t n, uint32_t layouts)
{
    int32_t K = 0;
    for (int32_t i = 0; i < n; i++)
        K = cases[i]->K > K ? cases[i]->K : K;
    const size_t size = sv_input_value_bytes(cases[0]->input), V = (size_t)cases[0]->V;
    size_t per = ((size_t)K + 1 + (cases[0]->draft_probs_given ? (size_t)K : 0)) * V * size;
    if (layouts == (SV_LAYOUT_BIT(SV_LAYOUT_PADDED) | SV_LAYOUT_BIT(SV_LAYOUT_PACKED)))
        per *= 2; /* both laid out, the packed one at most as large */
    return per;
}

int32_t sv_mix_period_for(const sv_case *const *cases, int32_t n, uint32_t layouts,
                          size_t budget)
{
    const size_t per = slot_bytes(cases, n, layouts);
    size_t L = per ? budget / per : SV_MIX_MAX_PERIOD;
    if (L > SV_MIX_MAX_PERIOD)
        L = SV_MIX_MAX_PERIOD;
    L &= ~(size_t)1; /* even: the pairs (2m, 2m+1) stay in one batch */
    return L < 2 ? 2 : (int32_t)L;
}

/* Slots per case, in proportion to its draws, at least 2 each (largest remainders). */
static int allot(const uint64_t *draws, int32_t n, int32_t L, int32_t *slots)
{
    double total = 0.0;
    for (int32_t i = 0; i < n; i++)
        total += (double)draws[i];
    if (2 * n > L || total <= 0.0)
        return -1;
    int32_t used = 0;
    double *rest = malloc((size_t)n * sizeof *rest);
    if (!rest)
        return -1;
    const int32_t free_slots = L - 2 * n;
    for (int32_t i = 0; i < n; i++) {
        double share = (double)free_slots * (double)draws[i] / total;
        slots[i] = 2 + (int32_t)share;
        rest[i] = share - (double)(int32_t)share;
        used += slots[i];
    }
    while (used < L) { /* the largest remainders get the slots left */
        int32_t best = 0;
        for (int32_t i = 1; i < n; i++)
            if (rest[i] > rest[best])
                best = i;
        slots[best]++;
        rest[best] = -1.0;
        used++;
    }
    free(rest);
    return 0;
}

void sv_mix_free(sv_mix *m)
{
    if (!m)
        return;
    free(m->case_of);
    free(m->drafts);
    free(m->seeded);
    free(m->cu);
    free(m->temperatures);
    free(m->top_ks);
    free(m->top_ps);
    free(m->index_of);
    free(m);
}

static sv_mix *mix_alloc(const sv_case *const *cases, int32_t n, int32_t L)
{
    sv_mix *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->n_cases = n;
    m->cases = cases;
    m->period = L;
    m->case_of = calloc((size_t)L, sizeof *m->case_of);
    m->drafts = calloc((size_t)L, sizeof *m->drafts);
    m->seeded = calloc((size_t)L, sizeof *m->seeded);
    m->cu = calloc((size_t)L + 1, sizeof *m->cu);
    m->temperatures = calloc((size_t)L, sizeof *m->temperatures);
    m->top_ks = calloc((size_t)L, sizeof *m->top_ks);
    m->top_ps = calloc((size_t)L, sizeof *m->top_ps);
    if (!m->case_of || !m->drafts || !m->seeded || !m->cu || !m->temperatures || !m->top_ks ||
        !m->top_ps) {
        sv_mix_free(m);
        return NULL;
    }
    m->V = cases[0]->V;
    m->input = cases[0]->input;
    m->draft_probs = cases[0]->draft_probs_given;
    for (int32_t i = 0; i < n; i++)
        m->K = cases[i]->K > m->K ? cases[i]->K : m->K;
    return m;
}

/* The per-slot fields that follow from case_of and drafts. */
static void finish_slots(sv_mix *m)
{
    for (int32_t s = 0; s < m->period; s++) {
        const sv_case *c = m->cases[m->case_of[s]];
        m->cu[s + 1] = m->cu[s] + m->drafts[s];
        m->temperatures[s] = c->sampling.T;
        m->top_ks[s] = c->sampling.top_k;
        m->top_ps[s] = c->sampling.top_p > 0.0 ? c->sampling.top_p : 1.0;
    }
}

static int check_group(const sv_case *const *cases, int32_t n)
{
    for (int32_t i = 1; i < n; i++)
        if (cases[i]->V != cases[0]->V || cases[i]->input != cases[0]->input ||
            cases[i]->draft_probs_given != cases[0]->draft_probs_given || cases[i]->chain)
            return sv_fail(SV_EBAD, "cases %s and %s cannot share a batch (V, input or "
                           "drafter differ)", cases[0]->name, cases[i]->name);
    if (cases[0]->chain)
        return sv_fail(SV_EBAD, "case %s: a Markov pair is not mixed", cases[0]->name);
    return SV_OK;
}

/* Rows a period's slot count must be a multiple of for its rows to fill
 * whole pages in either layout: a page over gcd(page, one row's bytes). */
static size_t row_alignment(const sv_case *c)
{
    long page = sysconf(_SC_PAGESIZE);
    size_t a = page > 0 ? (size_t)page : 4096, b = (size_t)c->V * sv_input_value_bytes(c->input);
    const size_t p = a;
    while (b) {
        size_t t = a % b;
        a = b;
        b = t;
    }
    return p / a;
}

/* The aliased period: L rounded up to a multiple of the row alignment R,
 * or 0 where that would lay out more than four aliased budgets of rows (a
 * vocabulary like 32003, whose rows share no factor with a page). */
static int32_t aliased_period(const sv_mix_config *cfg, int32_t L, size_t R)
{
    const size_t step = R % 2 ? 2 * R : R, A = ((size_t)L + step - 1) / step * step;
    if (A > SV_MIX_MAX_PERIOD ||
        A * slot_bytes(cfg->cases, cfg->n_cases, cfg->layouts) > 4 * SV_MIX_ALIAS_BUDGET)
        return 0;
    return (int32_t)A;
}

/* Moves the short slots' drafts (those below their case's K, already
 * ragged) one at a time, up or down, until a period's drafts are a
 * multiple of the row alignment, so the packed rows fill whole pages too;
 * the slots given their K keep it. 0 where that cannot be done. */
static int align_drafts(sv_mix *m, size_t R)
{
    int64_t total = 0, room_up = 0, room_down = 0;
    for (int32_t s = 0; s < m->period; s++) {
        const int32_t K = m->cases[m->case_of[s]]->K, d = m->drafts[s];
        total += d;
        if (d < K) { /* a short slot stays short: at most K - 1 */
            room_up += K - 1 - d;
            room_down += d;
        }
    }
    const int64_t excess = total % (int64_t)R, up = excess ? (int64_t)R - excess : 0;
    if (!m->ragged || excess == 0)
        return excess == 0;
    const int step = up <= room_up ? 1 : -1;
    int64_t left = step > 0 ? up : excess;
    if (step < 0 && excess > room_down)
        return 0;
    while (left > 0) /* one a slot per pass, from the last: spread, not piled */
        for (int32_t s = m->period - 1; s >= 0 && left > 0; s--) {
            const int32_t K = m->cases[m->case_of[s]]->K, d = m->drafts[s];
            if (d < K && (step > 0 ? d < K - 1 : d > 0)) {
                m->drafts[s] = d + step;
                left--;
            }
        }
    return 1;
}

/* How many times the period's rows are mapped: enough for an epoch of about
 * SV_MIX_EPOCH sequences, within SV_MIX_ALIAS_SPAN of address space. */
static void set_copies(sv_mix *m)
{
    size_t largest = 0;
    for (int32_t i = 0; i < m->n_layouts; i++) {
        size_t b = sv_mix_rows_bytes(m, m->layout_list[i]);
        largest = b > largest ? b : largest;
    }
    size_t periods = (SV_MIX_EPOCH + (size_t)m->period - 1) / (size_t)m->period;
    if (largest && periods > SV_MIX_ALIAS_SPAN / largest)
        periods = SV_MIX_ALIAS_SPAN / largest;
    if (periods < 1)
        periods = 1;
    m->copies = (int32_t)periods + 1; /* one more: a rotated epoch runs into it */
    m->epoch = (uint64_t)periods * (uint64_t)m->period;
}

int sv_mix_build(const sv_mix_config *cfg, sv_mix **out)
{
    *out = NULL;
    const int32_t n = cfg->n_cases;
    if (n < 1 || check_group(cfg->cases, n) != SV_OK)
        return n < 1 ? sv_fail(SV_EBAD, "a mix of no cases") : SV_EBAD;
    const int may_alias = cfg->alias && cfg->period <= 0;
    size_t budget = cfg->budget;
    if (may_alias && budget > SV_MIX_ALIAS_BUDGET)
        budget = SV_MIX_ALIAS_BUDGET;
    int32_t L = cfg->period > 0 ? cfg->period
                                : sv_mix_period_for(cfg->cases, n, cfg->layouts, budget);
    if (L < 2 * n)
        L = 2 * n; /* every case at least twice a period, whatever the memory */
    const size_t R = row_alignment(cfg->cases[0]);
    int32_t A = may_alias ? aliased_period(cfg, L, R) : 0;
    if (A)
        L = A; /* calls are not bounded by the period: no minimum */
    else if (L < SV_MIX_MIN_PERIOD)
        L = SV_MIX_MIN_PERIOD; /* calls of a few sequences would cost more than they do */
    sv_mix *m = mix_alloc(cfg->cases, n, L);
    int32_t *slots = malloc((size_t)n * sizeof *slots);
    if (!m || !slots || allot(cfg->draws, n, L, slots) != 0) {
        sv_mix_free(m);
        free(slots);
        return sv_fail(SV_EENV, "out of memory for a mix of %d cases", n);
    }
    m->seed = cfg->seed;
    m->v3 = cfg->layouts != 0;
    m->ragged = cfg->ragged && m->v3; /* older samplers: every d_b = K, none seeded */
    m->rotate = 1;
    if (cfg->layouts & SV_LAYOUT_BIT(SV_LAYOUT_PADDED))
        m->layout_list[m->n_layouts++] = SV_LAYOUT_PADDED;
    if (cfg->layouts & SV_LAYOUT_BIT(SV_LAYOUT_PACKED))
        m->layout_list[m->n_layouts++] = SV_LAYOUT_PACKED;
    if (!m->n_layouts)
        m->layout_list[m->n_layouts++] = SV_LAYOUT_PADDED;
    for (int32_t i = 0, s = 0; i < n; i++)
        for (int32_t j = 0; j < slots[i]; j++)
            m->case_of[s++] = i;
    free(slots);
    /* Fisher-Yates by addressed numbers: the same order for the same seed */
    for (int32_t s = L - 1; s > 0; s--) {
        int32_t r = (int32_t)(mix_u(cfg->seed, (uint64_t)s, MIX_SHUFFLE) * (double)(s + 1));
        r = r > s ? s : r;
        int32_t t = m->case_of[s];
        m->case_of[s] = m->case_of[r];
        m->case_of[r] = t;
    }
    for (int32_t s = 0; s < L; s++) {
        const int32_t K = cfg->cases[m->case_of[s]]->K;
        /* three in four slots draft their case's K; the rest 0..K-1, evenly */
        double u = mix_u(cfg->seed, (uint64_t)s, MIX_DRAFTS);
        int32_t d = K;
        if (m->ragged && K > 0 && u < 0.25)
            d = (int32_t)(u * 4.0 * (double)K);
        m->drafts[s] = d < K ? d : K;
        double v = mix_u(cfg->seed, (uint64_t)s, MIX_SEEDED);
        m->seeded[s] = (uint8_t)(m->v3 && (cfg->seeding == SV_SEEDING_ALL ||
                                           (cfg->seeding == SV_SEEDING_MIXED && v < 0.5)));
    }
    /* the packed rows of a period fill whole pages only with its drafts a
     * multiple of the alignment (the padded ones do with L alone) */
    if (A && (cfg->layouts & SV_LAYOUT_BIT(SV_LAYOUT_PACKED)) &&
        !align_drafts(m, R))
        A = 0; /* too few drafts to take from: the period is not aliased */
    finish_slots(m);
    m->draws = 0;
    for (int32_t i = 0; i < n; i++)
        m->draws += cfg->draws[i];
    /* one case, every slot alike: any sequence may take any slot, so batches
     * are plain runs of B sequences from slot 0 (an older sampler's case) */
    m->alike = n == 1 && !m->ragged;
    for (int32_t s = 0; m->alike && s < L; s++)
        m->alike = !m->seeded[s];
    m->rotate = !m->alike;
    m->copies = 1;
    m->epoch = (uint64_t)L;
    if (A && !m->alike)
        set_copies(m);
    *out = m;
    return SV_OK;
}

int sv_mix_build_probe(const sv_mix *from, const int32_t *slots, const uint64_t *indices,
                       int32_t L, sv_mix **out)
{
    *out = NULL;
    sv_mix *m = mix_alloc(from->cases, from->n_cases, L);
    if (m)
        m->index_of = malloc((size_t)L * sizeof *m->index_of);
    if (!m || !m->index_of) {
        sv_mix_free(m);
        return sv_fail(SV_EENV, "out of memory for a probe of %d sequences", L);
    }
    m->seed = from->seed;
    m->ragged = from->ragged;
    m->v3 = from->v3;
    m->rotate = 0;
    m->n_layouts = from->n_layouts;
    memcpy(m->layout_list, from->layout_list, sizeof m->layout_list);
    for (int32_t s = 0; s < L; s++) {
        m->case_of[s] = from->case_of[slots[s]];
        m->drafts[s] = from->drafts[slots[s]];
        m->seeded[s] = from->seeded[slots[s]];
        m->index_of[s] = indices[s];
    }
    finish_slots(m);
    m->draws = (uint64_t)L;
    m->copies = 1;
    m->epoch = (uint64_t)L;
    *out = m;
    return SV_OK;
}

int sv_mix_build_given(const sv_case *const *cases, int32_t n, const int32_t *case_of,
                       const int32_t *drafts, const uint8_t *seeded, const uint64_t *indices,
                       int32_t L, int32_t layout, int v3, uint64_t seed, sv_mix **out)
{
    *out = NULL;
    if (n < 1 || check_group(cases, n) != SV_OK)
        return n < 1 ? sv_fail(SV_EBAD, "a mix of no cases") : SV_EBAD;
    sv_mix *m = mix_alloc(cases, n, L);
    if (m)
        m->index_of = malloc((size_t)L * sizeof *m->index_of);
    if (!m || !m->index_of) {
        sv_mix_free(m);
        return sv_fail(SV_EENV, "out of memory for a batch of %d sequences", L);
    }
    m->seed = seed;
    m->v3 = v3;
    m->n_layouts = 1;
    m->layout_list[0] = layout;
    memcpy(m->case_of, case_of, (size_t)L * sizeof *case_of);
    memcpy(m->drafts, drafts, (size_t)L * sizeof *drafts);
    memcpy(m->seeded, seeded, (size_t)L * sizeof *seeded);
    memcpy(m->index_of, indices, (size_t)L * sizeof *indices);
    for (int32_t s = 0; s < L; s++)
        m->ragged |= m->drafts[s] < cases[m->case_of[s]]->K;
    finish_slots(m);
    m->draws = (uint64_t)L;
    m->copies = 1;
    m->epoch = (uint64_t)L;
    *out = m;
    return SV_OK;
}

int32_t sv_mix_rotation(const sv_mix *m, uint64_t epoch)
{
    if (!m->rotate)
        return 0;
    const int32_t pairs = m->period / 2; /* L is even */
    int32_t r = (int32_t)(mix_u(m->seed, epoch, MIX_ROTATE) * (double)pairs);
    r = r >= pairs ? pairs - 1 : r;
    return 2 * r; /* even: pairs (2m, 2m+1) never split */
}

int32_t sv_mix_slot(const sv_mix *m, uint64_t g)
{
    if (m->alike)
        return 0;
    const uint64_t L = (uint64_t)m->period, E = m->epoch;
    return (int32_t)((g % E + (uint64_t)sv_mix_rotation(m, g / E)) % L);
}

uint64_t sv_mix_index(const sv_mix *m, uint64_t g)
{
    return m->index_of ? m->index_of[g] : g;
}

/* One epoch's counts from its first i_end sequences, each counted `times`. */
static void count_epoch(const sv_mix *m, uint64_t epoch, uint64_t i_end, uint64_t *draws,
                        uint64_t *pairs, uint64_t *drafted, uint64_t times)
{
    const int32_t L = m->period, r = sv_mix_rotation(m, epoch);
    for (uint64_t i = 0; i < i_end; i++) {
        const int32_t s = (int32_t)((i + (uint64_t)r) % (uint64_t)L), c = m->case_of[s];
        draws[c] += times;
        drafted[c] += m->drafts[s] >= 1 ? times : 0;
        /* r and L are even, so a pair (2m, 2m+1) is the slots (s, s + 1): never wrapped */
        if (!(i & 1) && i + 1 < i_end && m->case_of[s + 1] == c)
            pairs[c] += times;
    }
}

void sv_mix_counts(const sv_mix *m, uint64_t *draws, uint64_t *pairs, uint64_t *drafted)
{
    if (m->alike) {
        draws[0] = m->draws;
        pairs[0] = m->draws / 2;
        drafted[0] = m->drafts[0] >= 1 ? m->draws : 0;
        return;
    }
    const uint64_t L = (uint64_t)m->period, N = m->draws, E = m->epoch;
    const size_t n = (size_t)m->n_cases;
    memset(draws, 0, n * sizeof *draws);
    memset(pairs, 0, n * sizeof *pairs);
    memset(drafted, 0, n * sizeof *drafted);
    /* a whole epoch holds every slot E / L times, in some rotation */
    if (N / E)
        count_epoch(m, 0, L, draws, pairs, drafted, (N / E) * (E / L));
    if (N % E)
        count_epoch(m, N / E, N % E, draws, pairs, drafted, 1);
}

int32_t sv_mix_layout(const sv_mix *m, uint64_t g)
{
    if (m->n_layouts < 2)
        return m->layout_list[0];
    return m->layout_list[(g / m->epoch) % (uint64_t)m->n_layouts];
}

size_t sv_mix_target_bytes(const sv_mix *m, int32_t layout)
{
    const size_t size = sv_input_value_bytes(m->input), V = (size_t)m->V;
    const size_t L = (size_t)m->period;
    if (layout == SV_LAYOUT_PADDED)
        return L * ((size_t)m->K + 1) * V * size;
    return ((size_t)m->cu[L] + L) * V * size;
}

size_t sv_mix_draft_bytes(const sv_mix *m, int32_t layout)
{
    const size_t size = sv_input_value_bytes(m->input), V = (size_t)m->V;
    const size_t L = (size_t)m->period;
    if (!m->draft_probs)
        return 0;
    return (layout == SV_LAYOUT_PADDED ? L * (size_t)m->K : (size_t)m->cu[L]) * V * size;
}

size_t sv_mix_rows_bytes(const sv_mix *m, int32_t layout)
{
    return sv_mix_target_bytes(m, layout) + sv_mix_draft_bytes(m, layout);
}

size_t sv_mix_draft_rows_offset(const sv_mix *m, int32_t layout)
{
    return (size_t)m->copies * sv_mix_target_bytes(m, layout);
}
