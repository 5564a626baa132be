/* mix.c: which case, how many drafts and what seeding each sequence of a
 * mixed run has (docs/design.md, "Mixed batches").
 *
 * The cases of a mix share V, the input mode and the kind of drafter, so one
 * batch can hold them all. Sequences are dealt in periods of L slots: slot s
 * holds case case_of[s] with drafts[s] drafts, seeded or not; the rows of
 * the L slots are laid out once, read-only, and every batch is a run of
 * consecutive slots. Period p starts at slot rot(p), so the neighbours a
 * sequence has change from period to period. Everything is a function of
 * the seed and the sequence index alone, never of the batch or the threads.
 */
#include <stdlib.h>
#include <string.h>
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

/* Bytes of one slot's rows in the padded layout (values of `size` bytes). */
static size_t padded_slot_bytes(const sv_mix *m, size_t size)
{
    const size_t K = (size_t)m->K, V = (size_t)m->V;
    return ((K + 1) + (m->draft_probs ? K : 0)) * V * size;
}

int32_t sv_mix_period_for(const sv_case *const *cases, int32_t n, uint32_t layouts,
                          size_t budget)
{
    int32_t K = 0;
    for (int32_t i = 0; i < n; i++)
        K = cases[i]->K > K ? cases[i]->K : K;
    const size_t size = sv_input_value_bytes(cases[0]->input), V = (size_t)cases[0]->V;
    size_t per = ((size_t)K + 1 + (cases[0]->draft_probs_given ? (size_t)K : 0)) * V * size;
    if (layouts == (SV_LAYOUT_BIT(SV_LAYOUT_PADDED) | SV_LAYOUT_BIT(SV_LAYOUT_PACKED)))
        per *= 2; /* both laid out, the packed one at most as large */
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

int sv_mix_build(const sv_mix_config *cfg, sv_mix **out)
{
    *out = NULL;
    const int32_t n = cfg->n_cases;
    if (n < 1 || check_group(cfg->cases, n) != SV_OK)
        return n < 1 ? sv_fail(SV_EBAD, "a mix of no cases") : SV_EBAD;
    int32_t L = cfg->period > 0 ? cfg->period
                                : sv_mix_period_for(cfg->cases, n, cfg->layouts, cfg->budget);
    if (L < 2 * n)
        L = 2 * n; /* every case at least twice a period, whatever the memory */
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
    *out = m;
    return SV_OK;
}

int32_t sv_mix_rotation(const sv_mix *m, uint64_t period)
{
    if (!m->rotate)
        return 0;
    int32_t r = (int32_t)(mix_u(m->seed, period, MIX_ROTATE) * (double)(m->period / 2));
    r = r >= m->period / 2 ? m->period / 2 - 1 : r;
    return 2 * r; /* even: pairs (2m, 2m+1) never split */
}

int32_t sv_mix_slot(const sv_mix *m, uint64_t g)
{
    if (m->alike)
        return 0;
    const uint64_t L = (uint64_t)m->period;
    return (int32_t)((g % L + (uint64_t)sv_mix_rotation(m, g / L)) % L);
}

uint64_t sv_mix_index(const sv_mix *m, uint64_t g)
{
    return m->index_of ? m->index_of[g] : g;
}

/* One period's counts from its first i_end sequences (a whole period: L). */
static void count_period(const sv_mix *m, uint64_t period, uint64_t i_end, uint64_t *draws,
                         uint64_t *pairs, uint64_t *drafted, uint64_t times)
{
    const int32_t L = m->period, r = sv_mix_rotation(m, period);
    for (uint64_t i = 0; i < i_end; i++) {
        const int32_t s = (int32_t)((i + (uint64_t)r) % (uint64_t)L), c = m->case_of[s];
        draws[c] += times;
        drafted[c] += m->drafts[s] >= 1 ? times : 0;
        /* r is even, so a pair (2m, 2m+1) is the slots (s, s + 1): never wrapped */
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
    const uint64_t L = (uint64_t)m->period, N = m->draws, whole = N / L;
    const size_t n = (size_t)m->n_cases;
    memset(draws, 0, n * sizeof *draws);
    memset(pairs, 0, n * sizeof *pairs);
    memset(drafted, 0, n * sizeof *drafted);
    /* every whole period holds the same slots, in another rotation */
    if (whole)
        count_period(m, 0, L, draws, pairs, drafted, whole);
    if (N % L)
        count_period(m, whole, N % L, draws, pairs, drafted, 1);
}

int32_t sv_mix_layout(const sv_mix *m, uint64_t g)
{
    if (m->n_layouts < 2)
        return m->layout_list[0];
    return m->layout_list[(g / (uint64_t)m->period) % (uint64_t)m->n_layouts];
}

size_t sv_mix_rows_bytes(const sv_mix *m, int32_t layout)
{
    const size_t size = sv_input_value_bytes(m->input), V = (size_t)m->V;
    if (layout == SV_LAYOUT_PADDED)
        return (size_t)m->period * padded_slot_bytes(m, size);
    const size_t drafted = (size_t)m->cu[m->period];
    return ((drafted + (size_t)m->period) + (m->draft_probs ? drafted : 0)) * V * size;
}
