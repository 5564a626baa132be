/* sampler_host.h: where the sampler under test runs, and how a call into it
 * is made, checked and told.
 *
 * By default the sampler runs in a child process (isolated): it sees its
 * inputs (drafts, rows, logits) through a read-only mapping it cannot make
 * writable, writes its outputs between guard zones that are checked after
 * every call, and whatever it does (crash on any thread, exit, hang, abort)
 * ends only the child. The harness process keeps the case's p, the drafts
 * and the tallies in memory the sampler cannot reach, so its verdict comes
 * from the harness alone. In-process mode (--in-process) calls the sampler
 * on the worker threads, for speed or a debugger: the inputs are read-only
 * and the outputs guarded there too, crashes on the calling thread are
 * caught, but an exit, an abort or a crash on another thread ends the run.
 */
#ifndef SV_SAMPLER_HOST_H
#define SV_SAMPLER_HOST_H

#include <stdio.h>
#include "sv_run.h"

typedef struct sv_host sv_host;

typedef struct sv_host_config {
    const sv_sampler *sampler;
    int in_process;        /* 1: call it in this process, else in a child */
    double call_timeout;   /* seconds one call may take; 0: no limit */
    int32_t slots;         /* one per worker thread */
    int32_t batch;         /* the most sequences of one call */
    const sv_case *c;      /* its rows (probs, or logits in c->input) are shared read-only;
                            * with a mix, its first case */
    int rows_per_sequence; /* each slot holds [batch][K+1][V] target and [batch][K][V] draft rows */
    const sv_mix *mix;     /* or the mix's slots' rows and arrays, laid out once, read-only */
    struct sv_staging *staging; /* device staging's shared parts, one a slot; or NULL */
} sv_host_config;

/* Maps the shared memory and, isolated, starts the child (before any
 * worker thread: the child is forked). SV_OK, or a status with a message. */
int sv_host_open(const sv_host_config *cfg, sv_host **out);
/* Ends the child (a child that ended on its own outside a call is noted in
 * t, which may be NULL) and unmaps everything. */
void sv_host_close(sv_host *h, sv_tally *t);

/* A slot's inputs, which the harness fills between calls. */
typedef struct sv_slot_inputs {
    int32_t *drafts;                 /* [batch][K] */
    float *rows_target, *rows_draft; /* rows_per_sequence only, else NULL */
    uint64_t *indices, *seeds;       /* [batch]: contract v3's per-sequence arrays */
    int32_t *cu;                     /* [batch + 1] */
    int32_t *num_drafts;             /* [batch]: where the slots' drafts are not the mix's */
    int32_t *parents;                /* [batch][K]: a tree batch's (contract v6) */
    uint8_t *seeded;                 /* [batch] */
    double *draft_uniforms;          /* [batch][K]: a self-drafting sampler's (contract v7) */
} sv_slot_inputs;
sv_slot_inputs sv_host_inputs(sv_host *h, int32_t slot);
/* The case's rows as the sampler sees them (read-only copies): target
 * [K+1][V] and draft [K][V] probs (NULL for a one-hot drafter), or the
 * logits [K+1][V] then [K][V] for a logits input. */
const float *sv_host_target(const sv_host *h);
const float *sv_host_draft(const sv_host *h);
const void *sv_host_logits(const sv_host *h);
/* A mix's laid-out slots, as the sampler sees them (read-only): the rows of a
 * layout (target rows, then draft rows from sv_mix_draft_rows_offset) and the
 * per-slot arrays; a batch of slots s0.. points s0 elements in. */
typedef struct sv_mix_view {
    const char *rows[2];      /* per sv_layout; NULL for a layout not laid out */
    const int32_t *num_drafts;
    const uint8_t *seeded;
    const double *temperatures;
    const int32_t *top_ks;
    const double *top_ps;
} sv_mix_view;
sv_mix_view sv_host_mix(const sv_host *h);

/* The sampler's calls, from the slot's worker thread. Each returns an
 * sv_sampler_status; what went wrong (an error status, a crash, an exit, a
 * hang, a write outside the outputs or into the inputs) is noted in t with
 * t->sampler_error set. sv_host_verify places the outputs (it sets
 * bt->out_tokens and bt->out_accepted, bt->out_path for a tree rule's
 * sampler, bt->out_drafts for one that draws its drafts when the batch has
 * draft_uniforms) and poisons them first. */
int sv_host_init(sv_host *h, int32_t slot, sv_tally *t);
int sv_host_verify(sv_host *h, int32_t slot, sv_batch *bt, sv_tally *t);
void sv_host_destroy(sv_host *h, int32_t slot, sv_tally *t);
/* SV_EENV when init failed for want of the environment (no CUDA device),
 * with the message in err; else SV_OK. */
int sv_host_env_error(const sv_host *h, int32_t slot, char *err, size_t len);

/* For the thread that watches the run: says on out, once per call, which
 * calls are running and for how long (after an interrupt); and, in-process,
 * ends the process when a call passed the time limit (it cannot be stopped). */
void sv_host_tell_waits(sv_host *h, FILE *out);
void sv_host_watch(sv_host *h);

/* What the harness writes into outputs before each call: a value left there
 * afterwards was never written by the sampler. */
#define SV_POISON 0x7ffffff5

#endif
