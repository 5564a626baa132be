/* replay.h: `specverify replay`'s file (replay_file.c) and run (cmd_replay.c). */
#ifndef SV_REPLAY_H
#define SV_REPLAY_H

#include "sv_cli.h"
#include "sv_store.h"

/* One batch of a failing-batch file: slot b of the batch is sequence
 * indices[b] of case case_of[b] with drafts[b] drafts. */
typedef struct replay_part {
    int32_t B, layout, target;
    int32_t *case_of, *drafts;
    uint8_t *seeded;
    uint64_t *indices;
    int32_t *rows; /* [B][SV_MAX_K + 2]: what the sampler gave in the run (sv_failing_batch) */
} replay_part;

typedef struct replay_file {
    char kind[16];              /* contract, composition */
    int n_parts;
    char sampler_name[128];
    const sv_sampler *sampler;  /* the one to replay: --sampler, else the file's */
    int32_t input, K, V;
    int v3;
    int own_drafts;             /* the batch gave the sampler uniforms to draw its drafts */
    uint64_t seed;
    char case_name[SV_CASE_NAME_MAX], finding[SV_FINDING_LEN * 2], reproduce[1024];
    sv_case **cases;
    int32_t n_cases;
    replay_part parts[2];
} replay_file;

/* What came of a replay. */
typedef struct replay_outcome {
    int broken, failed;     /* a sequence broke the contract; a call failed (crash, status) */
    int differ;             /* a composition's sequence gave other tokens in its two batches */
    int reproduced;         /* any of the three */
    int32_t same[2];        /* per batch: sequences that gave what they gave in the run */
    int32_t first[2];       /* the first that did not, or -1 */
    int32_t *got[2];        /* per batch: what the sampler gave, [B][SV_MAX_K + 2] */
    int n_notes;
    char notes[4][SV_NOTE_LEN]; /* the first breaches' words, escaped */
    const char *says;       /* the verdict line */
} replay_outcome;

/* Reads and checks path; `sampler` (NULL: the file's) must be loaded. */
int sv_replay_read(const char *path, const char *sampler, replay_file *f);
void sv_replay_free(replay_file *f);
/* replay_json.c: --json FILE, replay_format 1. */
int sv_replay_json(const char *path, const char *file, const replay_file *f,
                   const replay_outcome *o);

#endif
