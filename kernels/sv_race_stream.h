/* sv_race_stream.h: one row's race numbers with the work that does not
 * depend on the token done once (ref_race.c, sv_race.cuh).
 *
 * A row's race draws a Philox4x32-10 block per quad of tokens (sv_philox.h:
 * sv_race_tops, sv_race_lows) at counter {index lo, index hi, purpose << 16
 * | n, quad} under key = seed. Within the row only the counter's last word
 * changes, and Philox's first round mixes that word in by a plain xor:
 *     round 1 = {hi(M1 c2) ^ c1 ^ k0, lo(M1 c2), hi(M0 c0) ^ c3 ^ k1, lo(M0 c0)},
 * so round 1 at quad = (round 1 at quad 0) with word 2 xored with quad, and
 * half of rounds 2 and 3 does not depend on the quad either. The stream
 * keeps that work done (sv_race_start) and the ten round keys; a block then
 * costs 16 of Philox's 20 multiplications and no key arithmetic. The GPU's
 * race draws a block for every four tokens, and spent about half of it on
 * this invariant work, redone for every quad.
 * tests/test_philox.c checks the blocks against sv_philox_block.
 */
#ifndef SV_RACE_STREAM_H
#define SV_RACE_STREAM_H

#include <stdint.h>
#include "sv_philox.h"

/* The round keys of a seed: key r (0-based) serves Philox round r + 1. */
typedef struct {
    philox4x32_key_t round[10];
} sv_philox_keys;

SV_HD sv_philox_keys sv_philox_keys_of(uint64_t seed)
{
    sv_philox_keys k;
    k.round[0].v[0] = (uint32_t)seed;
    k.round[0].v[1] = (uint32_t)(seed >> 32);
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int r = 1; r < 10; r++)
        k.round[r] = _philox4x32bumpkey(k.round[r - 1]);
    return k;
}

/* Where a row's blocks part: what Philox rounds 1 to 3 compute for every
 * quad of the row alike. Round 1 depends on the quad only through word 2,
 * an xor; round 2 multiplies that word (varies) and word 0 (does not);
 * round 3 multiplies round 2's word 0 (varies) and word 2 (does not). */
typedef struct {
    uint32_t c2; /* round 1's word 2 at quad 0 */
    uint32_t x0; /* round 1's word 1 ^ round 2's key word 0 */
    uint32_t z0; /* hi(M1 * round 2's word 2) ^ round 3's key word 0 */
    uint32_t z1; /* lo(M1 * round 2's word 2): round 3's word 1 */
    uint32_t z2; /* round 2's word 3 ^ round 3's key word 1 */
} sv_race_start;

/* The start of the row at {index lo, index hi, purpose << 16 | position, quad}. */
SV_HD sv_race_start sv_race_start_of(const sv_philox_keys *k, uint64_t index, uint32_t position,
                                      uint32_t purpose)
{
    const philox4x32_ctr_t c =
        _philox4x32round(sv_philox_counter(index, position, purpose, 0), k->round[0]);
    /* round 2's words 2 and 3, which do not depend on the quad */
    uint32_t hi;
    const uint32_t lo = mulhilo32(PHILOX_M4x32_0, c.v[0], &hi);
    const uint32_t y2 = hi ^ c.v[3] ^ k->round[1].v[1], y3 = lo;
    sv_race_start st;
    st.c2 = c.v[2];
    st.x0 = c.v[1] ^ k->round[1].v[0];
    st.z1 = mulhilo32(PHILOX_M4x32_1, y2, &hi);
    st.z0 = hi ^ k->round[2].v[0];
    st.z2 = y3 ^ k->round[2].v[1];
    return st;
}

/* The block at `quad` of the row that `st` starts: equal to
 * sv_philox_block(seed, index, position, purpose, quad). Rounds 1 to 3 cost
 * two multiplications here, not six. */
SV_HD philox4x32_ctr_t sv_race_stream_block(const sv_philox_keys *k, const sv_race_start *st,
                                            uint32_t quad)
{
    uint32_t hi1, hi0;
    const uint32_t lo1 = mulhilo32(PHILOX_M4x32_1, st->c2 ^ quad, &hi1); /* round 2 */
    const uint32_t lo0 = mulhilo32(PHILOX_M4x32_0, hi1 ^ st->x0, &hi0);  /* round 3 */
    philox4x32_ctr_t c = {{st->z0 ^ lo1, st->z1, hi0 ^ st->z2, lo0}};
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int r = 3; r < 10; r++)
        c = _philox4x32round(c, k->round[r]);
    return c;
}

/* One row's two streams: the top words (purpose FINAL) and the low words
 * (purpose RACE_LOW) of its tokens' uniforms. */
typedef struct {
    sv_philox_keys keys;
    sv_race_start tops, lows;
} sv_race_stream;

SV_HD sv_race_stream sv_race_stream_of(uint64_t seed, uint64_t index, uint32_t n)
{
    sv_race_stream s;
    s.keys = sv_philox_keys_of(seed);
    s.tops = sv_race_start_of(&s.keys, index, n, SV_PURPOSE_FINAL);
    s.lows = sv_race_start_of(&s.keys, index, n, SV_PURPOSE_RACE_LOW);
    return s;
}

/* sv_race_tops and sv_race_lows of the stream's row. */
SV_HD philox4x32_ctr_t sv_race_stream_tops(const sv_race_stream *s, uint32_t quad)
{
    return sv_race_stream_block(&s->keys, &s->tops, quad);
}

SV_HD philox4x32_ctr_t sv_race_stream_lows(const sv_race_stream *s, uint32_t quad)
{
    return sv_race_stream_block(&s->keys, &s->lows, quad);
}

#endif /* SV_RACE_STREAM_H */
