/* sweep_points.h: what cmd_sweep.c and sweep_points.c share: a sweep's
 * arguments, and the points: their specs and runs. */
#ifndef SV_SWEEP_POINTS_H
#define SV_SWEEP_POINTS_H

#include <stdint.h>
#include "sv_cli.h"
#include "sv_sweep.h"

#define MAX_AXIS SV_SWEEP_MAX_AXIS

typedef sv_sweep_point sweep_point;

#define MAX_SAMPLERS 4

typedef struct sweep_args {
    const char *spec, *out, *json; /* json: --json FILE, NULL: none */
    char recorded_spec[1600]; /* --recorded's case spec, every step */
    const sv_sampler *sampler; /* the one sweeping now */
    const sv_sampler *samplers[MAX_SAMPLERS]; /* --sampler LIST: side by side */
    int n_samplers;
    double T[MAX_AXIS], level;
    int32_t K[MAX_AXIS];
    int n_T, n_K;
    uint64_t draws, seed;
    int32_t threads, batch;
    int resume;
    sv_isolation iso;
    sv_tree_args tree_args;   /* --tree, --siblings: for the tree samplers of the list */
    sv_tree shape;            /* the one sweeping now, where it is a tree sampler */
    const sv_tree *tree;      /* &shape for a tree sampler, else NULL */
    char label[160];          /* the sampler, with its tree: what sweep.h5 and resume name */
    sv_sweep_setup set;       /* the cost ratios, the batch axis and its costs; run once parsed */
    sv_cmd_shard *shard;      /* --shard: each point's counts to the file; a merge's sums */
} sweep_args;

/* 1 when spec is a whole recording ("recorded:..." without step=), with
 * its steps; one case per step. */
int sweep_whole_recording(const char *spec, int64_t *steps);
/* The case a spec names; for a whole recording its first step. */
int sweep_first_case(const char *spec, sv_case **c);
/* SPEC with its own T= and K= removed, then the point's appended. */
void sweep_point_spec(const char *spec, int has_T, double T, int has_K, int32_t K, char *out,
                      size_t len);
/* Every point's case built once, before any draw: bad input named (exit 2). */
int sweep_check_points(const sweep_args *a);
/* Runs one point: its case, or every step of a recording, pooled. */
int sweep_run_point(const sweep_args *a, const char *spec, sv_sweep_point *pt);
/* A point of one case from its run's tally (a contract broken: exit 1). */
int sweep_point_fill(const sweep_args *a, const char *spec, const sv_case *c,
                     const sv_tally *t, uint64_t draws, sv_sweep_point *pt);
/* A whole recording's step s: its share of the point's draws, its key. */
uint64_t sweep_step_draws(const sweep_args *a, int64_t steps, int64_t s);
uint64_t sweep_step_seed(const sweep_args *a, int64_t s);
/* sweep_steps.c: 1 where the sampler sweeping now runs a recording's steps
 * in mixes of many (a plugin's, a Python one, the packed layout alone), 0
 * where it runs one a step; and that run, each step's point into each[s]. */
int sweep_steps_mixed(const sweep_args *a);
int sweep_run_steps(const sweep_args *a, const char *spec, int64_t steps,
                    sv_sweep_point *each);
/* n cases (draws[i] each) run as one mix with `seed`: rows per sequence in
 * the sampler's layouts, every sequence at its case's K, none seeded; a
 * shard runs its share, a merge takes the shards' sums (exit 128 + signal
 * for a shard interrupted: whole points or no file). */
int sweep_run_mix(const sweep_args *a, const char *spec, uint64_t seed, int32_t n,
                  const sv_case *const *cases, const sv_drafter *const *drafters,
                  const sv_pair_plan *plans, sv_tally **tallies, const uint64_t *draws);
/* --json FILE: the m samplers' points (pts[i], done[i] of planned each),
 * labels[i] each one's label (sweep_json.c). */
int sweep_write_json(const sweep_args *a, const char (*labels)[160], sweep_point *const *pts,
                     const size_t *done, size_t planned);

#endif
