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
    uint64_t seed;
    char case_name[SV_CASE_NAME_MAX], finding[SV_FINDING_LEN * 2], reproduce[1024];
    sv_case **cases;
    int32_t n_cases;
    replay_part parts[2];
} replay_file;

/* Reads and checks path; `sampler` (NULL: the file's) must be loaded. */
int sv_replay_read(const char *path, const char *sampler, replay_file *f);
void sv_replay_free(replay_file *f);

#endif
