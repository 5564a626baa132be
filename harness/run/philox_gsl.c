/* philox_gsl.c: a gsl_rng type whose numbers are addressed Philox lanes, so
 * GSL's samplers (Walker alias tables) run on the same counter-based stream
 * as the samplers under test. get_double gives 52-bit uniforms in (0, 1). */
#include "sv_run.h"
#include "sv_philox.h"

typedef struct philox_state {
    uint64_t seed, index;
    uint32_t position, purpose, lane;
} philox_state;

static void philox_set(void *vstate, unsigned long s)
{
    philox_state *st = vstate;
    st->seed = s;
    st->index = 0;
    st->position = st->purpose = st->lane = 0;
}

static double philox_get_double(void *vstate)
{
    philox_state *st = vstate;
    return sv_philox_uniform(st->seed, st->index, st->position, st->purpose, st->lane++);
}

static unsigned long philox_get(void *vstate)
{
    philox_state *st = vstate;
    philox4x32_ctr_t r =
        sv_philox_block(st->seed, st->index, st->position, st->purpose, st->lane >> 1);
    unsigned long x = (st->lane & 1u) ? r.v[2] : r.v[0];
    st->lane++;
    return x;
}

static const gsl_rng_type philox_type = {
    "sv-philox4x32-10", 0xffffffffUL, 0, sizeof(philox_state),
    philox_set, philox_get, philox_get_double};

const gsl_rng_type *sv_gsl_rng_philox = &philox_type;

void sv_gsl_philox_seek(gsl_rng *r, uint64_t seed, uint64_t index, uint32_t position,
                        uint32_t purpose)
{
    philox_state *st = r->state;
    st->seed = seed;
    st->index = index;
    st->position = position;
    st->purpose = purpose;
    st->lane = 0;
}
