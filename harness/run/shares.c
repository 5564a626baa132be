/* shares.c: how a run is cut into units, and the contiguous share of them
 * that shard I of N takes (verify --shard I/N). The runner cuts by these,
 * and merge holds each shard's draws to its share: a shard file is input,
 * and a forged draw count must not pass as part of the run. */
#include <stdlib.h>
#include "sv_run.h"

sv_run_units sv_run_cut(const sv_run_config *cfg, const sv_case *c, int32_t threads)
{
    sv_run_units u = {0, 0, 0};
    if (c->chain) {
        /* units are chunks of streams, small enough to keep every thread busy;
         * a shard cuts them as every other shard does: not by its threads */
        uint64_t streams = (uint64_t)c->chain->streams,
                 per = streams / (cfg->shards > 1 ? 64u : 4u * (uint64_t)threads);
        u.steps = (cfg->draws + streams - 1) / streams;
        u.batch = (int32_t)(per < 1 ? 1 : (per > (uint64_t)cfg->batch ? (uint64_t)cfg->batch : per));
        u.n_units = (streams + (uint64_t)u.batch - 1) / (uint64_t)u.batch;
    } else {
        u.batch = cfg->batch < 2 ? 2 : cfg->batch + (cfg->batch & 1);
        u.n_units = (cfg->draws + (uint64_t)u.batch - 1) / (uint64_t)u.batch;
    }
    return u;
}

sv_run_units sv_run_mix_cut(const sv_run_config *cfg, const sv_mix *m)
{
    /* batches never span two epochs (a period, where the rows are not
     * mapped again): no more than an epoch per call */
    int32_t B = cfg->batch < 2 ? 2 : cfg->batch + (cfg->batch & 1);
    const uint64_t span = m->alike ? (uint64_t)m->period : m->epoch;
    sv_run_units u = {(uint64_t)B > span ? (int32_t)span : B, 0, 0};
    const uint64_t epochs = (m->draws + m->epoch - 1) / m->epoch;
    u.n_units = m->alike ? (m->draws + (uint64_t)u.batch - 1) / (uint64_t)u.batch
                         : epochs * sv_mix_units_per_epoch(m, u.batch);
    return u;
}

void sv_shard_units(uint64_t n_units, uint32_t shard, uint32_t shards, uint64_t *lo,
                    uint64_t *hi)
{
    *lo = 0, *hi = n_units;
    if (shards > 1) {
        *lo = (uint64_t)((unsigned __int128)n_units * shard / shards);
        *hi = (uint64_t)((unsigned __int128)n_units * (shard + 1) / shards);
    }
}

uint64_t sv_run_share(const sv_run_config *cfg, const sv_case *c, uint32_t shard,
                      uint32_t shards)
{
    sv_run_config as = *cfg; /* cut as that shard cut it */
    as.shard = shard, as.shards = shards;
    const sv_run_units u = sv_run_cut(&as, c, 1);
    uint64_t lo, hi;
    sv_shard_units(u.n_units, shard, shards, &lo, &hi);
    /* a unit is `batch` sequences (a chain's: streams, each run `steps` steps) */
    const uint64_t end = c->chain ? (uint64_t)c->chain->streams : cfg->draws;
    const uint64_t a = lo * (uint64_t)u.batch, b = hi * (uint64_t)u.batch;
    const uint64_t sequences = (b < end ? b : end) - (a < end ? a : end);
    return c->chain ? sequences * u.steps : sequences;
}

int sv_run_mix_share(const sv_run_config *cfg, const sv_mix *m, uint32_t shard,
                     uint32_t shards, uint64_t *per_case)
{
    const sv_run_units u = sv_run_mix_cut(cfg, m);
    const uint64_t L = (uint64_t)m->period;
    uint64_t lo, hi, whole = 0; /* whole: periods every slot had */
    sv_shard_units(u.n_units, shard, shards, &lo, &hi);
    int64_t *step = calloc(L + 1, sizeof *step); /* + at a span's first slot, - past its last */
    if (!step)
        return SV_EENV;
    for (uint64_t unit = lo; unit < hi; unit++) {
        sv_mix_span sp;
        sv_mix_unit_span(m, u.batch, unit, &sp);
        const uint64_t len = (uint64_t)sp.len, s0 = (uint64_t)sp.s0 % L, rest = len % L;
        whole += len / L;
        if (s0 + rest <= L) {
            step[s0]++, step[s0 + rest]--;
        } else { /* it wraps past the period's end */
            step[s0]++, step[L]--;
            step[0]++, step[s0 + rest - L]--;
        }
    }
    for (int32_t i = 0; i < m->n_cases; i++)
        per_case[i] = 0;
    int64_t run = 0;
    for (uint64_t s = 0; s < L; s++) {
        run += step[s];
        per_case[m->case_of[s]] += whole + (uint64_t)run;
    }
    free(step);
    return SV_OK;
}

int sv_run_mix_shares(const sv_run_config *cfg, const sv_mix *m, uint32_t shards,
                      uint64_t *shares)
{
    const size_t n = (size_t)m->n_cases;
    uint64_t *of = calloc(n ? n : 1, sizeof *of);
    int rc = of ? SV_OK : sv_fail(SV_EENV, "out of memory for the mix's shares");
    for (uint32_t k = 0; k < shards && rc == SV_OK; k++) {
        if (sv_run_mix_share(cfg, m, k, shards, of) != SV_OK)
            rc = sv_fail(SV_EENV, "out of memory for the mix's shares");
        for (size_t i = 0; i < n && rc == SV_OK; i++)
            shares[i * shards + k] = of[i];
    }
    free(of);
    return rc;
}
