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
/* --json FILE: the m samplers' points (pts[i], done[i] of planned each),
 * labels[i] each one's label (sweep_json.c). */
int sweep_write_json(const sweep_args *a, const char (*labels)[160], sweep_point *const *pts,
                     const size_t *done, size_t planned);

#endif
