/* sv_recorded.h: recorded p/q steps in HDF5: the format, a streaming reader
 * with validation, and a writer.
 *
 * One recording is a group (the file's root, or FILE:GROUP) holding:
 *
 *   target_logits  [N][K+1][V]  float32 or float16, or uint16 holding
 *                               bfloat16 bits (attribute encoding="bfloat16")
 *   draft_logits   [N][K][V]    the same types; -inf marks a masked token
 *                               (p = 0), NaN and +inf are refused, and so is
 *                               a row of nothing but -inf
 *     (or target_probs / draft_probs: probabilities instead of logits;
 *      every row finite, >= 0, summing to 1 within SV_RECORDED_SUM_TOL)
 *   draft_tokens   [N][K]  int32, optional: the drafts the drafter made
 *   context_ids    [N][C]  int32, optional: the C tokens before each step,
 *                          -1 where the context is shorter
 *
 * and the group's attributes: format_version (int, 1), vocab_size (int, V),
 * K (int), source, target_model, draft_model, tokenizer, produced_by
 * (strings; the last three may be empty). Datasets are chunked one step per
 * chunk and deflate-compressed, so a reader holds one step at a time: the
 * file may be far larger than memory. */
#ifndef SV_RECORDED_H
#define SV_RECORDED_H

#include <stddef.h>
#include <stdint.h>

#define SV_RECORDED_FORMAT_VERSION 1
#define SV_RECORDED_SUM_TOL 1e-3 /* rows of probabilities sum to 1 within this */
#define SV_RECORDED_MAX_K 16      /* SV_MAX_K of the sampler contract */
#define SV_RECORDED_MAX_V 1048576 /* SV_MAX_V of the cases */

typedef struct sv_recorded_meta {
    int32_t K, V;
    char source[256];       /* what the steps were recorded from (corpus, prompts) */
    char target_model[256];
    char draft_model[256];
    char tokenizer[256];
    char produced_by[256];  /* the command that wrote the file */
} sv_recorded_meta;

/* ---- reading --------------------------------------------------------------- */

typedef struct sv_recorded sv_recorded;

/* Opens PATH (with an optional ":GROUP" suffix; a path that exists as a file
 * wins over the split), checks every dataset's presence, type, rank and
 * dimensions against each other and the attributes. Values are checked step
 * by step as they are read. Returns 0, or -1 with a message naming the file,
 * the dataset and what is wrong. */
int sv_recorded_open(const char *path_group, sv_recorded **out, char *err, size_t errlen);
void sv_recorded_close(sv_recorded *r);

/* sv_recorded_open reads a file whole in a child process first (libhdf5
 * crashes on some corrupt files: recorded_read.c says more). This hook, when
 * set, runs in that child first: the fuzz target uses it to take libFuzzer's
 * crash handlers out of the child. */
extern void (*sv_recorded_child_hook)(void);

int64_t sv_recorded_steps(const sv_recorded *r);
const sv_recorded_meta *sv_recorded_info(const sv_recorded *r);
int sv_recorded_is_probs(const sv_recorded *r);     /* 1: probabilities; 0: logits */
int sv_recorded_has_drafts(const sv_recorded *r);   /* draft_tokens present */
const char *sv_recorded_dtype(const sv_recorded *r); /* "float32", "float16", "bfloat16", ... */

/* Reads step i as doubles: target [K+1][V] and draft [K][V] (logits, or
 * log-probabilities when the file holds probabilities: log 0 = -inf), and the
 * recorded drafts [K] when `drafts` is not NULL and the file has them.
 * Validates what it read: logits numbers or -inf (a masked token), not a
 * whole row of -inf; probabilities finite, >= 0, summing to 1; drafts in
 * [0, V). Returns 0, or -1 with a message naming the file, dataset, index
 * and value. */
int sv_recorded_read_step(sv_recorded *r, int64_t i, double *target, double *draft,
                          int32_t *drafts, char *err, size_t errlen);

/* ---- writing --------------------------------------------------------------- */

typedef enum { SV_REC_FLOAT32, SV_REC_FLOAT16, SV_REC_BFLOAT16 } sv_recorded_dtype_t;

typedef struct sv_recorded_writer sv_recorded_writer;

/* Creates a temporary PATH.tmp.XXXXXX beside PATH (beside the file a link
 * names) with the group (NULL or "" or "/": the root) and its attributes;
 * sv_recorded_writer_commit renames it to PATH, so a failed or interrupted
 * recording never leaves a file that looks whole. PATH must be a regular
 * file, a link to one, or new: a device or a FIFO is refused (sv_output.h).
 * context_len 0: no context_ids dataset. */
int sv_recorded_writer_open(const char *path, const char *group, const sv_recorded_meta *m,
                            sv_recorded_dtype_t dtype, int32_t context_len,
                            sv_recorded_writer **out, char *err, size_t errlen);

/* Appends one step: target logits [K+1][V], draft logits [K][V], the drafts
 * [K] (NULL: none recorded; then no step may give them) and the context
 * [context_len] (-1 padded). */
int sv_recorded_writer_append(sv_recorded_writer *w, const float *target, const float *draft,
                              const int32_t *drafts, const int32_t *context, char *err,
                              size_t errlen);

/* Closes and renames into place. Returns 0, or -1 (the temporary is removed). */
int sv_recorded_writer_commit(sv_recorded_writer *w, char *err, size_t errlen);
/* Closes and removes the temporary: nothing is left behind. */
void sv_recorded_writer_abort(sv_recorded_writer *w);

#endif
