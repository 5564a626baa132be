/* runner.c: draws through a sampler, checked and counted.
 *
 * Work is cut into chunks of `batch` sequences (batch even, so the pairs of
 * consecutive sequences (2m, 2m+1) never straddle two chunks); threads take
 * chunks from an atomic counter, each with its own sampler state and tally,
 * and the tallies are summed at the end. Every random number is addressed by
 * the sequence's global index, so the sums do not depend on batch or threads.
 */
#define _XOPEN_SOURCE 700 /* sigaltstack */
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "device_staging.h"
#include "sampler_host.h"

/* ---- sizes -------------------------------------------------------------------- */

int sv_rows_bytes(const char *what, uint64_t B, int64_t K, int64_t V, uint64_t *bytes)
{
    /* target [B][K+1][V] and draft [B][K][V] floats: B (2K + 1) V of them */
    size_t rows, floats, total;
    if (K < 0 || V < 0 || __builtin_mul_overflow((size_t)B, (size_t)(2 * K + 1), &rows) ||
        __builtin_mul_overflow(rows, (size_t)V, &floats) ||
        __builtin_mul_overflow(floats, sizeof(float), &total))
        return sv_fail(SV_EBAD, "%s: B x (K+1) x V = %llu x %lld x %lld target floats (and "
                       "B x K x V draft floats) do not fit in size_t: %zu bytes at most",
                       what, (unsigned long long)B, (long long)K + 1, (long long)V,
                       (size_t)SIZE_MAX);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    double memory = pages > 0 && page > 0 ? (double)pages * (double)page : 0.0;
    if (memory > 0.0 && (double)total > memory)
        return sv_fail(SV_EBAD, "%s: B x (K+1) x V = %llu x %lld x %lld target floats and "
                       "B x K x V draft floats take %zu bytes (%.1f GiB), more than this "
                       "machine's %.1f GiB of memory", what, (unsigned long long)B,
                       (long long)K + 1, (long long)V, total, (double)total / 1073741824.0,
                       memory / 1073741824.0);
    if (bytes)
        *bytes = total;
    return SV_OK;
}

/* ---- workers -------------------------------------------------------------------- */

typedef struct shared {
    const sv_run_config *cfg;
    const sv_case *c;        /* a mix's first case */
    sv_mix_run mix;          /* mix.mix: a mixed run */
    int32_t n_cases;         /* tallies per worker: the mix's cases, or 1 */
    const sv_drafter *d;
    const sv_pair_plan *plan;
    const sv_tree_rows *tree; /* a tree run's rows, or NULL */
    sv_staging *staging;      /* device staging's shared parts, or NULL */
    sv_host *host;
    int32_t batch;     /* sequences per verify call */
    uint64_t n_units;  /* chunks of draws, or of streams for chain cases */
    uint64_t unit_end; /* the units this run takes end here: n_units, or its shard's end */
    uint64_t steps;    /* chain cases: steps per stream */
    atomic_uint_fast64_t next_unit, done;
    atomic_int stop, finished;
} shared;

typedef struct worker {
    shared *sh;
    int32_t slot;
    sv_tally **tallies;      /* [sh->n_cases] */
    sv_worker_buffers buf;
    int status;
    char error[SV_CASE_NAME_MAX + 256];
} worker;

static void draw_batch(const shared *sh, sv_worker_buffers *w, uint64_t first, int32_t B)
{
    for (int32_t b = 0; b < B; b++)
        sv_drafter_draw(sh->d, w->philox, sh->cfg->seed, first + (uint64_t)b,
                        w->drafts + (size_t)b * sh->c->K);
}

/* Chunk `unit` of a fixed-row case: drafts, one verify call, counting; with
 * device staging the device drafts and counts unless it finds the batch
 * broken, when the host drafts the same tokens and counts as without. */
static int fixed_unit(shared *sh, worker *wk, uint64_t unit, sv_tally *t)
{
    const sv_case *c = sh->c;
    const int32_t K = c->K;
    sv_worker_buffers *w = &wk->buf;
    const sv_staging_slot *staged = sh->staging ? sv_staging_parts(sh->staging, w->slot) : NULL;
    uint64_t first = unit * (uint64_t)sh->batch, left = sh->cfg->draws - first;
    int32_t B = left < (uint64_t)sh->batch ? (int32_t)left : sh->batch;
    if (!staged)
        draw_batch(sh, w, first, B);
    /* the rows as the sampler sees them: the host's read-only copies */
    sv_batch bt = {
        .B = B, .K = K, .V = c->V,
        .target = sv_host_target(sh->host), .target_stride = 0,
        .draft = sv_host_draft(sh->host), .draft_stride = 0,
        .draft_tokens = w->drafts,
        .seed = sh->cfg->seed, .first_index = first,
        .stream = NULL,
    };
    if (sh->cfg->input != SV_INPUT_PROBS) { /* the logits the rows were made from */
        const size_t size = sv_input_value_bytes(sh->cfg->input);
        const char *logits = sv_host_logits(sh->host);
        bt.input = sh->cfg->input;
        bt.target = bt.draft = NULL;
        bt.target_logits = logits;
        bt.draft_logits = c->draft_probs_given ? logits + ((size_t)K + 1) * (size_t)c->V * size
                                               : NULL;
        bt.temperature = c->sampling.T;
        bt.top_k = c->sampling.top_k;
        bt.top_p = c->sampling.top_p;
    }
    sv_batch_uniform_v3(&bt, w, sh->cfg);
    int rc = sv_host_verify(w->host, w->slot, &bt, t);
    if (rc == SV_SAMPLER_OK && staged && !staged->fallback) {
        t->draws += (uint64_t)B;
        w->device_counted += (uint64_t)B;
    } else if (rc == SV_SAMPLER_OK) {
        if (staged)
            draw_batch(sh, w, first, B);
        sv_count_batch(t, c, sh->plan, first, sh->cfg->seed, B, w->drafts, bt.out_tokens,
                       bt.out_accepted, w->valid);
    }
    atomic_fetch_add(&sh->done, (uint64_t)B);
    return rc;
}

void sv_batch_uniform_v3(sv_batch *bt, const sv_worker_buffers *w, const sv_run_config *cfg)
{
    if (!cfg->sampler->layouts)
        return;
    w->cu[0] = 0;
    for (int32_t b = 0; b < bt->B; b++) {
        w->num_drafts[b] = bt->K;
        w->cu[b + 1] = w->cu[b] + bt->K;
        w->indices[b] = bt->first_index + (uint64_t)b;
        w->seeds[b] = bt->seed;
        w->seeded[b] = 0;
    }
    /* every d_b = K: rows at strides of one sequence's rows (a Markov pair's)
     * are the packed layout byte for byte, which a sampler that takes only
     * it gets so labelled (broadcast rows, stride 0, are padded only:
     * sv_run refuses such a sampler a fixed-row case) */
    bt->layout = sv_takes_broadcast(cfg->sampler) ? SV_LAYOUT_PADDED : SV_LAYOUT_PACKED;
    bt->num_drafts = w->num_drafts;
    bt->cu_num_drafts = w->cu;
    bt->indices = w->indices;
    bt->seeds = w->seeds;
    bt->seeded = w->seeded; /* one rule: temperatures, top_ks, top_ps stay NULL */
}

static void free_buffers(sv_worker_buffers *w)
{
    free(w->valid);
    free(w->states);
    if (w->philox)
        gsl_rng_free(w->philox);
    memset(w, 0, sizeof *w);
}

/* What a worker owns beside its slot's shared buffers. */
static int alloc_buffers(sv_worker_buffers *w, sv_host *host, int32_t slot, const sv_case *c,
                         int32_t batch)
{
    memset(w, 0, sizeof *w);
    sv_slot_inputs in = sv_host_inputs(host, slot);
    w->host = host;
    w->slot = slot;
    w->drafts = in.drafts;
    w->rows_target = in.rows_target;
    w->rows_draft = in.rows_draft;
    w->indices = in.indices;
    w->seeds = in.seeds;
    w->cu = in.cu;
    w->num_drafts = in.num_drafts;
    w->seeded = in.seeded;
    w->parents = in.parents;
    w->draft_uniforms = in.draft_uniforms;
    w->valid = malloc((size_t)batch);
    w->philox = gsl_rng_alloc(sv_gsl_rng_philox);
    int ok = w->valid && w->philox;
    if (c->chain) { /* every stream's state */
        w->states = malloc((size_t)batch * sizeof *w->states);
        ok = ok && w->states;
    }
    if (!ok)
        free_buffers(w);
    return ok ? 0 : -1;
}

/* Adds what the slot's device counted into the worker's tallies, each case
 * its own part's; counts a device that stopped before giving them back as a
 * failed call (a mix's: sv_run_mix fails every case with it). */
static void collect_device(const sv_staging *staging, worker *w)
{
    const sv_staging_slot *parts = sv_staging_parts(staging, w->slot);
    sv_tally *t = w->tallies[0];
    int counted = 1;
    for (int32_t c = 0; c < staging->n_cases; c++)
        counted &= parts[c].counted;
    if (counted) {
        for (int32_t c = 0; c < staging->n_cases; c++)
            sv_staging_collect(&parts[c], w->tallies[c]);
    } else if (w->buf.device_counted && !t->sampler_error) {
        char text[SV_NOTE_LEN];
        snprintf(text, sizeof text, "--device-staging: the counts of %llu sequences never "
                 "came back from the device", (unsigned long long)w->buf.device_counted);
        sv_tally_note(t, 0, text);
        t->sampler_error = SV_SAMPLER_EDEVICE;
    }
}

/* The signal stack of a worker: in process, a sampler that overflows its
 * stack is caught too. */
#define ALT_STACK_BYTES ((size_t)256 * 1024)

/* An init that fails with SV_SAMPLER_EDEVICE has no device to run on (a
 * Python sampler declared device="cuda" on a machine without one): the
 * environment's failure, exit 3, as a CUDA sampler's is, in the words the
 * host noted (the worker's tally is new: its one note is init's). */
static void init_env_error(worker *w, int rc)
{
    const sv_tally *t = w->tallies[0];
    if (w->status != SV_OK || rc != SV_SAMPLER_EDEVICE)
        return;
    w->status = SV_EENV;
    snprintf(w->error, sizeof w->error, "%s",
             t->n_notes ? t->notes[t->n_notes - 1] : "the sampler's init found no device");
}

static void *work(void *arg)
{
    worker *w = arg;
    shared *sh = w->sh;
    const sv_case *c = sh->c;

    sv_interrupt_block_here();
    stack_t alt = {.ss_sp = malloc(ALT_STACK_BYTES), .ss_size = ALT_STACK_BYTES, .ss_flags = 0};
    stack_t old; /* a sanitizer's, which it expects back when the thread ends */
    if (alt.ss_sp && sigaltstack(&alt, &old) != 0) {
        free(alt.ss_sp);
        alt.ss_sp = NULL;
    }
    if (alloc_buffers(&w->buf, sh->host, w->slot, c, sh->batch) != 0) {
        w->status = SV_EENV;
        snprintf(w->error, sizeof w->error, "case %s: out of memory for a worker's buffers "
                 "of %d sequences", c->name, sh->batch);
        atomic_store(&sh->stop, 1);
    } else {
        int rc = sv_host_init(sh->host, w->slot, w->tallies[0]);
        if (rc != SV_SAMPLER_OK) {
            w->status = sv_host_env_error(sh->host, w->slot, w->error, sizeof w->error);
            init_env_error(w, rc);
            atomic_store(&sh->stop, 1);
        } else {
            for (;;) {
                /* an interrupt stops the run at the next batch, not when the watcher looks */
                if (sv_interrupted())
                    atomic_store(&sh->stop, 1);
                uint64_t unit = atomic_fetch_add(&sh->next_unit, 1);
                if (unit >= sh->unit_end || atomic_load(&sh->stop))
                    break;
                rc = sh->mix.mix ? sv_mix_unit(&sh->mix, sh->batch, unit, &w->buf, w->tallies,
                                               &sh->done)
                     : sh->tree  ? sv_tree_unit(sh->cfg, sh->tree, sh->plan, sh->batch, sh->steps,
                                                unit, &w->buf, w->tallies[0], &sh->done)
                     : c->chain  ? sv_chain_unit(sh->cfg, c, sh->batch, sh->steps, unit, &w->buf,
                                                 w->tallies[0], &sh->done)
                                 : fixed_unit(sh, w, unit, w->tallies[0]);
                if (rc != SV_SAMPLER_OK) {
                    atomic_store(&sh->stop, 1);
                    break;
                }
            }
            sv_host_destroy(sh->host, w->slot, w->tallies[0]);
            if (sh->staging)
                collect_device(sh->staging, w);
        }
        free_buffers(&w->buf);
    }
    if (alt.ss_sp) {
        sigaltstack(&old, NULL);
        free(alt.ss_sp);
    }
    atomic_fetch_add(&sh->finished, 1);
    return NULL;
}

/* Frees a worker's tallies. */
static void free_tallies(worker *w, int32_t n)
{
    for (int32_t c = 0; w->tallies && c < n; c++)
        sv_tally_free(w->tallies[c]);
    free(w->tallies);
    w->tallies = NULL;
}

static int alloc_tallies(worker *w, shared *sh, const sv_pair_plan *plans)
{
    w->tallies = calloc((size_t)sh->n_cases, sizeof *w->tallies);
    if (!w->tallies)
        return sv_fail(SV_EENV, "out of memory for tallies");
    for (int32_t c = 0; c < sh->n_cases; c++) {
        const sv_case *cs = sh->mix.mix ? sh->mix.mix->cases[c] : sh->c;
        int rc = sv_tally_alloc(cs, &plans[c], &w->tallies[c]);
        if (rc != SV_OK)
            return rc;
    }
    return SV_OK;
}

/* The units this run takes: all of them, or its shard's contiguous share;
 * *total scaled to that share for the progress line. Returns the count. */
static uint64_t take_shard(shared *sh, uint64_t *total)
{
    const sv_run_config *cfg = sh->cfg;
    uint64_t lo, hi;
    sv_shard_units(sh->n_units, cfg->shard, cfg->shards, &lo, &hi);
    if (cfg->shards > 1 && sh->n_units)
        *total = (uint64_t)((unsigned __int128)*total * (hi - lo) / sh->n_units);
    atomic_init(&sh->next_unit, lo);
    sh->unit_end = hi;
    return hi - lo;
}

/* Opens the host, runs the workers, sums their tallies into totals[n_cases]. */
static int run_workers(shared *sh, int32_t threads, const sv_host_config *host,
                       const sv_pair_plan *plans, sv_tally **totals, uint64_t total)
{
    const sv_run_config *cfg = sh->cfg;
    /* the sampler's place, a child process unless in process; before any
     * thread starts, since it forks */
    int status = sv_host_open(host, &sh->host);
    if (status != SV_OK)
        return status;
    sh->mix.host = sh->host;
    worker *workers = calloc((size_t)threads, sizeof *workers);
    pthread_t *ids = calloc((size_t)threads, sizeof *ids);
    if (!workers || !ids) {
        free(workers);
        free(ids);
        sv_host_close(sh->host, NULL);
        return sv_fail(SV_EENV, "out of memory for %d threads", threads);
    }
    int32_t started = 0;
    for (int32_t i = 0; i < threads && status == SV_OK; i++) {
        workers[i].sh = sh;
        workers[i].slot = i;
        status = alloc_tallies(&workers[i], sh, plans);
        if (status == SV_OK && pthread_create(&ids[i], NULL, work, &workers[i]) != 0)
            status = sv_fail(SV_EENV, "cannot start thread %d", i + 1);
        if (status == SV_OK)
            started++;
    }
    if (status != SV_OK)
        atomic_store(&sh->stop, 1);

    sv_progress progress;
    sv_progress_start(&progress, cfg->progress, cfg->label ? cfg->label : sh->c->name, total);
    double start = sv_now();
    /* poll for progress: 1 ms at first so short runs end at once, then up to 50 ms */
    for (long ns = 1000000; atomic_load(&sh->finished) < started; ns = ns < 50000000 ? 2 * ns : ns) {
        struct timespec pause = {0, ns};
        nanosleep(&pause, NULL);
        uint64_t done = atomic_load(&sh->done);
        if (cfg->watch) /* others' draws too (MPI ranks): shown summed */
            cfg->watch->poll(cfg->watch->ctx, done, total, &done, &progress.total);
        sv_progress_update(&progress, done);
        if (sv_interrupted()) { /* the workers stop after their current batch */
            atomic_store(&sh->stop, 1);
            sv_host_tell_waits(sh->host, stderr); /* once per call: what it waits for */
        }
        sv_host_watch(sh->host);
    }
    sv_progress_end(&progress);

    for (int32_t i = 0; i < started; i++) {
        pthread_join(ids[i], NULL);
        if (workers[i].status != SV_OK && status == SV_OK)
            status = sv_fail(workers[i].status, "%s", workers[i].error);
        for (int32_t c = 0; c < sh->n_cases; c++)
            sv_tally_add(totals[c], workers[i].tallies[c], &plans[c]);
    }
    sv_host_close(sh->host, totals[0]);
    const double seconds = sv_now() - start;
    for (int32_t c = 0; c < sh->n_cases; c++)
        totals[c]->seconds += seconds;
    for (int32_t i = 0; i < threads; i++)
        free_tallies(&workers[i], sh->n_cases);
    free(workers);
    free(ids);
    return status;
}

static int run_case(shared *sh, const sv_run_config *cfg, const sv_case *c,
                    const sv_case *seen, int32_t threads, sv_tally *tally);

/* Device staging's shared parts, where it is asked for and the run is one
 * it covers: a CUDA sampler's fixed-row case (verify refuses the rest but
 * Markov pairs, which it stages on the host, saying so). */
static int open_staging(shared *sh, const sv_run_config *cfg, const sv_case *c, int32_t threads)
{
    sh->staging = NULL;
    if (!cfg->device_staging)
        return SV_OK;
    if (c->chain || cfg->tree || cfg->sampler->memspace != SV_MEM_CUDA) {
        fprintf(stderr, "specverify: case %s: --device-staging covers a CUDA sampler's "
                "fixed-row cases; this one is staged on the host\n", c->name);
        return SV_OK;
    }
    return sv_staging_open(c, sh->d, sh->plan, threads, &sh->staging);
}

int sv_takes_broadcast(const sv_sampler *s)
{
    return !s->layouts || (s->layouts & SV_LAYOUT_BIT(SV_LAYOUT_PADDED));
}

int sv_run(const sv_run_config *cfg, const sv_case *c, const sv_drafter *d,
           const sv_pair_plan *plan, sv_tally *tally)
{
    if (cfg->input != c->input)
        return sv_fail(SV_EBAD, "case %s: readied for %s input, run with %s", c->name,
                       sv_input_name(c->input), sv_input_name(cfg->input));
    /* labelled packed, broadcast rows would send the sampler past them: a
     * crash that is the harness's, not the sampler's (its callers refuse
     * such a sampler first; this is the guard) */
    if (!c->chain && !cfg->tree && !sv_takes_broadcast(cfg->sampler))
        return sv_fail(SV_EBAD, "case %s: sampler %s takes only the packed layout, which "
                       "cannot hold one row set broadcast to every sequence", c->name,
                       cfg->sampler->name);
    int32_t threads = cfg->threads > 0 ? cfg->threads : 1;
    shared sh = {.cfg = cfg, .c = c, .d = d, .plan = plan, .n_cases = 1};
    /* a tree run: the sampler sees the tree's nodes as its drafts, one row
     * per node (sv_tree_case), and the tallies count by depth on c */
    sv_tree_rows tree_rows;
    sv_case *seen = NULL;
    if (cfg->tree) {
        int rc = sv_tree_rows_init(&tree_rows, c, cfg->tree);
        if (rc == SV_OK && (rc = sv_tree_case(c, cfg->tree, &seen)) != SV_OK)
            sv_tree_rows_free(&tree_rows);
        if (rc != SV_OK)
            return rc;
        sh.tree = &tree_rows;
    }
    int rc = run_case(&sh, cfg, c, seen ? seen : c, threads, tally);
    if (seen) {
        sv_case_free(seen);
        sv_tree_rows_free(&tree_rows);
    }
    return rc;
}

/* sv_run's part after the tree: `seen` is the case as the sampler sees it. */
static int run_case(shared *sh, const sv_run_config *cfg, const sv_case *c,
                    const sv_case *seen, int32_t threads, sv_tally *tally)
{
    const sv_run_units u = sv_run_cut(cfg, c, threads); /* shares.c */
    sh->batch = u.batch, sh->n_units = u.n_units, sh->steps = u.steps;
    uint64_t total = c->chain ? sh->steps * (uint64_t)c->chain->streams : cfg->draws;
    const uint64_t units = take_shard(sh, &total);
    if ((uint64_t)threads > units)
        threads = units ? (int32_t)units : 1;
    if (c->chain) { /* every thread holds the rows of its batch */
        char what[SV_CASE_NAME_MAX + 96];
        snprintf(what, sizeof what, "case %s: batches of %d streams on %d thread%s", c->name,
                 sh->batch, threads, threads == 1 ? "" : "s");
        int rc = sv_rows_bytes(what, (uint64_t)threads * (uint64_t)sh->batch, seen->K, c->V,
                               NULL);
        if (rc != SV_OK)
            return rc;
    }
    sv_host_config host = {.sampler = cfg->sampler, .in_process = cfg->in_process,
                           .call_timeout = cfg->call_timeout, .slots = threads,
                           .batch = sh->batch, .c = seen, .rows_per_sequence = c->chain != NULL};
    int rc = open_staging(sh, cfg, c, threads);
    host.staging = sh->staging;
    if (rc == SV_OK)
        rc = run_workers(sh, threads, &host, sh->plan, &tally, total);
    sv_staging_close(sh->staging);
    sh->staging = NULL;
    return rc;
}

/* Device staging's shared parts for a mix, one per case a slot: for a
 * CUDA sampler given the harness's drafts; one that draws its own is staged
 * on the host, saying so (verify refuses host samplers and trees). So is a
 * probe's mix (its own indices, or the sampler's seed not the drafts'),
 * which the device would draft from the wrong address. */
static int open_mix_staging(shared *sh, const sv_mix *m, const sv_drafter *const *drafters,
                            const sv_pair_plan *plans, int32_t threads)
{
    const sv_run_config *cfg = sh->cfg;
    sh->staging = NULL;
    if (!cfg->device_staging)
        return SV_OK;
    if (cfg->sampler->memspace != SV_MEM_CUDA || (cfg->sampler->inputs & SV_INPUT_OWN_DRAFTS) ||
        sh->mix.capture || m->index_of || sh->mix.sampler_seed_xor) {
        fprintf(stderr, "specverify: case %s%s: --device-staging covers a CUDA sampler given "
                "the harness's drafts; this mix is staged on the host\n", m->cases[0]->name,
                m->n_cases > 1 ? " and the cases mixed with it" : "");
        return SV_OK;
    }
    return sv_staging_open_mix(m->cases, drafters, plans, m->n_cases, threads, &sh->staging);
}

int sv_run_mix(const sv_run_config *cfg, const sv_mix *m, const sv_drafter *const *drafters,
               const sv_pair_plan *plans, sv_tally **tallies, uint64_t sampler_seed_xor,
               int32_t *capture)
{
    if (cfg->input != m->input)
        return sv_fail(SV_EBAD, "case %s: readied for %s input, run with %s", m->cases[0]->name,
                       sv_input_name(m->input), sv_input_name(cfg->input));
    int32_t threads = cfg->threads > 0 ? cfg->threads : 1;
    shared sh = {.cfg = cfg, .c = m->cases[0], .n_cases = m->n_cases};
    sh.mix = (sv_mix_run){.cfg = cfg, .mix = m, .drafters = drafters, .plans = plans,
                          .sampler_seed_xor = sampler_seed_xor, .capture = capture};
    const sv_run_units u = sv_run_mix_cut(cfg, m); /* shares.c */
    sh.batch = u.batch, sh.n_units = u.n_units;
    uint64_t total = m->draws;
    const uint64_t units = take_shard(&sh, &total);
    if ((uint64_t)threads > units)
        threads = units ? (int32_t)units : 1;
    sv_host_config host = {.sampler = cfg->sampler, .in_process = cfg->in_process,
                           .call_timeout = cfg->call_timeout, .slots = threads,
                           .batch = sh.batch, .c = m->cases[0], .mix = m};
    int rc = open_mix_staging(&sh, m, drafters, plans, threads);
    host.staging = sh.staging;
    sh.mix.staging = sh.staging;
    if (rc == SV_OK)
        rc = run_workers(&sh, threads, &host, plans, tallies, total);
    sv_staging_close(sh.staging);
    /* a call that failed stopped the run for every case of the mix: each fails with it */
    const sv_tally *failed = NULL;
    for (int32_t c = 0; c < m->n_cases && !failed; c++)
        if (tallies[c]->sampler_error)
            failed = tallies[c];
    for (int32_t c = 0; failed && c < m->n_cases; c++) {
        if (tallies[c] == failed)
            continue;
        tallies[c]->sampler_error = failed->sampler_error;
        for (int32_t i = 0; i < failed->n_notes; i++)
            sv_tally_note_escaped(tallies[c], failed->note_at[i], failed->notes[i]);
    }
    return rc;
}
