/* sv_run.h: draws through a sampler into tallies. Drafting (x_k ~ q_k from
 * addressed Philox numbers), the runner (batches over worker threads, the
 * sum of their tallies the same whatever the batch or threads), the
 * contract check of every output, Markov-pair cases as streams, and the
 * pair plan of the independence tables. The sampler itself is called
 * through sampler_host.h (isolated in a child process by default). */
#ifndef SV_RUN_H
#define SV_RUN_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include "sv_base.h"
#include "sv_cases.h"
#include "sv_registry.h"
#include "sv_stats.h"

/* ---- philox_gsl.c: a GSL generator over addressed Philox numbers ----------- */
extern const gsl_rng_type *sv_gsl_rng_philox;
/* Points r at (seed, index, position, purpose); its numbers are the lanes
 * 0, 1, 2, ... of that address (sv_philox.h). */
void sv_gsl_philox_seek(gsl_rng *r, uint64_t seed, uint64_t index, uint32_t position,
                        uint32_t purpose);

/* ---- draft.c: draft tokens x_k ~ q_k ---------------------------------------- */
typedef struct sv_drafter {
    int32_t K;
    gsl_ran_discrete_t *table[SV_MAX_K]; /* Walker alias tables of q_1..q_K */
} sv_drafter;
int sv_drafter_alloc(const sv_case *c, sv_drafter **out);
void sv_drafter_free(sv_drafter *d);
/* The K drafts of sequence `index`, from (seed, index, k, SV_PURPOSE_DRAFT). */
void sv_drafter_draw(const sv_drafter *d, gsl_rng *philox, uint64_t seed, uint64_t index,
                     int32_t *tokens);

/* ---- mix.c: the cases, drafts and seeding of a mixed run's sequences --------------
 * A mix deals its cases' sequences in periods of `period` slots (see mix.c);
 * sequence g sits in slot sv_mix_slot(g). Its rows are laid out once per
 * slot (mix_rows.c), so a batch is a run of consecutive slots. Where the
 * period's rows fill whole pages, the host maps them `copies` times back to
 * back (an alias: the same memory again, no more of it), so a batch may run
 * on through several periods of one epoch (docs/design.md, "Mixed batches"). */
#define SV_MIX_MAX_PERIOD 4096
#define SV_MIX_BUDGET ((size_t)64 << 20) /* bytes of rows a mix lays out, as a rule */
#define SV_MIX_MIN_PERIOD 16 /* slots a period has at least, past the budget if need be
                              * (a vocabulary of 151936: 16 x 6 MB) */
/* An aliased mix's budget: small enough for the rows to stay in a cache,
 * now that a period no longer bounds a call. */
#define SV_MIX_ALIAS_BUDGET ((size_t)16 << 20)
#define SV_MIX_EPOCH 4096                  /* sequences an aliased epoch holds, as a rule */
#define SV_MIX_ALIAS_SPAN ((size_t)512 << 20) /* address space of one layout's copies, at most */

typedef enum sv_seeding {
    SV_SEEDING_MIXED = 0, /* half the slots seeded: the suites' axis */
    SV_SEEDING_ALL = 1,
    SV_SEEDING_NONE = 2
} sv_seeding;

typedef struct sv_mix_config {
    const sv_case *const *cases;
    int32_t n_cases;
    const uint64_t *draws;  /* [n_cases]: the draws each case asks for */
    uint64_t seed;
    uint32_t layouts;       /* the sampler's sv_sampler.layouts; 0: padded, v2 batches */
    int seeding;            /* an sv_seeding */
    int ragged;             /* 1: a quarter of the slots draft fewer than their K */
    size_t budget;          /* bytes of rows at most (SV_MIX_BUDGET) */
    int32_t period;         /* 0: from the budget */
    int alias;              /* 1: the host may map the period's rows again (host memory) */
} sv_mix_config;

typedef struct sv_mix {
    int32_t n_cases;
    const sv_case *const *cases;
    int32_t K, V, input;     /* K: the largest case K */
    int draft_probs;         /* 0: one-hot drafters (the sampler gets no draft rows) */
    int32_t period;          /* L, even */
    int32_t *case_of;        /* [L] */
    int32_t *drafts;         /* [L]: d of the slot, 0..K of its case */
    uint8_t *seeded;         /* [L] */
    int32_t *cu;             /* [L+1]: prefix sums of drafts */
    double *temperatures;    /* [L]: the slot's case's sampling rule */
    int32_t *top_ks;
    double *top_ps;
    uint64_t *index_of;      /* probes: [L] each slot's sequence; else NULL (g itself) */
    int32_t copies;          /* times the rows are mapped back to back: 1, or epoch / L + 1 */
    uint64_t epoch;          /* sequences of an epoch: L when copies is 1 */
    int rotate;              /* epoch e starts at slot sv_mix_rotation(e) */
    int alike;               /* one case, no ragged drafts, none seeded: every slot the
                              * same, so a batch is any B sequences from slot 0 */
    int ragged;
    uint64_t seed, draws;    /* draws: sequences in all */
    int32_t n_layouts, layout_list[2]; /* periods take the layouts in turn */
    int v3;                  /* the sampler takes version 3 batches */
} sv_mix;

int32_t sv_mix_period_for(const sv_case *const *cases, int32_t n, uint32_t layouts,
                          size_t budget);
int sv_mix_build(const sv_mix_config *cfg, sv_mix **out);
/* A probe's mix: slot s of the probe is slot slots[s] of `from`, sequence
 * indices[s]; one period, no rotation. */
int sv_mix_build_probe(const sv_mix *from, const int32_t *slots, const uint64_t *indices,
                       int32_t L, sv_mix **out);
/* A mix of exactly the L given slots, one period, in one layout, slot s at
 * sequence index indices[s]: a dumped batch again (replay). The arrays are
 * the caller's to check (case_of in [0, n), drafts in [0, its case's K]). */
int sv_mix_build_given(const sv_case *const *cases, int32_t n, const int32_t *case_of,
                       const int32_t *drafts, const uint8_t *seeded, const uint64_t *indices,
                       int32_t L, int32_t layout, int v3, uint64_t seed, sv_mix **out);
void sv_mix_free(sv_mix *m);
int32_t sv_mix_rotation(const sv_mix *m, uint64_t epoch);
int32_t sv_mix_slot(const sv_mix *m, uint64_t g);
/* The global index (the randomness address) of the mix's g-th sequence. */
uint64_t sv_mix_index(const sv_mix *m, uint64_t g);
int32_t sv_mix_layout(const sv_mix *m, uint64_t g);
/* Per case: its sequences, its same-case pairs (2m, 2m+1), its sequences with
 * at least one draft. */
void sv_mix_counts(const sv_mix *m, uint64_t *draws, uint64_t *pairs, uint64_t *drafted);
/* A seeded sequence's seed. */
uint64_t sv_mix_sequence_seed(uint64_t seed, uint64_t index);
/* Bytes of the L slots' target rows, and of their draft rows, in a layout
 * (once: what the memory holds), and both together. */
size_t sv_mix_target_bytes(const sv_mix *m, int32_t layout);
size_t sv_mix_draft_bytes(const sv_mix *m, int32_t layout);
size_t sv_mix_rows_bytes(const sv_mix *m, int32_t layout);
/* mix_rows.c: lays the L slots' rows out: target rows at target, draft rows
 * at draft; padded rows past a slot's drafts are NaN. */
void sv_mix_fill_rows(const sv_mix *m, int32_t layout, void *target, void *draft);
/* Where the draft rows start in a layout's rows as the sampler sees them:
 * after the `copies` of the target rows. */
size_t sv_mix_draft_rows_offset(const sv_mix *m, int32_t layout);
/* Bytes a layout's rows take in the inputs' address space: its copies back
 * to back where aliased, else its rows to a whole page (host_memory.c). */
size_t sv_mix_layout_span_bytes(const sv_mix *m, int32_t layout);
/* The drafts of the virtual slots before slot v (v up to copies L). */
static inline size_t sv_mix_cu(const sv_mix *m, uint64_t v)
{
    const uint64_t L = (uint64_t)m->period;
    return (size_t)((v / L) * (uint64_t)m->cu[L] + (uint64_t)m->cu[v % L]);
}

/* ---- runner.c: draws through a sampler into tallies --------------------------- */
#define SV_MAX_NOTES 4
#define SV_NOTE_LEN 320

typedef struct sv_pair_plan {
    sv_binmap seq_rows, seq_cols; /* (y_1 of sequence 2m, y_1 of sequence 2m+1) */
    sv_binmap pos_rows, pos_cols; /* (y_1, y_2) of draws that accepted draft 1 */
    int seq_ok, pos_ok;           /* 0: no such test at this N */
} sv_pair_plan;

typedef struct sv_tally {
    int32_t K, V;
    uint64_t draws;
    uint64_t *hist;                 /* [K+1][V]: counts of y_k = token */
    uint64_t reached[SV_MAX_K + 1]; /* N_k: draws that emitted y_k */
    uint64_t length[SV_MAX_K + 1];  /* histogram of n, the accepted count */
    uint64_t *pairs_seq;            /* contingency table, plan->seq_rows x seq_cols */
    uint64_t *pairs_pos;            /* contingency table, plan->pos_rows x pos_cols */
    uint64_t *transitions;          /* chain cases: [V][V] counts of (previous, next) emitted */
    /* chain cases: draft 1 accepted, against the sum of its chances a_i =
     * min(1, p/q) and of a_i (1 - a_i), in units of 2^-32 so that sums are
     * exact and the same in any order (reproducible across threads) */
    uint64_t first_accepted, first_chance_fx, first_variance_fx;
    /* tree runs: the law of n given each step's tree, P(n = l | tree) =
     * pi_l, summed over steps (law_fx[l]) and its products pi_l pi_m
     * (law2_fx[l][m]), in units of 2^-32 as above */
    int tree;
    uint64_t law_fx[SV_MAX_K + 1];
    uint64_t law2_fx[(SV_MAX_K + 1) * (SV_MAX_K + 1)];
    uint64_t violations;            /* draws that broke the contract */
    int32_t n_notes;
    char notes[SV_MAX_NOTES][SV_NOTE_LEN]; /* the first violations, in words */
    uint64_t note_at[SV_MAX_NOTES]; /* the sequence each note is about: they are
                                     * the SV_MAX_NOTES lowest, whatever the threads */
    int sampler_error;              /* status a verify call returned, 0 if none */
    double seconds;
} sv_tally;

typedef struct sv_run_config {
    const sv_sampler *sampler;
    uint64_t draws, seed;
    int32_t batch;   /* sequences per verify call (made even) */
    int32_t threads;
    int progress;    /* show progress on stderr */
    const char *label; /* what progress calls this run */
    int32_t input;   /* an sv_input; a logits mode needs a case readied by sv_case_use_logits */
    int in_process;  /* 1: call the sampler in this process (--in-process); 0: in a child */
    double call_timeout; /* seconds one sampler call may take; 0: no limit */
    const struct sv_tree *tree; /* a tree rule's sampler: the tree every step drafts, cut to
                                 * the case's depth (the case's K); else NULL */
    /* shard `shard` of `shards` (shards > 1): only that contiguous share of
     * the run's units, cut the same way whatever the threads, so that the
     * shards' tallies sum to the whole run's (verify --shard, merge) */
    uint32_t shard, shards;
    const struct sv_run_watch *watch; /* NULL, or what the watcher also asks each poll */
    /* verify --device-staging: a CUDA sampler's fixed-row cases, uniform or
     * mixed, drafted, checked and counted on the device (device_staging.h);
     * others as without */
    int device_staging;
    /* verify --dump-failing: told of each mixed batch in which a sequence
     * broke the contract, while its outputs are at hand; NULL: none */
    const struct sv_failing_sink *failing;
} sv_run_config;

/* A batch of a mix as the sampler was given it: slots s0.. (mod the
 * period), B sequences at indices[0..B) in one layout, the sampler's seed
 * `seed` (sampler_seed_xor 0), what it gave in `rows`: per sequence n
 * (-2: it broke the contract), then its own slots y_1..y_{d+1} (-1 past). */
typedef struct sv_failing_batch {
    const sv_mix *mix;
    const struct sv_drafter *const *drafters; /* [mix cases]: its drafts again */
    gsl_rng *philox;
    uint64_t seed;
    int32_t s0, B, layout;
    const uint64_t *indices;
    const int32_t *rows;       /* [B][SV_MAX_K + 2], the probes' capture rows */
    int32_t target;            /* the sequence the finding is about (its place) */
} sv_failing_batch;
typedef struct sv_failing_sink {
    /* a contract breach: `note`, the escaped words of the first (thread-safe) */
    void (*contract)(const struct sv_failing_sink *sink, const sv_failing_batch *fb,
                     const char *note);
    void *ctx;
} sv_failing_sink;

/* The watcher of a run (the thread that called sv_run, every 1 to 50 ms)
 * tells this of the draws done of total and shows the progress it gives
 * back: MPI's ranks, whose progress rank 0 shows summed (mpi_verify.c). */
typedef struct sv_run_watch {
    void (*poll)(void *ctx, uint64_t done, uint64_t total, uint64_t *shown_done,
                 uint64_t *shown_total);
    void *ctx;
} sv_run_watch;

int sv_tally_alloc(const sv_case *c, const sv_pair_plan *plan, sv_tally **out);
/* Keeps text as a note about sequence `at` if it is among the SV_MAX_NOTES
 * lowest so far (notes stay in order of `at`), so that the notes a run
 * reports do not depend on which thread met which sequence first. The text
 * is escaped (sv_escape): it may carry a sampler's words. */
void sv_tally_note(sv_tally *t, uint64_t at, const char *text);
/* The same for text already escaped: another tally's note. */
void sv_tally_note_escaped(sv_tally *t, uint64_t at, const char *text);
void sv_tally_free(sv_tally *t);
/* A tally's count arrays, named, in one order: what sv_tally_add sums,
 * shard files keep and MPI ranks reduce. A Markov pair's transitions only
 * (data NULL otherwise); the pair tables sized by plan. */
typedef struct sv_tally_counts {
    const char *name;
    uint64_t *data;
    size_t n;
} sv_tally_counts;
#define SV_TALLY_COUNTS 8
void sv_tally_counts_of(const sv_tally *t, const sv_pair_plan *plan,
                        sv_tally_counts out[SV_TALLY_COUNTS]);
/* Adds t's counts and notes into `into` (tally.c). */
void sv_tally_add(sv_tally *into, const sv_tally *t, const sv_pair_plan *plan);
/* 1 if the sampler can be given one row set broadcast to every sequence
 * (stride 0), as sv_run gives a fixed-row case: it takes the padded layout,
 * or is of contract version 1 or 2. The packed layout cannot hold it. */
int sv_takes_broadcast(const sv_sampler *s);
/* Runs cfg->draws sequences of case c. SV_OK, or a status with a message
 * (a sampler that fails verify is recorded in the tally, not returned); a
 * fixed-row case (no tree) for a sampler that does not take broadcast rows
 * is SV_EBAD. */
int sv_run(const sv_run_config *cfg, const sv_case *c, const sv_drafter *d,
           const sv_pair_plan *plan, sv_tally *tally);

/* What one worker thread works with: its slot in the sampler's host (whose
 * inputs it fills: drafts, and rows for chain cases) and its own buffers. */
struct sv_host;
typedef struct sv_worker_buffers {
    struct sv_host *host;
    int32_t slot;
    int32_t *drafts;                 /* the slot's: [batch][K] */
    float *rows_target, *rows_draft; /* the slot's, chain cases: rows per sequence */
    unsigned char *valid;
    gsl_rng *philox;
    int32_t *states;                 /* chain cases: each stream's state */
    uint64_t *indices, *seeds;       /* the slot's: contract v3's per-sequence arrays */
    int32_t *cu, *num_drafts;
    uint8_t *seeded;
    int32_t *parents;                /* the slot's: a tree batch's [batch][nodes] */
    double *draft_uniforms;          /* the slot's: a self-drafting sampler's [batch][K] */
    uint64_t device_counted;         /* device staging: sequences the slot's device counted */
} sv_worker_buffers;
/* For a version 3 sampler, a batch of one case (every d_b = K, sequences
 * first_index.., none seeded) as v3 arrays in w's slot; else nothing. */
void sv_batch_uniform_v3(sv_batch *bt, const sv_worker_buffers *w, const sv_run_config *cfg);

/* ---- mix_unit.c and runner.c: a mixed run ------------------------------------------ */
typedef struct sv_mix_run {
    const sv_run_config *cfg;
    const sv_mix *mix;
    const sv_drafter *const *drafters; /* [n_cases] */
    const sv_pair_plan *plans;         /* [n_cases] */
    struct sv_host *host;
    uint64_t sampler_seed_xor;         /* the sampler's seeds: cfg->seed ^ this (drafts keep
                                        * cfg->seed), for the seed-sensitivity probe */
    int32_t *capture;                  /* probes: [draws][SV_MAX_K + 2]: n (-2: broke the
                                        * contract), then slots 0..SV_MAX_K (-1 past d) */
    const struct sv_staging *staging;  /* device staging's shared parts, or NULL */
} sv_mix_run;
typedef struct sv_mix_span {
    uint64_t g0;   /* its first sequence */
    int32_t s0;    /* its first slot, virtual: s0 + b may pass L (slot (s0 + b) % L) */
    int32_t len;   /* 0: an empty unit */
} sv_mix_span;
uint64_t sv_mix_units_per_epoch(const sv_mix *m, int32_t B);
void sv_mix_unit_span(const sv_mix *m, int32_t B, uint64_t unit, sv_mix_span *span);
/* One batch of a mixed run: SV_SAMPLER_OK to go on. */
int sv_mix_unit(const sv_mix_run *run, int32_t B, uint64_t unit, sv_worker_buffers *w,
                sv_tally **tallies, atomic_uint_fast64_t *done);
/* Runs the mix's m->draws sequences, each counted in tallies[its case]
 * (allocated by the caller with plans[case]). SV_OK, or a status with a
 * message; a sampler that fails is recorded in every case's tally. */
int sv_run_mix(const sv_run_config *cfg, const sv_mix *m, const sv_drafter *const *drafters,
               const sv_pair_plan *plans, sv_tally **tallies, uint64_t sampler_seed_xor,
               int32_t *capture);
/* ---- shares.c: a run cut into units, and each shard's share ------------------ */
typedef struct sv_run_units {
    int32_t batch;     /* sequences per unit (a chain's: streams) */
    uint64_t n_units;
    uint64_t steps;    /* a chain's steps per stream; else 0 */
} sv_run_units;
/* How sv_run (with `threads` threads) and sv_run_mix cut cfg's run. */
sv_run_units sv_run_cut(const sv_run_config *cfg, const sv_case *c, int32_t threads);
sv_run_units sv_run_mix_cut(const sv_run_config *cfg, const sv_mix *m);
/* The units [lo, hi) shard `shard` of `shards` takes: all of them for one. */
void sv_shard_units(uint64_t n_units, uint32_t shard, uint32_t shards, uint64_t *lo,
                    uint64_t *hi);
/* The draws that shard `shard` of `shards` of cfg's run of c counts. */
uint64_t sv_run_share(const sv_run_config *cfg, const sv_case *c, uint32_t shard,
                      uint32_t shards);
/* The same of a mix, per case into per_case[m->n_cases]: SV_OK or SV_EENV. */
int sv_run_mix_share(const sv_run_config *cfg, const sv_mix *m, uint32_t shard,
                     uint32_t shards, uint64_t *per_case);
/* Every shard's: case i's in shard k at shares[i * shards + k] (a merge's
 * hold on each case of the mix). SV_OK or SV_EENV, with its message. */
int sv_run_mix_shares(const sv_run_config *cfg, const sv_mix *m, uint32_t shards,
                      uint64_t *shares);
/* A request as a finding names it: the harness's sequence index (what
 * orders the notes), and its index b in the sampler's batch and its seed
 * (what the user sees: batch.seeds[b]). */
/* The sequence indices of the mixed batches' probes (probes.c) start here,
 * far from any run's; messages name such a batch by its size instead. */
#define SV_PROBE_INDEX (UINT64_C(1) << 62)
typedef struct sv_request {
    uint64_t index;
    int32_t b;
    uint64_t seed;
} sv_request;
/* "request 17 of the batch (seed 12345)" into out; snprintf's count. */
int sv_request_words(const sv_request *who, char *out, size_t len);
/* Checks one sequence's outputs against the contract, given its target rows
 * [K+1][V]; returns 1 if kept, else counts and notes the violation. */
int sv_check_sequence(sv_tally *t, int32_t K, int32_t V, const float *target,
                      const sv_request *who, const int32_t *drafts, const int32_t *tokens,
                      int32_t n);
/* The d drafts a self-drafting sampler says it drew (contract v7), given
 * the draft rows [d][V] they were to be drawn from: each written, in
 * [0, V) and of draft probability > 0. 1 if kept, else counted and noted. */
int sv_check_drafts(sv_tally *t, int32_t d, int32_t V, const float *draft,
                    const sv_request *who, const int32_t *drafts);
/* The bytes of B sequences' target [B][K+1][V] and draft [B][K][V] float
 * rows. SV_EBAD with a message naming `what`, the sizes and the bytes when
 * they overflow size_t or exceed this machine's memory. */
int sv_rows_bytes(const char *what, uint64_t B, int64_t K, int64_t V, uint64_t *bytes);
/* "SIGSEGV (segmentation fault: a bad pointer)" and so on: a sampler that
 * crashed (sampler_host.c). */
const char *sv_crash_signal_name(int signo);

/* ---- chain.c: Markov-pair cases, spec-decoded as streams -------------------------
 * Draws are spread over the case's streams; stream s, step t has global index
 * t * streams + s. Its drafts follow the draft chain from the stream's state,
 * its rows are built per sequence, and the emitted transitions are counted. */
/* Runs streams [unit * B, unit * B + B) for all their steps; returns the
 * sampler's status (SV_SAMPLER_OK to go on). */
int sv_chain_unit(const sv_run_config *cfg, const sv_case *c, int32_t B, uint64_t steps,
                  uint64_t unit, sv_worker_buffers *w, sv_tally *t, atomic_uint_fast64_t *done);
int sv_pair_plan_build(const sv_case *c, uint64_t draws, sv_pair_plan *plan);
/* The same for a mixed run: seq_pairs same-case pairs (2m, 2m+1), drafted
 * sequences with at least one draft (sv_mix_counts). */
int sv_pair_plan_build_counts(const sv_case *c, uint64_t seq_pairs, uint64_t drafted,
                              sv_pair_plan *plan);
void sv_pair_plan_free(sv_pair_plan *plan);
/* tally.c: one checked sequence's emitted tokens y_1..y_{n+1} into the
 * histograms, the length and the positions' pair table. */
void sv_tally_count(sv_tally *t, const sv_pair_plan *plan, const int32_t *y, int32_t n);
/* A fixed-row batch of B sequences first.. (first even): each checked
 * (sv_check_sequence; valid[b] says if kept), the kept ones counted, and
 * the kept pairs (2m, 2m+1) in the sequences' pair table; draws += B. */
void sv_count_batch(sv_tally *t, const sv_case *c, const sv_pair_plan *plan, uint64_t first,
                    uint64_t seed, int32_t B, const int32_t *drafts, const int32_t *out,
                    const int32_t *accepted, unsigned char *valid);

/* ---- tree.c, tree_law.c, tree_unit.c: trees of drafts (contract v6) ---------------
 * A tree is drafted level by level: every node at depth d-1 has widths[d-1]
 * children drawn from the draft row there (q_d for fixed rows, Q[parent's
 * token] for a Markov pair), independently or without replacement. Nodes
 * are numbered breadth first, so a parent comes before its children and
 * siblings are consecutive. At most SV_MAX_K nodes besides the root. */
typedef struct sv_tree {
    int32_t depth, nodes;
    int32_t widths[SV_MAX_K];
    int32_t parents[SV_MAX_K];        /* node k+1's parent */
    int32_t node_depth[SV_MAX_K + 1]; /* node j's depth, the root's 0 */
    int32_t first_child[SV_MAX_K + 1], n_children[SV_MAX_K + 1];
    int siblings;                     /* an sv_siblings */
    char name[96];                    /* "3x2x1 iid" */
} sv_tree;
#define SV_TREE_DEFAULT "3x2x1"
/* "W1xW2x...": widths per depth, each >= 1. SV_EBAD with a message naming
 * the shape when it is not one, or has more than SV_MAX_K nodes. */
int sv_tree_parse(const char *shape, int siblings, sv_tree *t);
/* The tree cut to depth K at most (a case of K drafts has K + 1 rows). */
void sv_tree_cut(const sv_tree *full, int32_t K, sv_tree *out);
/* The first token whose cumulative weight cum[] exceeds `at` (< cum[V-1]):
 * never one of zero weight. */
int32_t sv_cum_search(const double *cum, int32_t V, double at);
/* A row's non-negative part, scaled to sum 1 (left 0 when it has no mass). */
void sv_row_normalize(const float *row, int32_t V, double *out);
/* "iid" or "distinct". */
const char *sv_siblings_name(int siblings);

/* The rows a tree's steps draw from and the sampler is given. */
typedef struct sv_tree_rows {
    const sv_tree *t;
    const sv_case *c;
    int32_t V;
    double *cum;     /* fixed rows: [depth][V] cumulative draft rows, drafts' own */
    double *p, *q;   /* fixed rows: [depth+1][V] and [depth][V], normalized */
    double *res;     /* fixed rows: [depth][res_rows][V]: the residual after i rejected
                      * independent siblings (i = 0: p) */
    int32_t res_rows; /* the tree's widest node's children */
} sv_tree_rows;
/* SV_EBAD naming the case when distinct siblings cannot be drawn (a draft
 * row with fewer tokens of mass than the width there). */
int sv_tree_rows_init(sv_tree_rows *r, const sv_case *c, const sv_tree *t);
void sv_tree_rows_free(sv_tree_rows *r);
/* The case as the sampler sees one step of fixed rows: target row j is the
 * row of node j's depth, draft row k the row node k+1 was drawn from. */
int sv_tree_case(const sv_case *c, const sv_tree *t, sv_case **out);
/* Node tokens [nodes] of sequence `index` (from the root `state` for a Markov
 * pair), from (seed, index, node, SV_PURPOSE_DRAFT, lane). */
void sv_tree_draw(const sv_tree_rows *r, uint64_t seed, uint64_t index, int32_t state,
                  int32_t *tokens);
/* Markov pairs: the step's node rows, target [nodes+1][V] and draft [nodes][V]. */
void sv_tree_step_rows(const sv_tree_rows *r, int32_t state, const int32_t *tokens,
                       float *target, float *draft);
/* tree_law.c: pi[0..depth], P(n = l) given the tree's tokens, under rule;
 * ws holds 2 V doubles. Markov pairs from the step's rows. */
void sv_tree_law(const sv_tree_rows *r, uint32_t rule, const int32_t *tokens, int32_t state,
                 double *ws, double *pi);
/* tree_unit.c: chunk `unit` of a tree run (streams for a Markov pair). */
int sv_tree_unit(const sv_run_config *cfg, const sv_tree_rows *rows, const sv_pair_plan *plan,
                 int32_t B, uint64_t steps, uint64_t unit, sv_worker_buffers *w, sv_tally *t,
                 atomic_uint_fast64_t *done);
/* contract.c: one tree sequence's outputs against the contract: the path a
 * path of the tree, its tokens the nodes', the last token of mass at its
 * node; 1 if kept, else counted and noted. */
int sv_check_tree_sequence(sv_tally *t, const sv_tree *tree, int32_t V, const float *target,
                           const sv_request *who, const int32_t *tokens, const int32_t *path,
                           const int32_t *y, int32_t n);

#endif
